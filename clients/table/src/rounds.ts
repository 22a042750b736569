/**
 * The course of a game (TABLE.md): a round's summary (who won, with which yaku, the arithmetic,
 * the running scores), and the round-by-round score sheet.
 *
 * The sheet is read from the game's log (`GetGameLog`, every `round_ended` event as this seat may
 * see it), so it is whole whenever it is opened, after a reload or in a tab that joined late.
 * Each round's gains are worked out from its result: Koi-Koi's winner scores the round's points
 * (in transfer mode the loser gives them), Hachi-Hachi's payments move half points between
 * balances (and the table, for drop fees).
 */

import {
  GameKind,
  PaymentCause,
  type GameView,
  type RefereeClient,
  type RoundResult,
} from "@hanafuda-referee/client";
import { el } from "./dom.js";
import { readLog } from "./log.js";
import { t } from "./i18n/language.js";
import type { CauseKey } from "./i18n/strings.js";
import type { Place } from "./links.js";
import {
  halves,
  multiplierLine,
  party,
  pointsText,
  roundSummary,
  signedNumber,
  yakuName,
  type Seats,
} from "./words.js";

/** Every finished round's result, from the game's log, in order. */
export async function loadRounds(referee: RefereeClient, place: Place): Promise<RoundResult[]> {
  const results: RoundResult[] = [];
  for (const event of await readLog(referee, place)) {
    if (event.kind.case === "roundEnded" && event.kind.value.result) results.push(event.kind.value.result);
  }
  return results;
}

/** One line of the sheet: the round, each seat's gain in it and running total after it. */
export interface SheetRow {
  readonly round: number;
  /** Koi-Koi points, Hachi-Hachi half points, indexed by seat. */
  readonly gains: readonly number[];
  readonly totals: readonly number[];
}

/** What each seat had before the first round: Koi-Koi's starting points in transfer mode, else 0. */
export function startingTotals(view: GameView): number[] {
  const rules = view.rules?.game;
  const start = rules?.case === "koiKoi" ? (rules.value.startingPoints ?? 0) : 0;
  return view.seats.map(() => start);
}

/** The sheet's rows for `results`, from `start`. */
export function sheetRows(view: GameView, results: readonly RoundResult[], start: readonly number[]): SheetRow[] {
  const rules = view.rules?.game;
  const transfer = rules?.case === "koiKoi" && (rules.value.startingPoints ?? 0) > 0;
  let totals = [...start];
  const rows: SheetRow[] = [];
  for (const result of results) {
    const gains = view.seats.map(() => 0);
    if (view.kind === GameKind.HACHI_HACHI) {
      for (const payment of result.payments) {
        const amount = Number(payment.amountHalves);
        if (payment.fromSeat !== undefined) gains[payment.fromSeat] = (gains[payment.fromSeat] ?? 0) - amount;
        if (payment.toSeat !== undefined) gains[payment.toSeat] = (gains[payment.toSeat] ?? 0) + amount;
      }
    } else if (result.winner !== undefined && result.score) {
      gains[result.winner] = result.score.points;
      if (transfer) {
        for (let seat = 0; seat < gains.length; seat++) {
          if (seat !== result.winner) gains[seat] = -result.score.points;
        }
      }
    }
    totals = totals.map((total, seat) => total + (gains[seat] ?? 0));
    rows.push({ round: result.round, gains, totals });
  }
  return rows;
}

function amount(view: GameView, value: number, signed = false): string {
  const text = view.kind === GameKind.HACHI_HACHI ? halves(value) : t.words.number(value);
  return signed && value > 0 ? `+${text}` : text;
}

/** The score sheet: a row per round (gains, then running totals), the start, the totals. */
export function sheetTable(view: GameView, rows: readonly SheetRow[], start: readonly number[]): HTMLTableElement {
  const header = el("tr", {}, el("th", { scope: "col" }, t.rounds.round));
  for (const seat of view.seats) header.append(el("th", { scope: "col" }, seat.name));
  const body = el("tbody");
  if (start.some((value) => value !== 0)) {
    const row = el("tr", {}, el("th", { scope: "row" }, t.rounds.start));
    for (const value of start) row.append(el("td", {}, amount(view, value)));
    body.append(row);
  }
  for (const line of rows) {
    const row = el("tr", { "data-round": line.round }, el("th", { scope: "row" }, String(line.round)));
    line.gains.forEach((gain, seat) => {
      row.append(
        el(
          "td",
          { "data-seat": seat, "data-total": line.totals[seat] ?? 0 },
          gain ? amount(view, gain, true) : "·",
          el("span", { class: "running" }, ` (${amount(view, line.totals[seat] ?? 0)})`),
        ),
      );
    });
    body.append(row);
  }
  const totals = rows.at(-1)?.totals ?? start;
  const foot = el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, t.rounds.total)));
  for (const value of totals) foot.firstElementChild?.append(el("td", { class: "total" }, amount(view, value)));
  return el("table", { class: "sheet" }, el("caption", { class: "sr-only" }, t.rounds.sheetTitle), el("thead", {}, header), body, foot);
}

const CAUSES: Record<number, CauseKey> = {
  [PaymentCause.TEYAKU]: "teyaku",
  [PaymentCause.DEKIYAKU]: "dekiyaku",
  [PaymentCause.SAGE_REFUND]: "sageRefund",
  [PaymentCause.SAGE_OVERTAKEN]: "sageOvertaken",
  [PaymentCause.CARD_COUNT]: "cardCount",
  [PaymentCause.ALL_EIGHTS]: "allEights",
  [PaymentCause.DOUBLE_EIGHTS]: "doubleEights",
  [PaymentCause.DROP_FEE]: "dropFee",
  [PaymentCause.DROP_FEES_TAKEN]: "dropFeesTaken",
};

/**
 * A round's summary: who won and how the round ended, the winner's yaku with the arithmetic
 * (Koi-Koi), the field multiplier, every payment with what it is for and the card counts
 * (Hachi-Hachi), and every seat's total after it (`view`: the game as it was told with it).
 */
export function summaryContent(view: GameView, seats: Seats, result: RoundResult): HTMLElement {
  const box = el("div", { class: "summary" }, el("p", { class: "summary-line" }, roundSummary(seats, result)));
  const score = result.score;
  if (score && score.yaku.length) {
    const yaku = el("ul", { class: "breakdown" });
    for (const one of score.yaku) yaku.append(el("li", {}, t.table.yakuLine(yakuName(one.id), pointsText(one.points))));
    const steps = el("ul", { class: "breakdown arithmetic" }, el("li", {}, t.rounds.base(pointsText(score.base))));
    for (const multiplier of score.multipliers) {
      steps.append(el("li", {}, multiplierLine(multiplier)));
    }
    steps.append(el("li", { class: "round-score" }, t.rounds.score(pointsText(score.points))));
    box.append(el("p", {}, t.rounds.yakuTitle), yaku, steps);
  }
  if (view.kind === GameKind.HACHI_HACHI) {
    if (result.fieldMultiplier) box.append(el("p", {}, t.rounds.fieldMultiplier(result.fieldMultiplier)));
    if (result.payments.length) {
      const list = el("ul", { class: "breakdown payments" });
      for (const payment of result.payments) {
        const from = party(seats, payment.fromSeat);
        const to = party(seats, payment.toSeat);
        const cause = CAUSES[payment.cause];
        const reason = payment.combination
          ? cause
            ? t.rounds.causeOf(t.rounds.causes[cause], yakuName(payment.combination))
            : yakuName(payment.combination)
          : cause
            ? t.rounds.causes[cause]
            : undefined;
        list.append(
          el(
            "li",
            {},
            t.table.payment(from.you ? t.words.you : from.name, to.you ? t.words.you : to.name, halves(payment.amountHalves), reason),
          ),
        );
      }
      box.append(el("p", {}, t.rounds.paymentsTitle), list);
    }
    if (result.counts.length) {
      const counts = el("ul", { class: "breakdown counts" });
      for (const count of result.counts) {
        const who = party(seats, count.seat);
        counts.append(
          el(
            "li",
            {},
            t.rounds.count(
              who.you ? t.words.you : who.name,
              count.count,
              signedNumber(count.difference),
            ),
          ),
        );
      }
      box.append(el("p", {}, t.rounds.countsTitle), counts);
    }
  }
  return box;
}

/**
 * Every seat's total after round `round`, from the sheet's rows (the view of the round's last
 * version may already hold the next round's first payments: Hachi-Hachi's teyaku are paid at
 * the deal, in the same version as the round's end).
 */
export function runningTotals(view: GameView, rows: readonly SheetRow[], round: number): HTMLElement {
  const hachi = view.kind === GameKind.HACHI_HACHI;
  const totals = rows.find((row) => row.round === round)?.totals ?? [];
  const running = el("ul", { class: "breakdown running-scores" });
  view.seats.forEach((seat, index) => {
    running.append(el("li", { "data-seat": seat.seat }, `${seat.name}: ${amount(view, totals[index] ?? 0)}`));
  });
  return el("div", {}, el("p", {}, hachi ? t.rounds.runningBalances : t.rounds.runningScores), running);
}
