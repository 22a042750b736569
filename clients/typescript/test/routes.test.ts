/** Routes from the descriptors, requests along them, the SSE parser, and what the package exports. */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { SseParser } from "../src/sse.js";
import { GameKind, RefereeService, requestParts, routeOf } from "../src/index.js";
import { Card, MoveKind } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = resolve(here, "../..");

test("every RPC has its route, read from its google.api.http option", () => {
  const routes = RefereeService.methods.map((method) => {
    const route = routeOf(method);
    return `${method.name} ${route.verb} ${route.template} ${route.body || "-"}`;
  });
  // The table of docs/api.md ("Methods and routes").
  assert.deepEqual(routes, [
    "ListPresets GET /v1/rules/presets -",
    "ScoreKoiKoi POST /v1/rules/koikoi:score *",
    "ClassifyKoiKoiHand POST /v1/rules/koikoi:classifyHand *",
    "ClassifyHachiHachiHand POST /v1/rules/hachihachi:classifyHand *",
    "ScoreHachiHachiCaptures POST /v1/rules/hachihachi:scoreCaptures *",
    "SettleHachiHachiRound POST /v1/rules/hachihachi:settle *",
    "ListCaptures POST /v1/rules:listCaptures *",
    "CreateGame POST /v1/games *",
    "GetGame GET /v1/games/{game} -",
    "SubmitMove POST /v1/games/{game}/moves *",
    "WatchGame GET /v1/games/{game}/events -",
    "GetGameLog GET /v1/games/{game}/log -",
    "GetHint GET /v1/games/{game}/hint -",
    "ReviewGame GET /v1/games/{game}/review -",
  ]);
});

test("a request along its route: escaped path variables, query parameters, a body without them", () => {
  const method = RefereeService.method;
  assert.deepEqual(requestParts(routeOf(method.getGame), { game: "a/b c" }), {
    path: "/v1/games/a%2Fb%20c",
    body: undefined,
  });
  assert.deepEqual(requestParts(routeOf(method.watchGame), { game: "g", fromVersion: 5n }), {
    path: "/v1/games/g/events?fromVersion=5",
    body: undefined,
  });
  // An unset `optional` field is no parameter; one set to its zero value is.
  assert.equal(requestParts(routeOf(method.watchGame), { game: "g" }).path, "/v1/games/g/events");
  assert.equal(
    requestParts(routeOf(method.watchGame), { game: "g", fromVersion: 0n }).path,
    "/v1/games/g/events?fromVersion=0",
  );
  assert.equal(
    requestParts(routeOf(method.listPresets), { kind: GameKind.HACHI_HACHI }).path,
    "/v1/rules/presets?kind=GAME_KIND_HACHI_HACHI",
  );
  const move = requestParts(routeOf(method.submitMove), {
    game: "g",
    move: { kind: MoveKind.PLAY, card: Card.PINE_CRANE },
    expectedVersion: 3n,
  });
  assert.equal(move.path, "/v1/games/g/moves");
  assert.deepEqual(JSON.parse(move.body ?? ""), {
    move: { kind: "MOVE_KIND_PLAY", card: "CARD_PINE_CRANE" },
    expectedVersion: "3",
  });
  assert.throws(() => requestParts(routeOf(method.getGame), {}), /game is needed for its path/);
});

test("the SSE parser gives the same events however the text is cut", () => {
  const text =
    ": keep-alive\n\nid: 1\ndata: {\"a\":1}\n\r\nevent: error\r\ndata: x\r\ndata:y\r\r" +
    "data: no id line\n\nid\ndata: reset id\n\nevent: end\ndata: {}\n\n";
  const expected = [
    { event: "message", data: '{"a":1}', id: "1" },
    { event: "error", data: "x\ny", id: "1" },
    { event: "message", data: "no id line", id: "1" },
    { event: "message", data: "reset id", id: "" },
    { event: "end", data: "{}", id: "" },
  ];
  assert.deepEqual(new SseParser().push(text), expected);
  for (let cut = 0; cut <= text.length; cut++) {
    const parser = new SseParser();
    const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
    assert.deepEqual(events, expected, `cut at ${cut}`);
  }
  const bytewise = new SseParser();
  assert.deepEqual(
    [...text].flatMap((char) => bytewise.push(char)),
    expected,
  );
});

test("the package re-exports every generated file of hanafuda.v1", () => {
  const generated = readdirSync(join(packageRoot, "src/gen/hanafuda/v1")).filter((name) => name.endsWith(".ts"));
  const messages = readFileSync(join(packageRoot, "src/messages.ts"), "utf8");
  for (const file of generated) {
    assert.ok(
      messages.includes(`export * from "./gen/hanafuda/v1/${file.replace(/\.ts$/, ".js")}";`),
      `src/messages.ts re-exports ${file}`,
    );
  }
});

test("the browser entry point imports nothing of Node's", () => {
  // Every module src/index.ts reaches, compiled; their bare imports must not be Node's.
  const seen = new Set<string>();
  const bare = new Set<string>();
  const pending = [join(packageRoot, "dist/src/index.js")];
  while (pending.length > 0) {
    const file = pending.pop() ?? "";
    if (seen.has(file)) {
      continue;
    }
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/(?:^|\n)\s*(?:import|export)[^"']*?from\s*["']([^"']+)["']/g)) {
      const target = match[1] ?? "";
      if (target.startsWith(".")) {
        pending.push(resolve(dirname(file), target));
      } else {
        bare.add(target);
      }
    }
  }
  assert.ok(seen.size > 10, "the walk found the modules");
  assert.ok(!seen.has(join(packageRoot, "dist/src/grpc.js")));
  for (const name of bare) {
    assert.ok(
      name === "@bufbuild/protobuf" || name.startsWith("@bufbuild/protobuf/") || name === "@connectrpc/connect",
      `the browser entry imports ${name}`,
    );
  }
});
