/** The gRPC client (Node) against a real referee: whole games of both kinds, refusals. */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { RefereeGrpcClient } from "../src/grpc.js";
import { AdviceStatus, Card, Code, GameKind, MoveKind, Reason, RefereeError } from "../src/index.js";
import { playToEnd, seeded } from "./play.js";
import { Referee } from "./referee.js";

let referee: Referee;

before(async () => {
  referee = await Referee.start();
});

after(async () => {
  await referee.stop();
});

test("plays a whole Koi-Koi game over gRPC", async () => {
  const client = new RefereeGrpcClient({ baseUrl: referee.grpcUrl });
  const created = await client.createGame({
    kind: GameKind.KOI_KOI,
    players: ["ann", "bob"],
    overrides: { case: "koiKoi", value: { rounds: 2 } },
  });
  assert.equal(created.playerTokens.length, 2);
  const { final, moves } = await playToEnd(client, created.game, created.playerTokens, seeded(3));
  assert.ok(moves > 10);
  assert.equal(final.gameResult?.scores.length, 2);
});

test("plays a whole Hachi-Hachi game over gRPC", async () => {
  const client = new RefereeGrpcClient({ baseUrl: referee.grpcUrl });
  const created = await client.createGame({
    kind: GameKind.HACHI_HACHI,
    players: ["ann", "bob", "cy"],
    overrides: { case: "hachiHachi", value: { rounds: 3 } },
  });
  const { final } = await playToEnd(client, created.game, created.playerTokens, seeded(4));
  assert.equal(final.roundsFinished, 3, "three rounds played");
  const balances = final.gameResult?.balancesHalves ?? [];
  assert.equal(balances.reduce((sum, each) => sum + each, 0n), 0n);
});

test("the same answers as over HTTP: a stateless rules method", async () => {
  const client = new RefereeGrpcClient({ baseUrl: referee.grpcUrl });
  const captures = await client.listCaptures({ card: Card.PINE_PLAIN_1, field: [Card.PINE_CRANE, Card.PINE_PLAIN_2] });
  assert.deepEqual(
    captures.options.map((option) => option.target),
    [Card.PINE_CRANE, Card.PINE_PLAIN_2],
  );
});

test("a refusal over gRPC is the same RefereeError, with the request id sent", async () => {
  const client = new RefereeGrpcClient({ baseUrl: referee.grpcUrl });
  const { game, playerTokens, view } = await client.createGame({ kind: GameKind.KOI_KOI, players: ["a", "b"] });
  const waiting = view?.turn ?? 0;
  const other = playerTokens[1 - waiting] ?? "";
  const refused = await client
    .submitMove({ game, move: { kind: MoveKind.STOP } }, { token: other, requestId: "ts-grpc-1" })
    .catch((error: unknown) => error);
  assert.ok(refused instanceof RefereeError);
  assert.equal(refused.reason, Reason.NOT_YOUR_TURN);
  assert.equal(refused.code, Code.FailedPrecondition);
  assert.equal(refused.httpStatus, undefined);
  assert.equal(refused.requestId, "ts-grpc-1");
  assert.equal(refused.transport, "grpc");

  const anonymous = await client.submitMove({ game, move: { kind: MoveKind.STOP } }).catch((error: unknown) => error);
  assert.ok(anonymous instanceof RefereeError);
  assert.equal(anonymous.reason, Reason.MISSING_TOKEN);
  assert.equal(anonymous.code, Code.Unauthenticated);
  assert.match(anonymous.requestId ?? "", /^[0-9a-f]{32}$/, "a request id is made up");

  const missing = await client.getGameLog({ game: "no-such-game" }).catch((error: unknown) => error);
  assert.ok(missing instanceof RefereeError);
  assert.equal(missing.reason, Reason.UNKNOWN_GAME);
  assert.equal(missing.code, Code.NotFound);
});

test("an unreachable gRPC port is a temporary RefereeError", async () => {
  const client = new RefereeGrpcClient({ baseUrl: "http://127.0.0.1:9" });
  const error = await client.listPresets({}).catch((caught: unknown) => caught);
  assert.ok(error instanceof RefereeError);
  assert.equal(error.code, Code.Unavailable);
  assert.equal(error.temporary, true);
});

test("a hint over gRPC, and its refusal for the seat not to act", async () => {
  const client = new RefereeGrpcClient({ baseUrl: referee.grpcUrl });
  const { game, playerTokens, view } = await client.createGame({ kind: GameKind.KOI_KOI, players: ["a", "b"] });
  const actor = view?.turn ?? 0;
  const hint = await client.getHint({ game, waitSeconds: 20 }, { token: playerTokens[actor] ?? "" });
  assert.equal(hint.status, AdviceStatus.READY);
  assert.ok(hint.candidates.length >= 1);
  const refused = await client
    .getHint({ game }, { token: playerTokens[1 - actor] ?? "" })
    .catch((error: unknown) => error);
  assert.ok(refused instanceof RefereeError);
  assert.equal(refused.reason, Reason.NOT_YOUR_TURN);
  assert.equal(refused.code, Code.FailedPrecondition);
});
