/** The HTTP/JSON client against a real referee: whole games of both kinds, rules methods, refusals. */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AdviceStatus, BotLevel, Card, Code, GameKind, GameStatus, MoveKind, Reason, RefereeClient, RefereeError } from "../src/index.js";
import { playToEnd, seeded } from "./play.js";
import { Referee } from "./referee.js";

let referee: Referee;

before(async () => {
  referee = await Referee.start();
});

after(async () => {
  await referee.stop();
});

test("plays a whole Koi-Koi game over HTTP", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const created = await client.createGame({
    kind: GameKind.KOI_KOI,
    preset: "nintendo",
    players: ["ann", "bob"],
    overrides: { case: "koiKoi", value: { rounds: 2 } },
  });
  assert.equal(created.playerTokens.length, 2);
  assert.equal(created.view?.kind, GameKind.KOI_KOI);
  assert.deepEqual(created.view?.hand, [], "creation answers with a spectator's view");
  const { final, moves } = await playToEnd(client, created.game, created.playerTokens, seeded(1));
  assert.ok(moves > 10);
  assert.equal(final.gameResult?.scores.length, 2);
  assert.equal(final.roundsFinished >= 1, true);
  assert.ok(final.lastResult, "the last round's result");
  const log = await client.getGameLog({ game: created.game });
  assert.ok(log.seed !== undefined, "a finished game's log shows its seed");
  assert.ok(log.deals.length >= 1);
});

test("plays a whole Hachi-Hachi game over HTTP", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const created = await client.createGame({
    kind: GameKind.HACHI_HACHI,
    players: ["ann", "bob", "cy"],
    overrides: { case: "hachiHachi", value: { rounds: 3 } },
  });
  assert.equal(created.playerTokens.length, 3);
  const { final, moves } = await playToEnd(client, created.game, created.playerTokens, seeded(2));
  assert.equal(final.roundsFinished, 3, "three rounds played");
  assert.ok(moves > 3 * 3);
  const balances = final.gameResult?.balancesHalves ?? [];
  assert.equal(balances.length, 3);
  assert.equal(
    balances.reduce((sum, each) => sum + each, 0n),
    0n,
    "Hachi-Hachi balances sum to zero",
  );
});

test("a seat's token set on the client acts as that seat", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const { game, playerTokens } = await client.createGame({ kind: GameKind.KOI_KOI, players: ["a", "b"] });
  const seat1 = client.withToken(playerTokens[1] ?? "");
  assert.equal((await seat1.getGame({ game })).view?.viewerSeat, 1);
  assert.equal((await seat1.getGame({ game }, { token: "" })).view?.viewerSeat, undefined);
});

test("stateless rules methods: GET with a query parameter, POST with a body", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const koikoi = await client.listPresets({ kind: GameKind.KOI_KOI });
  assert.ok(koikoi.presets.length > 1);
  assert.ok(koikoi.presets.every((preset) => preset.kind === GameKind.KOI_KOI));
  const all = await client.listPresets({});
  assert.ok(all.presets.length > koikoi.presets.length);
  const score = await client.scoreKoiKoi({
    captured: [Card.PINE_CRANE, Card.CHERRY_CURTAIN, Card.SUSUKI_MOON],
    roundMonth: 1,
  });
  assert.ok((score.score?.points ?? 0) > 0, "sanko scores");
  const captures = await client.listCaptures({ card: Card.PINE_PLAIN_1, field: [Card.PINE_CRANE, Card.PINE_PLAIN_2] });
  assert.equal(captures.options.length, 2, "two matches: one option per target");
});

test("a refusal is a RefereeError with its reason, status and request id", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const { game, playerTokens, view } = await client.createGame({ kind: GameKind.KOI_KOI, players: ["a", "b"] });
  const turn = view?.turn ?? 0;
  const token = playerTokens[turn] ?? "";
  const own = (await client.getGame({ game }, { token })).view;
  const notInHand = Object.values(Card).find(
    (card): card is Card => typeof card === "number" && card !== Card.UNSPECIFIED && !own?.hand.includes(card),
  );
  const refused = await client
    .submitMove({ game, move: { kind: MoveKind.PLAY, card: notInHand } }, { token, requestId: "ts-sdk-test-1" })
    .then(
      () => assert.fail("the move was accepted"),
      (error: unknown) => error,
    );
  assert.ok(refused instanceof RefereeError);
  assert.equal(refused.reason, Reason.CARD_NOT_IN_HAND);
  assert.equal(refused.reasonName, "CARD_NOT_IN_HAND");
  assert.equal(refused.code, Code.FailedPrecondition);
  assert.equal(refused.httpStatus, 409);
  assert.equal(refused.requestId, "ts-sdk-test-1");
  assert.equal(refused.transport, "http");
  assert.equal(refused.temporary, false);

  const stale = await client
    .submitMove({ game, move: own?.legalMoves[0] ?? {}, expectedVersion: 999n }, { token })
    .catch((error: unknown) => error);
  assert.ok(stale instanceof RefereeError);
  assert.equal(stale.reason, Reason.STALE_VERSION);
  assert.equal(stale.code, Code.Aborted);
  assert.equal(stale.metadata["current_version"], String(own?.version));
  assert.match(stale.requestId ?? "", /\S/, "the referee's own request id comes back");

  const missing = await client.getGame({ game: "no-such-game" }).catch((error: unknown) => error);
  assert.ok(missing instanceof RefereeError);
  assert.equal(missing.reason, Reason.UNKNOWN_GAME);
  assert.equal(missing.httpStatus, 404);

  const stranger = await client.getGame({ game }, { token: "not-a-token" }).catch((error: unknown) => error);
  assert.ok(stranger instanceof RefereeError);
  assert.equal(stranger.reason, Reason.BAD_TOKEN);
  assert.equal(stranger.code, Code.Unauthenticated);
});

test("an unreachable referee is a temporary RefereeError", async () => {
  const client = new RefereeClient({ baseUrl: "http://127.0.0.1:9" });
  const error = await client.listPresets({}).catch((caught: unknown) => caught);
  assert.ok(error instanceof RefereeError);
  assert.equal(error.code, Code.Unavailable);
  assert.equal(error.reasonName, "");
  assert.equal(error.temporary, true);
});

test("a cancelled call rejects with the signal's reason", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const controller = new AbortController();
  controller.abort(new Error("changed my mind"));
  await assert.rejects(client.listPresets({}, { signal: controller.signal }), /changed my mind/);
});

test("waitSeconds: a read and a move answer once the bot has replied and the seat is to act", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const created = await client.createGame({
    kind: GameKind.KOI_KOI,
    players: ["ann", "bot"],
    bots: [BotLevel.UNSPECIFIED, BotLevel.GREEDY],
    overrides: { case: "koiKoi", value: { rounds: 1 } },
  });
  const ann = client.withToken(created.playerTokens[0]!);
  let view = (await ann.getGame({ game: created.game, waitSeconds: 30 })).view!;
  assert.equal(view.turn, 0, "whoever led, the wait ends at ann's turn");
  assert.equal(view.botThinkingSeat, undefined);
  let replies = 0;
  for (let i = 0; i < 12 && view.status === GameStatus.IN_PROGRESS; i++) {
    const answer = await ann.submitMove({
      game: created.game,
      move: view.legalMoves[0]!,
      expectedVersion: view.version,
      waitSeconds: 30,
    });
    view = answer.view!;
    assert.equal(answer.version, view.version);
    if (new Set(answer.events.map((e) => e.version)).size > 1) {
      assert.ok(answer.events.some((e) => e.actor === 1), "the bot's reply is in the answer");
      replies++;
    }
  }
  assert.ok(replies > 0, "some move handed the turn to the bot");
});

test("a hint over HTTP: the expert's move for the seat, then a review once the game is over", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const { game, playerTokens, view } = await client.createGame({
    kind: GameKind.KOI_KOI,
    players: ["ann", "bob"],
    overrides: { case: "koiKoi", value: { rounds: 1 } },
  });
  const actor = view?.turn ?? 0;
  const token = playerTokens[actor] ?? "";
  const own = (await client.getGame({ game }, { token })).view;
  const hint = await client.getHint({ game, waitSeconds: 20 }, { token });
  assert.equal(hint.status, AdviceStatus.READY);
  assert.equal(hint.version, own?.version);
  assert.ok(
    own?.legalMoves.some((m) => m.kind === hint.move?.kind && m.card === hint.move?.card && m.target === hint.move?.target),
    "the hint is one of the seat's legal moves",
  );
  assert.deepEqual(hint.candidates[0]?.move, hint.move);
  const early = await client.reviewGame({ game }, { token }).catch((error: unknown) => error);
  assert.ok(early instanceof RefereeError);
  assert.equal(early.reason, Reason.GAME_NOT_OVER);
  assert.equal(early.httpStatus, 409);
  await client.submitMove({ game, move: { kind: MoveKind.RESIGN } }, { token });
  const review = await client.reviewGame({ game, waitSeconds: 20 }, { token });
  assert.equal(review.status, AdviceStatus.READY);
  assert.equal(review.decisions, 0, "a resignation at once leaves nothing to review");
});
