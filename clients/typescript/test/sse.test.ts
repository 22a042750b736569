/**
 * The HTTP watch's resumption in the cases a real referee does not make on demand, against a
 * small fake event stream: a connection gone quiet, an `error` event (temporary or not), a repeated
 * item, a referee that stays unavailable, and a consumer that stops early.
 */

import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import { test } from "node:test";
import { Code, Reason, RefereeClient, RefereeError } from "../src/index.js";

type Handler = (request: IncomingMessage, response: ServerResponse, attempt: number) => void;

/** A server answering each request with `handler`; the `Last-Event-ID` of each request. */
async function fakeReferee(handler: Handler) {
  const lastEventIds: (string | undefined)[] = [];
  const closed: number[] = [];
  const server = createServer((request, response) => {
    const attempt = lastEventIds.push(request.headers["last-event-id"] as string | undefined);
    request.on("close", () => closed.push(attempt));
    handler(request, response, attempt);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  assert.ok(address !== null && typeof address === "object");
  return {
    url: `http://127.0.0.1:${address.port}`,
    lastEventIds,
    closed,
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function errorBody(status: number, code: string, reason: string): string {
  return JSON.stringify({
    error: {
      code: status,
      message: `refused: ${reason}`,
      status: code,
      details: [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "hanafuda-referee", metadata: {} },
      ],
    },
  });
}

const SSE = { "content-type": "text/event-stream" };

test("a quiet connection, a temporary error event and a repeated item: every version once", async () => {
  const fake = await fakeReferee((request, response, attempt) => {
    assert.equal(request.url, "/v1/games/g1/events");
    response.writeHead(200, SSE);
    if (attempt === 1) {
      response.write(': keep-alive\n\nid: 1\ndata: {"version":"1"}\n\n');
      // ...then nothing at all: the client must give up on this connection by itself.
    } else if (attempt === 2) {
      response.write('id: 2\ndata: {"version":"2"}\n\n');
      response.end(`event: error\ndata: ${errorBody(503, "UNAVAILABLE", "UNAVAILABLE")}\n\n`);
    } else {
      // CRLF line ends; version 2 again (already delivered), then 3 and the end.
      response.write('id: 2\r\ndata: {"version":"2"}\r\n\r\nid: 3\r\ndata: {"version":"3",');
      response.end('"events":[]}\r\n\r\nevent: end\r\ndata: {}\r\n\r\n');
    }
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url, watch: { idleTimeoutMs: 300, retryDelayMs: () => 1 } });
    const versions: bigint[] = [];
    for await (const item of client.watchGame({ game: "g1" })) {
      versions.push(item.version);
    }
    assert.deepEqual(versions, [1n, 2n, 3n]);
    assert.deepEqual(fake.lastEventIds, [undefined, "1", "2"]);
  } finally {
    await fake.stop();
  }
});

test("an error event that retrying cannot cure ends the watch with its RefereeError", async () => {
  const fake = await fakeReferee((_request, response) => {
    response.writeHead(200, SSE);
    response.write('id: 4\ndata: {"version":"4"}\n\n');
    response.end(`event: error\ndata: ${errorBody(404, "NOT_FOUND", "UNKNOWN_GAME")}\n\n`);
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url });
    const versions: bigint[] = [];
    const error = await (async () => {
      for await (const item of client.watchGame({ game: "g2" })) {
        versions.push(item.version);
      }
    })().catch((caught: unknown) => caught);
    assert.deepEqual(versions, [4n]);
    assert.ok(error instanceof RefereeError);
    assert.equal(error.reason, Reason.UNKNOWN_GAME);
    assert.equal(error.code, Code.NotFound);
    assert.equal(fake.lastEventIds.length, 1);
  } finally {
    await fake.stop();
  }
});

test("a referee that stays unavailable: the watch gives up after its retries", async () => {
  const fake = await fakeReferee((_request, response) => {
    response.writeHead(503, { "content-type": "application/json", "retry-after": "0", "x-request-id": "r-1" });
    response.end(errorBody(503, "UNAVAILABLE", "UNAVAILABLE"));
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url, watch: { retries: 2, retryDelayMs: () => 1 } });
    const error = await (async () => {
      for await (const _ of client.watchGame({ game: "g3" })) {
        assert.fail("no item was sent");
      }
    })().catch((caught: unknown) => caught);
    assert.ok(error instanceof RefereeError);
    assert.equal(error.reason, Reason.UNAVAILABLE);
    assert.equal(error.httpStatus, 503);
    assert.equal(error.retryAfterSeconds, 0);
    assert.equal(error.requestId, "r-1");
    assert.equal(fake.lastEventIds.length, 3, "the first attempt and two retries");
  } finally {
    await fake.stop();
  }
});

test("leaving the loop closes the connection", async () => {
  const fake = await fakeReferee((_request, response) => {
    response.writeHead(200, SSE);
    response.write('id: 1\ndata: {"version":"1"}\n\n');
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url });
    for await (const item of client.watchGame({ game: "g4" })) {
      assert.equal(item.version, 1n);
      break;
    }
    const deadline = Date.now() + 5000;
    while (fake.closed.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.deepEqual(fake.closed, [1]);
  } finally {
    await fake.stop();
  }
});

test("an answer that is not the referee's JSON is a RefereeError with the HTTP status", async () => {
  const fake = await fakeReferee((_request, response) => {
    response.writeHead(502, { "content-type": "text/html" });
    response.end("<html>bad gateway</html>");
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url });
    const error = await client.getGame({ game: "g5" }).catch((caught: unknown) => caught);
    assert.ok(error instanceof RefereeError);
    assert.equal(error.httpStatus, 502);
    assert.equal(error.code, Code.Unavailable);
    assert.equal(error.reasonName, "");
    assert.match(error.message, /bad gateway/);
  } finally {
    await fake.stop();
  }
});

test("a consumer slower than the idle timeout does not cost a reconnection", async () => {
  const fake = await fakeReferee((_request, response) => {
    response.writeHead(200, SSE);
    response.write('id: 1\ndata: {"version":"1"}\n\n');
    setTimeout(() => response.end('id: 2\ndata: {"version":"2"}\n\nevent: end\ndata: {}\n\n'), 100);
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url, watch: { idleTimeoutMs: 200 } });
    const versions: bigint[] = [];
    for await (const item of client.watchGame({ game: "g6" })) {
      versions.push(item.version);
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    assert.deepEqual(versions, [1n, 2n]);
    assert.equal(fake.lastEventIds.length, 1, "one connection");
  } finally {
    await fake.stop();
  }
});

test("a watch aborted while its consumer handles an item ends with the signal's reason", async () => {
  const fake = await fakeReferee((_request, response) => {
    response.writeHead(200, SSE);
    // The whole stream arrives at once, and stays unread while the item is handled.
    response.end('id: 1\ndata: {"version":"1"}\n\nid: 2\ndata: {"version":"2"}\n\nevent: end\ndata: {}\n\n');
  });
  try {
    const client = new RefereeClient({ baseUrl: fake.url });
    const controller = new AbortController();
    const versions: bigint[] = [];
    const outcome = await (async () => {
      for await (const item of client.watchGame({ game: "g7" }, { signal: controller.signal })) {
        versions.push(item.version);
        await new Promise((resolve) => setTimeout(resolve, 100));
        controller.abort(new Error("stop watching"));
      }
    })().catch((caught: unknown) => caught);
    assert.deepEqual(versions, [1n]);
    assert.ok(outcome instanceof Error && outcome.message === "stop watching", String(outcome));
  } finally {
    await fake.stop();
  }
});
