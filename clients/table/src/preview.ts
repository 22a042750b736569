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
import { t } from "./i18n/language.js";

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
      words: t.preview.choose(name, targets.map(shortName)),
    };
  }
  if (targets.length === 1 && targets[0]) {
    return { takes: targets, choice: false, words: t.preview.takes(name, [shortName(targets[0])]) };
  }
  const month = cardInfo(card).month;
  const same = field.filter((each) => cardInfo(each).month === month);
  if (!same.length) {
    return { takes: [], choice: false, words: t.preview.toField(name) };
  }
  return { takes: same, choice: false, words: t.preview.takes(name, same.map(shortName)) };
}

/** Why a click on a hand card plays nothing, in words. */
export function whyNotPlayable(view: GameView, mine: boolean): string {
  if (view.viewerSeat === undefined) return t.preview.watching;
  if (!mine) return t.preview.notYourTurn;
  if (view.legalMoves.some((move) => move.kind === MoveKind.PLAY)) return t.preview.notNow;
  return t.preview.decisionFirst;
}
