/**
 * Yaku on the table (TABLE.md, "Yaku"): under each seat, the combinations within its reach
 * ("ribbons (tan) 4/5 · 1 point"), and the yaku guide, a dialog listing every combination of
 * the game's rules with its cards drawn and its points. Both are worked out from the view alone
 * (`yaku.ts`): the rule set, the round month and the seats' public captures.
 */

import { GameKind, GameStatus, type Card, type GameView, type SeatInfo } from "@hanafuda-referee/client";
import { cardName, cardSvg } from "./cards.js";
import { byId, el, picture } from "./dom.js";
import { t } from "./i18n/language.js";
import { pointsText, yakuName } from "./words.js";
import { HAND_PATTERNS, hachiPlans, koikoiPlans, withinReach, type Plan, type Reach } from "./yaku.js";

/** The combinations of the view's rules that captures make. */
export function plansOf(view: GameView): Plan[] {
  const rules = view.rules?.game;
  if (rules?.case === "koiKoi") return koikoiPlans(rules.value, view.roundMonth);
  if (view.kind === GameKind.HACHI_HACHI) return hachiPlans();
  return [];
}

/** The list of what `seat` has within reach, or `null` when nothing is. */
/** The combinations within reach of `seat` (nothing once the game is over), nearest first. */
export function reachOf(view: GameView, seat: SeatInfo, plans: readonly Plan[]): Reach[] {
  if (view.status === GameStatus.OVER) return [];
  const mine = new Set<Card>(seat.captured);
  const others = new Set<Card>(
    view.seats.filter((other) => other.seat !== seat.seat).flatMap((other) => other.captured),
  );
  const formed = new Set<string>([...seat.yaku.map((y) => y.id), ...seat.dekiyaku.map((d) => d.id)]);
  return withinReach(plans, mine, others, formed);
}

/** A line of what is within reach: "five ribbons (tan) 3/5 · 1 point". */
export function reachLine({ plan, have }: Reach): string {
  return t.guide.reach(yakuName(plan.id), have, plan.need, pointsText(plan.points));
}

export function reachList(view: GameView, seat: SeatInfo, plans: readonly Plan[]): HTMLElement | null {
  const reach = reachOf(view, seat, plans);
  if (!reach.length) return null;
  const list = el("ul", { class: "reach", "aria-label": t.guide.withinReach });
  for (const { plan, have } of reach) {
    list.append(
      el(
        "li",
        { "data-yaku": plan.id, "data-have": have, "data-need": plan.need },
        reachLine({ plan, have }),
      ),
    );
  }
  return el("div", { class: "within-reach" }, el("p", { class: "reach-title" }, t.guide.withinReach), list);
}

function smallCard(card: Card): HTMLElement {
  const image = el("span", { class: "card small", role: "img", "aria-label": cardName(card), "data-card": card });
  image.append(picture(cardSvg(card)));
  return image;
}

function planItem(plan: Plan, view: GameView): HTMLElement {
  const all = plan.need === plan.cards.length;
  const notes: string[] = [pointsText(plan.points)];
  if (plan.extra) notes.push(t.guide.extra(plan.need));
  if (plan.afterKoikoi !== undefined) notes.push(t.guide.afterKoikoi(pointsText(plan.afterKoikoi)));
  if (plan.id === "tsukifuda" && view.roundMonth) {
    notes.push(t.guide.roundMonth(t.cards.months[view.roundMonth - 1] ?? ""));
  }
  const row = el("div", { class: "row" });
  for (const card of plan.cards) row.append(smallCard(card));
  return el(
    "li",
    { "data-yaku": plan.id },
    el("h4", {}, yakuName(plan.id)),
    el("p", { class: "worth" }, notes.join(" · ")),
    el(
      "p",
      {},
      all ? t.guide.allOf : t.guide.anyOf(plan.need),
      plan.requires ? ` (${t.guide.requires(cardName(plan.requires))})` : "",
    ),
    row,
  );
}

/** Opens the guide to every combination of the view's rules. */
export function showGuide(view: GameView): void {
  const hachi = view.kind === GameKind.HACHI_HACHI;
  const game = hachi ? t.table.kinds.hachihachi : t.table.kinds.koikoi;
  byId("guide-title").textContent = t.guide.title(game);
  const body = byId("guide-body");
  const captures = el("ol", { class: "guide-list" });
  for (const plan of plansOf(view)) captures.append(planItem(plan, view));
  body.replaceChildren(
    el("p", {}, t.guide.intro),
    el("h3", {}, hachi ? t.guide.dekiyakuTitle : t.guide.yakuTitle),
    ...(hachi ? [el("p", {}, t.guide.dekiyakuText)] : []),
    captures,
  );
  if (hachi) {
    const hands = el("ol", { class: "guide-list" });
    for (const pattern of HAND_PATTERNS) {
      hands.append(
        el("li", { "data-yaku": pattern.id }, el("h4", {}, yakuName(pattern.id)), el("p", { class: "worth" }, pointsText(pattern.value))),
      );
    }
    body.append(el("h3", {}, t.guide.teyakuTitle), el("p", {}, t.guide.teyakuText), hands);
  }
  const dialog = byId<HTMLDialogElement>("guide");
  if (!dialog.open) dialog.showModal();
  byId("guide-close").focus();
}
