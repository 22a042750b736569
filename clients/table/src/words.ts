/**
 * The game told in words: each event as a sentence for the table's live region, and the names of
 * moves, yaku and results.
 */

import {
  DealCheck,
  GameEnd,
  MoveKind,
  RoundEnd,
  type Event,
  type GameResult,
  type Move,
  type RoundResult,
} from "@hanafuda-referee/client";
import { shortName } from "./cards.js";

/** Who sits where: `names[seat]`, and the viewer's seat (told as "you"). */
export interface Seats {
  readonly names: readonly string[];
  readonly me: number | undefined;
}

export function who(seats: Seats, seat: number | undefined): string {
  if (seat === undefined) return "nobody";
  if (seat === seats.me) return "you";
  return seats.names[seat] ?? `seat ${seat + 1}`;
}

/** A party to a payment: a seat, or the table (drop fees) when none is named. */
export function party(seats: Seats, seat: number | undefined): string {
  return seat === undefined ? "the table" : who(seats, seat);
}

function cards(list: readonly number[]): string {
  return list.map((card) => shortName(card)).join(", ");
}

/** An amount in halves of a point (Hachi-Hachi), as points: `7`, `-2.5`. */
export function halves(amount: bigint | number): string {
  const value = Number(amount) / 2;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** A number of points with its noun: "1 point", "7 points", "-2.5 points". */
export function pointsText(amount: number | string): string {
  return `${amount} ${Number(amount) === 1 ? "point" : "points"}`;
}

/** Koi-Koi's multipliers in a player's words, by the referee's id. */
const MULTIPLIERS: Record<string, string> = {
  "seven-or-more": "7 points or more, doubled",
  "own-koikoi": "after your own koi-koi, doubled",
  "own-koikoi-bonus": "bonus for your own koi-koi calls",
  "opponent-koikoi": "won after the opponent's koi-koi",
  "all-calls-plus-one": "every koi-koi call, plus one",
  "counter-seven": "a stop at 7 or more against a koi-koi, doubled",
};

/** A multiplier id as words (an id the table does not know is shown with spaces). */
export function multiplierName(id: string): string {
  return MULTIPLIERS[id] ?? yakuName(id);
}

/** A yaku or dekiyaku id as words: `ino-shika-cho` stays, `five-brights` becomes `five brights`. */
export function yakuName(id: string): string {
  return id.replace(/-/g, " ");
}

/** A move as a button says it. */
export function moveLabel(move: Move): string {
  switch (move.kind) {
    case MoveKind.PLAY:
      return `Play ${shortName(move.card)}`;
    case MoveKind.CHOOSE_TARGET:
      return `Take ${shortName(move.target)}`;
    case MoveKind.KOIKOI:
      return "Koi-koi (go on)";
    case MoveKind.STOP:
      return "Stop (score now)";
    case MoveKind.SAGE:
      return "Sage (go on)";
    case MoveKind.SHOBU:
      return "Shōbu (end the round)";
    case MoveKind.JOIN:
      return "Join the round";
    case MoveKind.DROP:
      return "Drop out";
    case MoveKind.RESIGN:
      return "Resign";
    default:
      return "Move";
  }
}

const ROUND_ENDS: Record<number, string> = {
  [RoundEnd.DEAL_CHECK]: "a deal check",
  [RoundEnd.STOP]: "a stop",
  [RoundEnd.EXHAUSTION]: "exhausted hands",
  [RoundEnd.DEALER_EMPTY]: "the dealer's empty hand",
  [RoundEnd.SHOBU]: "shōbu",
  [RoundEnd.SAGE_OVERTAKEN]: "a sage overtaken",
  [RoundEnd.CARD_COUNT]: "the card count",
};

const GAME_ENDS: Record<number, string> = {
  [GameEnd.ROUNDS_PLAYED]: "every round played",
  [GameEnd.OUT_OF_POINTS]: "a player out of points",
  [GameEnd.TARGET_REACHED]: "the target reached",
  [GameEnd.RESIGNED]: "a resignation",
};

export function roundSummary(seats: Seats, result: RoundResult): string {
  const end = ROUND_ENDS[result.end] ?? "its end";
  const winner =
    result.winner === undefined
      ? "no winner"
      : `${who(seats, result.winner)} ${result.winner === seats.me ? "win" : "wins"}`;
  const points = result.score && result.score.points > 0 ? ` with ${pointsText(result.score.points)}` : "";
  // The deal check is named by the end itself; saying it twice ("a deal check (deal check)") reads as a bug.
  const check =
    result.dealCheck !== DealCheck.UNSPECIFIED && !end.includes("deal check") ? " (deal check)" : "";
  return `Round ${result.round} ended by ${end}${check}: ${winner}${points}.`;
}

export function gameSummary(seats: Seats, result: GameResult): string {
  const end = GAME_ENDS[result.end] ?? "its end";
  let outcome: string;
  if (result.draw) outcome = "a draw";
  else if (result.winner === undefined) outcome = "no winner";
  else outcome = `${who(seats, result.winner)} ${result.winner === seats.me ? "win" : "wins"}`;
  const resigned =
    result.resigned !== undefined ? ` ${capital(who(seats, result.resigned))} resigned.` : "";
  return `Game over by ${end}: ${outcome}.${resigned}`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The event in a sentence, or `undefined` for events not worth telling. `lastActor`: the seat
 * that acted last in this version, told as the actor of an event without one (a card drawn from
 * the stock after a play is that player's draw).
 */
export function describe(seats: Seats, event: Event, lastActor?: number): string | undefined {
  const actor = who(seats, event.actor ?? lastActor);
  const Actor = capital(actor);
  const kind = event.kind;
  switch (kind.case) {
    case "gameCreated":
      return `A game of ${kind.value.players.length} players begins.`;
    case "roundDealt":
      return `Round ${kind.value.round} is dealt (month ${kind.value.month}); ${who(seats, kind.value.dealer)} deal${kind.value.dealer === seats.me ? "" : "s"}.`;
    case "cardPlayed": {
      const taken = kind.value.captured.length
        ? `, taking ${cards(kind.value.captured)}`
        : " to the field";
      return `${Actor} played ${shortName(kind.value.card)}${taken}.`;
    }
    case "cardDrawn": {
      const taken = kind.value.captured.length
        ? `, taking ${cards(kind.value.captured)}`
        : ", to the field";
      return `${Actor} drew ${shortName(kind.value.card)}${taken}.`;
    }
    case "targetRequired":
      return `${capital(who(seats, kind.value.seat))} must choose which card ${shortName(kind.value.card)} takes.`;
    case "targetChosen":
      return `${Actor} took ${cards(kind.value.captured)} with ${shortName(kind.value.card)}.`;
    case "yakuFormed":
      return `${capital(who(seats, kind.value.seat))} formed ${kind.value.yaku.map((y) => yakuName(y.id)).join(", ")}: ${pointsText(kind.value.points)}.`;
    case "koikoiCalled":
      return `${capital(who(seats, kind.value.seat))} called koi-koi (${kind.value.calls}).`;
    case "stopped":
      return `${capital(who(seats, kind.value.seat))} stopped${kind.value.automatic ? " (automatically)" : ""}.`;
    case "roundEnded":
      return kind.value.result ? roundSummary(seats, kind.value.result) : "The round ended.";
    case "gameEnded":
      return kind.value.result ? gameSummary(seats, kind.value.result) : "The game is over.";
    case "participationDecided":
      return `${capital(who(seats, kind.value.seat))} ${kind.value.joined ? "joined" : "dropped out"}${kind.value.forced ? " (forced)" : ""}.`;
    case "teyakuDeclared":
      return `${capital(who(seats, kind.value.seat))} declared ${yakuName(kind.value.teyaku?.id ?? "a hand")}.`;
    case "dekiyakuFormed":
      return `${capital(who(seats, kind.value.seat))} formed ${kind.value.dekiyaku.map((d) => yakuName(d.id)).join(", ")}.`;
    case "sageCalled":
      return `${capital(who(seats, kind.value.seat))} called sage.`;
    case "shobuCalled":
      return `${capital(who(seats, kind.value.seat))} called shōbu.`;
    case "sageOvertaken":
      return `${capital(who(seats, kind.value.overtaker))} overtook ${who(seats, kind.value.sageCaller)}'s sage.`;
    case "paymentMade": {
      const payment = kind.value.payment;
      if (!payment) return undefined;
      return `${capital(party(seats, payment.fromSeat))} paid ${halves(payment.amountHalves)} to ${party(seats, payment.toSeat)}.`;
    }
    case "lightningCollected":
      return `${capital(who(seats, kind.value.seat))} collected the lightning month ${kind.value.month}.`;
    case "resigned":
      return `${capital(who(seats, kind.value.seat))} resigned${kind.value.timedOut ? " (out of time)" : ""}.`;
    case "decisionTimedOut":
      return `${capital(who(seats, kind.value.seat))} ran out of time; the referee decided for ${kind.value.seat === seats.me ? "you" : "them"}${kind.value.move ? ": " + moveLabel(kind.value.move) : ""}.`;
    case "dealCheckFired":
      return "A deal check fired.";
    case "redealt":
      return "The cards are dealt again.";
    default:
      return undefined;
  }
}
