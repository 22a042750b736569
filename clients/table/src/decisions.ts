/**
 * The numbers a decision's dialog gives (TABLE.md, "Decisions"): what stopping keeps now, what
 * going on can win and what it risks, all from the seat's own view.
 */

import { Participation, type GameView, type SeatInfo } from "@hanafuda-referee/client";
import { plansOf, reachLine, reachOf } from "./guide.js";
import { t } from "./i18n/language.js";
import { halves, pointsText, signedNumber } from "./words.js";

/** How many of the nearest combinations within reach a dialog names. */
const REACH_SAID = 3;

/** What going on can still form, nearest first (none when the seat has no card left). */
function goOnReach(view: GameView, seat: SeatInfo): string[] {
  if (!view.hand.length) return [];
  const lines = reachOf(view, seat, plansOf(view)).slice(0, REACH_SAID).map(reachLine);
  return lines.length ? [t.table.goOnReach(lines)] : [];
}

/** The least a Hachi-Hachi dekiyaku is worth (akatan, aotan, inoshikachō: RULES.md 2.4). */
const LEAST_DEKIYAKU = 35;

/** The rungs of a ladder replace each other: only the highest one paid counts (RULES.md 2.4). */
function ladderOf(id: string): string | undefined {
  if (id === "four-lights" || id === "five-lights") return "lights";
  if (id.startsWith("plains-")) return "plains";
  return undefined;
}

/**
 * What each other player has paid `seat` for its dekiyaku this round, before the multiplier:
 * the values of the dekiyaku paid, a ladder counted at its highest rung.
 *
 * For example, four lights (50) then five lights (75) and akatan (35) come to 75 + 35 = 110.
 */
export function dekiyakuPaid(seat: SeatInfo): number {
  const ladders = new Map<string, number>();
  let total = 0;
  for (const dekiyaku of seat.dekiyaku) {
    const ladder = ladderOf(dekiyaku.id);
    if (ladder === undefined) total += dekiyaku.value;
    else ladders.set(ladder, Math.max(ladders.get(ladder) ?? 0, dekiyaku.value));
  }
  for (const value of ladders.values()) total += value;
  return total;
}

/**
 * The sage or shōbu dialog's words: what the seat was paid, what shōbu keeps (with the drop
 * fees), what sage can still win (more dekiyaku, else the card count: `cardPoints` now) and what
 * it risks if another player forms a dekiyaku first (RULES.md 2.4: half the first payment back
 * to each other player, the maker's dekiyaku paid twice over, at least the smallest one's).
 */
export function sageWords(view: GameView, seat: SeatInfo, cardPoints: number): string[] {
  const multiplier = Math.max(1, view.fieldMultiplier);
  // Each payment is in whole points, and the two other players of the round paid it.
  const each = dekiyakuPaid(seat) * multiplier;
  const difference = signedNumber(cardPoints - 88);
  const fees = view.tableHalves > 0n ? halves(view.tableHalves) : undefined;
  const parts = [
    t.table.sagePaid(pointsText(each), multiplier, pointsText(each * 2)),
    t.table.sageShobu(fees),
  ];
  if (view.hand.length) parts.push(t.table.sageGoOn(cardPoints, difference), ...goOnReach(view, seat));
  else parts.push(t.table.sageLastCard(cardPoints, difference));
  // The refund is half the first payment's points: in halves, exactly those points.
  const first = view.firstDekiyakuPoints || dekiyakuPaid(seat);
  parts.push(
    t.table.sageRisk(pointsText(halves(first * multiplier)), pointsText(2 * LEAST_DEKIYAKU * multiplier)),
  );
  return parts;
}

/**
 * The koi-koi dialog's words: what the yaku score if the seat stops now, and what going on risks
 * (the opponent's cards in hand and yaku so far), or that nothing is left to gain.
 */
export function koikoiWords(view: GameView, seat: SeatInfo | undefined): string[] {
  const parts = [t.table.koikoiText(pointsText(seat?.yakuPoints ?? 0))];
  if (seat) parts.push(...goOnReach(view, seat));
  const opponent = view.seats.find((other) => other.seat !== view.viewerSeat);
  if (opponent && view.hand.length > 0) {
    parts.push(t.table.koikoiRisk(opponent.name, opponent.handSize, pointsText(opponent.yakuPoints)));
  }
  // TABLE.md: the dialog says so when going on can gain nothing.
  if (!view.hand.length) parts.push(t.table.nothingLeft);
  return parts;
}

/** Hachi-Hachi's drop fee before the multiplier (RULES.md 2.1). */
const DROP_FEE = 10;

/**
 * The join or drop dialog's words: what dropping costs (the fee, × the field multiplier, to the
 * round's winner), what joining plays for, and how many have joined so far.
 */
export function joinWords(view: GameView): string[] {
  const multiplier = Math.max(1, view.fieldMultiplier);
  const joined = view.seats.filter((seat) => seat.participation === Participation.JOINED).length;
  return [
    t.table.joinDrop(pointsText(DROP_FEE * multiplier), multiplier),
    t.table.joinPlay(multiplier),
    t.table.joinCount(joined),
  ];
}
