/**
 * Plays a hosted game to its end through either client, the way a player's program would: read
 * the view of the seat on turn, choose one of its legal moves, submit it with the version it was
 * chosen at. Checks along the way what each seat may and may not see.
 */

import assert from "node:assert/strict";
import type { RefereeMethods } from "../src/index.js";
import { GameStatus } from "../src/index.js";
import type { GameView } from "../src/index.js";

/** A small seeded generator (mulberry32): the same seed plays the same choices. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Played {
  /** The game as a spectator sees it at the end. */
  readonly final: GameView;
  /** The moves submitted. */
  readonly moves: number;
}

/** Plays `game` to its end, each seat (`tokens[seat]`) taking a random one of its legal moves. */
export async function playToEnd(
  referee: RefereeMethods,
  game: string,
  tokens: readonly string[],
  random: () => number,
  afterMove: (moves: number, version: bigint) => Promise<void> | void = () => {},
): Promise<Played> {
  let view: GameView | undefined = (await referee.getGame({ game }, { token: "" })).view;
  assert.ok(view);
  let moves = 0;
  while (view.status === GameStatus.IN_PROGRESS) {
    assert.ok(moves < 5000, "the game does not end");
    const seat: number | undefined = view.turn;
    assert.ok(seat !== undefined, "a game in progress waits for a seat");
    const token: string | undefined = tokens[seat];
    assert.ok(token !== undefined);
    const own: GameView | undefined = (await referee.getGame({ game }, { token })).view;
    assert.ok(own);
    assert.equal(own.viewerSeat, seat);
    assert.equal(own.hand.length, own.seats[seat]?.handSize, "a seat sees its own hand");
    assert.ok(own.legalMoves.length > 0, "the seat on turn has legal moves");
    const move = own.legalMoves[Math.floor(random() * own.legalMoves.length)];
    assert.ok(move);
    const answer = await referee.submitMove({ game, move, expectedVersion: own.version }, { token });
    assert.ok(answer.version > own.version);
    assert.equal(answer.view?.version, answer.version);
    moves++;
    await afterMove(moves, answer.version);
    view = answer.view;
    assert.ok(view);
  }
  const final = (await referee.getGame({ game }, { token: "" })).view;
  assert.ok(final);
  assert.equal(final.status, GameStatus.OVER);
  assert.deepEqual(final.hand, [], "a spectator sees no hand");
  assert.ok(final.gameResult, "a finished game has its result");
  return { final, moves };
}
