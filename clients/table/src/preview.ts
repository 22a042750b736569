/**
 * What a hand card will do before it is played (TABLE.md, "What a card will do"): pointing at a
 * hand card, or moving the keyboard's focus to it, outlines the field cards it would take and
 * says so in words under the hand; a click on a card that cannot be played says why.
 *
 * The preview reads only the view's legal moves and the field: a play that names a target
 * (two cards of the month on the field, or a wild lightning's choice) takes the card chosen; one
 * that names none takes every field card of its month, or joins the field when there is none.
 */

import { MoveKind, type Card, type GameView, type Move } from "@hanafuda-referee/client";
import { cardInfo, shortName } from "./cards.js";

/** What playing `card` does, for the player: the field cards it may take, and in words. */
export interface Preview {
  /** Field cards the play takes (all of them), or may take (one, chosen), or none. */
  readonly takes: readonly Card[];
  /** Whether the player will choose one of `takes`. */
  readonly choice: boolean;
  readonly words: string;
}

/**
 * The preview of playing `card` with `moves` legal on `field`; undefined when no legal move
 * plays it.
 */
export function previewPlay(card: Card, moves: readonly Move[], field: readonly Card[]): Preview | undefined {
  const plays = moves.filter((move) => move.kind === MoveKind.PLAY && move.card === card);
  if (!plays.length) return undefined;
  const name = shortName(card);
  const targets = plays.map((move) => move.target).filter((target) => target) as Card[];
  if (targets.length > 1) {
    return {
      takes: targets,
      choice: true,
      words: `${capital(name)} takes one of ${listOf(targets)}: you choose which.`,
    };
  }
  if (targets.length === 1 && targets[0]) {
    return { takes: targets, choice: false, words: `${capital(name)} takes ${shortName(targets[0])}.` };
  }
  const month = cardInfo(card).month;
  const same = field.filter((each) => cardInfo(each).month === month);
  if (!same.length) {
    return { takes: [], choice: false, words: `${capital(name)} takes nothing: it joins the field.` };
  }
  return { takes: same, choice: false, words: `${capital(name)} takes ${listOf(same)}.` };
}

/** Why a click on a hand card plays nothing, in words. */
export function whyNotPlayable(view: GameView, mine: boolean): string {
  if (view.viewerSeat === undefined) return "You are watching: spectators do not play.";
  if (!mine) return "It is not your turn yet: the table tells whose it is.";
  if (view.legalMoves.some((move) => move.kind === MoveKind.PLAY)) {
    return "This card cannot be played now.";
  }
  return "Your hand waits: answer the decision first.";
}

function listOf(cards: readonly Card[]): string {
  const names = cards.map(shortName);
  return names.length < 2 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
