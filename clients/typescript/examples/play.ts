/**
 * Creates a Koi-Koi game, follows it live as a spectator and plays it to its end over HTTP/JSON,
 * each seat taking its first legal move (the README's TypeScript example).
 *
 *   npm run build && node dist/examples/play.js http://localhost:8080
 *
 * In a project of your own, import from "@hanafuda-referee/client" instead.
 */

import { GameKind, GameStatus, RefereeClient } from "../src/index.js";

const referee = new RefereeClient({ baseUrl: process.argv[2] ?? "http://localhost:8080" });
const { game, playerTokens } = await referee.createGame({
  kind: GameKind.KOI_KOI,
  players: ["ann", "bob"],
  overrides: { case: "koiKoi", value: { rounds: 1 } },
});

// A spectator's live view: every version's events, until the game ends.
const watching = (async () => {
  let events = 0;
  for await (const item of referee.watchGame({ game, fromVersion: 0n })) {
    events += item.events.length;
  }
  return events;
})();

let view = (await referee.getGame({ game })).view;
while (view?.status === GameStatus.IN_PROGRESS && view.turn !== undefined) {
  const token = playerTokens[view.turn] ?? "";
  const own = (await referee.getGame({ game }, { token })).view;
  const move = own?.legalMoves[0];
  if (own === undefined || move === undefined) {
    throw new Error("the seat on turn has no legal move");
  }
  ({ view } = await referee.submitMove({ game, move, expectedVersion: own.version }, { token }));
}
console.log(`game over at version ${view?.version}: scores ${view?.gameResult?.scores.join(" - ")}`);
console.log(`the spectator saw ${await watching} events`);
