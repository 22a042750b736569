/**
 * `watchGame` resumes by itself: through a proxy that cuts its connections (and refuses new ones
 * for a while, as moves go on), a watcher still receives every version of a whole game once, in
 * order, with exactly the events of the game's log. Over HTTP (Server-Sent Events) and gRPC.
 */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { RefereeGrpcClient } from "../src/grpc.js";
import { GameKind, GameStatus, RefereeClient } from "../src/index.js";
import type { RefereeMethods, WatchGameResponse } from "../src/index.js";
import { playToEnd, seeded } from "./play.js";
import { Proxy } from "./proxy.js";
import { Referee } from "./referee.js";

let referee: Referee;

before(async () => {
  // Seeded games (testing features on): the same moves, so the same cuts, at every run.
  referee = await Referee.start({ HANAFUDA_ALLOW_TESTING: "true" });
});

after(async () => {
  await referee.stop();
});

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Plays a whole game with `player` while `watcher` (behind `proxy`) follows it from its start,
 * cutting the watcher's connection every few moves: sometimes keeping it out while moves are made
 * (it must replay them), sometimes once it has caught up. Returns what the watcher received.
 */
async function watchThroughCuts(
  player: RefereeMethods,
  watcher: RefereeMethods,
  proxy: Proxy,
  seed: number,
): Promise<{ items: WatchGameResponse[]; game: string; tokens: string[] }> {
  // A seeded deal and seeded choices: the same game at every run.
  const { game, playerTokens } = await player.createGame({
    kind: GameKind.KOI_KOI,
    players: ["ann", "bob"],
    overrides: { case: "koiKoi", value: { rounds: 2 } },
    seed: BigInt(seed),
  });
  const items: WatchGameResponse[] = [];
  const connected = () => proxy.open > 0;
  // From version 0: every event of the game, creation included. A watch that hangs fails the test.
  const signal = AbortSignal.timeout(60_000);
  const watching = (async () => {
    for await (const item of watcher.watchGame({ game, fromVersion: 0n }, { token: playerTokens[0] ?? "", signal })) {
      items.push(item);
    }
  })();
  await until(() => items.length > 0, "the first item");
  let cuts = 0;
  await playToEnd(player, game, playerTokens, seeded(seed), async (moves, version) => {
    if (moves % 5 === 1) {
      await until(connected, "the watcher to connect");
      cuts += proxy.block();
    } else if (moves % 5 === 3) {
      proxy.unblock();
    } else if (moves % 5 === 4) {
      await until(() => connected() && (items.at(-1)?.version ?? 0n) >= version, `the watcher to reach ${version}`);
      cuts += proxy.drop();
    }
  });
  proxy.unblock();
  await watching;
  assert.ok(cuts >= 4, `the watch was cut a few times (${cuts})`);
  assert.ok(proxy.accepted > cuts, "the watcher came back after each cut");
  return { items, game, tokens: playerTokens };
}

/** Every version once and in order, and the events exactly those of the log. */
async function assertComplete(
  player: RefereeMethods,
  result: { items: WatchGameResponse[]; game: string; tokens: string[] },
): Promise<void> {
  const { items, game, tokens } = result;
  const versions = items.map((item) => item.version);
  for (let index = 1; index < versions.length; index++) {
    assert.equal(versions[index], (versions[index - 1] ?? 0n) + 1n, `versions ${versions.join(",")}`);
  }
  const last = items.at(-1);
  assert.equal(last?.view?.status, GameStatus.OVER, "the watch follows the game to its end");
  const log = await player.getGameLog({ game }, { token: tokens[0] ?? "" });
  const watched = items.flatMap((item) => item.events);
  assert.deepEqual(
    watched.map((event) => [event.sequence, event.version]),
    log.events.map((event) => [event.sequence, event.version]),
    "every event of the log, once",
  );
  assert.deepEqual(watched, log.events);
}

test("an HTTP watch resumes after its connection is cut, missing and repeating nothing", async () => {
  const proxy = await Proxy.start(referee.httpPort);
  try {
    const player = new RefereeClient({ baseUrl: referee.httpUrl });
    const watcher = new RefereeClient({ baseUrl: proxy.url, watch: { retries: 200, retryDelayMs: () => 10 } });
    await assertComplete(player, await watchThroughCuts(player, watcher, proxy, 7));
  } finally {
    await proxy.stop();
  }
});

test("a gRPC watch resumes after its connection is cut, missing and repeating nothing", async () => {
  const proxy = await Proxy.start(referee.grpcPort);
  try {
    const player = new RefereeGrpcClient({ baseUrl: referee.grpcUrl });
    const watcher = new RefereeGrpcClient({ baseUrl: proxy.url, watch: { retries: 200, retryDelayMs: () => 10 } });
    await assertComplete(player, await watchThroughCuts(player, watcher, proxy, 8));
  } finally {
    await proxy.stop();
  }
});

test("a watch without a resume point starts with the current view, and a break ends it", async () => {
  const client = new RefereeClient({ baseUrl: referee.httpUrl });
  const { game } = await client.createGame({ kind: GameKind.HACHI_HACHI, players: ["a", "b", "c"] });
  for await (const item of client.watchGame({ game })) {
    assert.deepEqual(item.events, []);
    assert.equal(item.view?.game, game);
    break;
  }
});
