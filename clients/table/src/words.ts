/**
 * The game told in words, in the table's language (`i18n/`): each event as a sentence for the
 * table's live region, and the names of moves, yaku and results.
 */

import {
  DealCheck,
  GameEnd,
  MoveKind,
  RoundEnd,
  type Event,
  type GameResult,
  type Move,
  type Multiplier,
  type RoundResult,
} from "@hanafuda-referee/client";
import { shortName } from "./cards.js";
import { t } from "./i18n/language.js";
import type {
  GameEndKey,
  MoveKey,
  MultiplierId,
  RoundEndKey,
  Who,
  YakuId,
} from "./i18n/strings.js";

/** Who sits where: `names[seat]`, and the viewer's seat (told as "you"). */
export interface Seats {
  readonly names: readonly string[];
  readonly me: number | undefined;
}

/** A seat for a sentence: its name, and whether it is the viewer's. */
export function person(seats: Seats, seat: number | undefined): Who {
  if (seat === undefined) return { name: t.words.nobody, you: false };
  return { name: seats.names[seat] ?? t.words.seat(seat + 1), you: seat === seats.me };
}

/** A party to a payment: a seat, or the table (drop fees) when none is named. */
export function party(seats: Seats, seat: number | undefined): Who {
  return seat === undefined ? { name: t.words.theTable, you: false } : person(seats, seat);
}

function cards(list: readonly number[]): string[] {
  return list.map((card) => shortName(card));
}

/** An amount in halves of a point (Hachi-Hachi), as points: `7`, `-2.5` (`-2,5` in French). */
export function halves(amount: bigint | number): string {
  return t.words.number(Number(amount) / 2);
}

/** A number of points with its noun: "1 point", "7 points", "-2.5 points". */
export function pointsText(amount: number | string): string {
  return t.words.points(typeof amount === "number" ? t.words.number(amount) : amount, Number(amount));
}

/** Koi-Koi's multipliers in a player's words, by the referee's name (`seven-or-more`). */
export function multiplierName(id: string): string {
  // The proto's comment spells the names with underscores: accept both.
  const key = id.replace(/_/g, "-");
  return t.multipliers[key as MultiplierId] ?? key.replace(/-/g, " ");
}

/** A number with its sign when positive: "+12", "-43", "0" (the language's decimal mark). */
export function signedNumber(value: number): string {
  return `${value > 0 ? "+" : ""}${t.words.number(value)}`;
}

/** A Koi-Koi multiplier as applied: "×2" for a factor, the points it added otherwise. */
export function multiplierLine(multiplier: Multiplier): string {
  return multiplier.factor > 1
    ? t.table.multiplierFactor(multiplierName(multiplier.name), multiplier.factor)
    : t.table.multiplierAdded(multiplierName(multiplier.name), pointsText(multiplier.addedPoints));
}

/** A yaku, teyaku or dekiyaku id in a beginner's words (an id the table does not know: spaced). */
export function yakuName(id: string): string {
  return t.yaku[id as YakuId] ?? id.replace(/-/g, " ");
}

const MOVE_KEYS: Record<number, MoveKey> = {
  [MoveKind.PLAY]: "play",
  [MoveKind.CHOOSE_TARGET]: "take",
  [MoveKind.KOIKOI]: "koikoi",
  [MoveKind.STOP]: "stop",
  [MoveKind.SAGE]: "sage",
  [MoveKind.SHOBU]: "shobu",
  [MoveKind.JOIN]: "join",
  [MoveKind.DROP]: "drop",
  [MoveKind.RESIGN]: "resign",
};

/** The kind of a move as the words name it (`stop`, `shobu`...). */
export function moveKey(move: Move): MoveKey {
  return MOVE_KEYS[move.kind] ?? "other";
}

/** A move as a button says it. */
export function moveLabel(move: Move): string {
  const key = moveKey(move);
  const card = key === "play" ? shortName(move.card) : key === "take" ? shortName(move.target) : "";
  return t.moves.label(key, card);
}

const ROUND_ENDS: Record<number, RoundEndKey> = {
  [RoundEnd.DEAL_CHECK]: "dealCheck",
  [RoundEnd.STOP]: "stop",
  [RoundEnd.EXHAUSTION]: "exhaustion",
  [RoundEnd.DEALER_EMPTY]: "dealerEmpty",
  [RoundEnd.SHOBU]: "shobu",
  [RoundEnd.SAGE_OVERTAKEN]: "sageOvertaken",
  [RoundEnd.CARD_COUNT]: "cardCount",
};

const GAME_ENDS: Record<number, GameEndKey> = {
  [GameEnd.ROUNDS_PLAYED]: "roundsPlayed",
  [GameEnd.OUT_OF_POINTS]: "outOfPoints",
  [GameEnd.TARGET_REACHED]: "targetReached",
  [GameEnd.RESIGNED]: "resigned",
};

export function roundSummary(seats: Seats, result: RoundResult): string {
  const key = ROUND_ENDS[result.end];
  const end = key ? t.roundEnds[key] : "";
  const points = result.score && result.score.points > 0 ? pointsText(result.score.points) : undefined;
  // The deal check is named by the end itself; saying it twice reads as a bug.
  const check = result.dealCheck !== DealCheck.UNSPECIFIED && key !== "dealCheck";
  const winner = result.winner === undefined ? undefined : person(seats, result.winner);
  return t.story.roundSummary(result.round, end, check, winner, points);
}

export function gameSummary(seats: Seats, result: GameResult): string {
  const key = GAME_ENDS[result.end];
  const end = key ? t.gameEnds[key] : "";
  const winner = result.winner === undefined ? undefined : person(seats, result.winner);
  const resigned = result.resigned === undefined ? undefined : person(seats, result.resigned);
  return t.story.gameSummary(end, result.draw, winner, resigned);
}

/**
 * The event in a sentence, or `undefined` for events not worth telling. `lastActor`: the seat
 * that acted last in this version, told as the actor of an event without one (a card drawn from
 * the stock after a play is that player's draw).
 */
export function describe(seats: Seats, event: Event, lastActor?: number): string | undefined {
  const actor = person(seats, event.actor ?? lastActor);
  const at = (seat: number | undefined): Who => person(seats, seat);
  const story = t.story;
  const kind = event.kind;
  switch (kind.case) {
    case "gameCreated":
      return story.gameCreated(kind.value.players.length);
    case "roundDealt":
      return story.roundDealt(kind.value.round, kind.value.month, at(kind.value.dealer));
    case "cardPlayed":
      return story.played(actor, shortName(kind.value.card), cards(kind.value.captured));
    case "cardDrawn":
      return story.drew(actor, shortName(kind.value.card), cards(kind.value.captured));
    case "targetRequired":
      return story.targetRequired(at(kind.value.seat), shortName(kind.value.card));
    case "targetChosen":
      return story.targetChosen(actor, cards(kind.value.captured), shortName(kind.value.card));
    case "yakuFormed":
      return story.yakuFormed(
        at(kind.value.seat),
        kind.value.yaku.map((y) => yakuName(y.id)),
        pointsText(kind.value.points),
      );
    case "koikoiCalled":
      return story.koikoiCalled(at(kind.value.seat), kind.value.calls);
    case "stopped":
      return story.stopped(at(kind.value.seat), kind.value.automatic);
    case "roundEnded":
      return kind.value.result ? roundSummary(seats, kind.value.result) : story.roundEnded;
    case "gameEnded":
      return kind.value.result ? gameSummary(seats, kind.value.result) : story.gameOver;
    case "participationDecided":
      return story.participation(at(kind.value.seat), kind.value.joined, kind.value.forced);
    case "teyakuDeclared":
      return story.teyakuDeclared(
        at(kind.value.seat),
        kind.value.teyaku?.id ? yakuName(kind.value.teyaku.id) : story.aHand,
      );
    case "dekiyakuFormed":
      return story.dekiyakuFormed(at(kind.value.seat), kind.value.dekiyaku.map((d) => yakuName(d.id)));
    case "sageCalled":
      return story.sageCalled(at(kind.value.seat));
    case "shobuCalled":
      return story.shobuCalled(at(kind.value.seat));
    case "sageOvertaken":
      return story.sageOvertaken(at(kind.value.overtaker), at(kind.value.sageCaller));
    case "paymentMade": {
      const payment = kind.value.payment;
      if (!payment) return undefined;
      return story.paid(
        party(seats, payment.fromSeat),
        halves(payment.amountHalves),
        party(seats, payment.toSeat),
      );
    }
    case "lightningCollected":
      return story.lightning(at(kind.value.seat), kind.value.month);
    case "resigned":
      return story.resigned(at(kind.value.seat), kind.value.timedOut);
    case "decisionTimedOut":
      return story.timedOut(at(kind.value.seat), kind.value.move ? moveLabel(kind.value.move) : undefined);
    case "dealCheckFired":
      return story.dealCheck;
    case "redealt":
      return story.redealt;
    case "firstDealerDrawn":
      return story.firstDealer(
        kind.value.cards.map((card, seat) => ({ seat: at(seat), card: shortName(card) })),
        kind.value.dealer === undefined ? undefined : at(kind.value.dealer),
      );
    case "fieldRefilled":
      return story.fieldRefilled(shortName(kind.value.card));
    case "cardsCounted":
      return story.cardsCounted(
        kind.value.counts.map((count) => ({
          seat: at(count.seat),
          count: count.count,
          difference: signedNumber(count.difference),
        })),
      );
    case undefined:
      // An event of a newer referee than this table: not told.
      return undefined;
    default: {
      // Every kind this table knows is told: a kind added to events.proto fails here until it is.
      const untold: never = kind;
      return untold;
    }
  }
}
