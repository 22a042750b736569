/**
 * The referee over HTTP/JSON, for browsers and Node 20+ alike: `fetch` and `ReadableStream`
 * only.
 *
 * ```ts
 * const referee = new RefereeClient({ baseUrl: "http://localhost:8080" });
 * const { game, playerTokens } = await referee.createGame({
 *   kind: GameKind.KOI_KOI,
 *   players: ["ann", "bob"],
 * });
 * const ann = referee.withToken(playerTokens[0]);
 * const { view } = await ann.getGame({ game });
 * for await (const item of referee.watchGame({ game })) console.log(item.version, item.events);
 * ```
 */

import { fromJson } from "@bufbuild/protobuf";
import type { DescMessage, DescMethod, JsonValue, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { errorFromEvent, errorFromHttp, RefereeError } from "./errors.js";
import { RefereeService } from "./gen/hanafuda/v1/service_pb.js";
import type { CallOptions, RefereeMethods } from "./methods.js";
import { requestParts, routeOf, type HttpRoute } from "./routes.js";
import { readEvents } from "./sse.js";
import { resolveWatchOptions, resumeFields, sleep, versionOf } from "./watch.js";
import type { ResolvedWatchOptions, WatchOptions } from "./watch.js";

/** Options of a {@link RefereeClient}. */
export interface RefereeClientOptions {
  /** The referee's HTTP address, e.g. `http://localhost:8080` (a path prefix is kept). */
  baseUrl: string;
  /** The seat's player token sent with every call (a call's `token` option overrides it). */
  token?: string;
  /** The API key (`x-api-key`) for `createGame`, when the referee requires one. */
  apiKey?: string;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** How `watchGame` resumes after a failure. */
  watch?: WatchOptions;
}

/** Every RPC of the referee over HTTP/JSON, as typed methods (see {@link RefereeMethods}). */
export interface RefereeClient extends RefereeMethods {}

/**
 * The HTTP/JSON client: one method per RPC of `hanafuda.v1.RefereeService`, each sent along the
 * route of its `google.api.http` option, in proto3 canonical JSON. Refusals throw
 * {@link RefereeError}. Server-streaming methods (`watchGame`) are async iterables over the
 * Server-Sent Events of their route that resume by themselves after a failure (with
 * `Last-Event-ID`, the last version delivered), so that no version is missed or repeated.
 */
export class RefereeClient {
  readonly options: Readonly<RefereeClientOptions>;
  private readonly baseUrl: string;
  private readonly fetcher: typeof globalThis.fetch;
  private readonly watchOptions: ResolvedWatchOptions;

  constructor(options: RefereeClientOptions) {
    this.options = { ...options };
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    const fetcher = options.fetch ?? globalThis.fetch;
    // Called unbound: a browser's fetch refuses any `this` but the window.
    this.fetcher = (input, init) => fetcher(input, init);
    this.watchOptions = resolveWatchOptions(options.watch);
    const self = this as unknown as Record<string, unknown>;
    for (const method of RefereeService.methods) {
      const route = routeOf(method);
      self[method.localName] =
        method.methodKind === "server_streaming"
          ? (request: MessageInitShape<DescMessage>, call?: CallOptions) => this.stream(route, request, call)
          : (request: MessageInitShape<DescMessage>, call?: CallOptions) => this.unary(route, request, call);
    }
  }

  /** The same client acting as the seat of `token` (an empty string: as a spectator). */
  withToken(token: string): RefereeClient {
    return new RefereeClient({ ...this.options, token });
  }

  private headers(call: CallOptions | undefined, accept: string, body: boolean): Headers {
    const headers = new Headers(this.options.headers);
    headers.set("accept", accept);
    const token = call?.token ?? this.options.token;
    if (token) {
      headers.set("authorization", `Bearer ${token}`);
    }
    if (this.options.apiKey) {
      headers.set("x-api-key", this.options.apiKey);
    }
    if (body) {
      headers.set("content-type", "application/json");
    }
    if (call?.requestId) {
      headers.set("x-request-id", call.requestId);
    }
    for (const [name, value] of Object.entries(call?.headers ?? {})) {
      headers.set(name, value);
    }
    return headers;
  }

  private async unary(
    route: HttpRoute,
    request: MessageInitShape<DescMessage>,
    call: CallOptions | undefined,
  ): Promise<MessageShape<DescMessage>> {
    const { path, body } = requestParts(route, request);
    const init: RequestInit = {
      method: route.verb,
      headers: this.headers(call, "application/json", body !== undefined),
    };
    if (body !== undefined) {
      init.body = body;
    }
    if (call?.signal) {
      init.signal = call.signal;
    }
    let status: number;
    let text: string;
    let headers: Headers;
    try {
      const response = await this.fetcher(this.baseUrl + path, init);
      status = response.status;
      headers = response.headers;
      text = await response.text();
    } catch (error) {
      throw unreachable(error, call);
    }
    if (status < 200 || status > 299) {
      throw errorFromHttp(status, text, headers);
    }
    return parseResponse(route, text, headers);
  }

  private async *stream(
    route: HttpRoute,
    request: MessageInitShape<DescMessage>,
    call: CallOptions | undefined,
  ): AsyncGenerator<MessageShape<DescMessage>, void, undefined> {
    const { path, body } = requestParts(route, request);
    const { retries, retryDelayMs, idleTimeoutMs } = this.watchOptions;
    const signal = call?.signal;
    const resume = resumeFields(route.method);
    // The SSE id of the last item delivered (the referee's are the versions), and its version.
    let lastId = "";
    let last: bigint | undefined;
    let failures = 0;
    while (true) {
      signal?.throwIfAborted();
      const connection = new AbortController();
      const stop = () => connection.abort(signal?.reason);
      signal?.addEventListener("abort", stop, { once: true });
      let idle: ReturnType<typeof setTimeout> | undefined;
      const alive = () => {
        clearTimeout(idle);
        if (idleTimeoutMs > 0) {
          idle = setTimeout(() => connection.abort(new Error("the event stream went quiet")), idleTimeoutMs);
        }
      };
      let failure: RefereeError;
      try {
        const headers = this.headers(call, "text/event-stream", body !== undefined);
        if (lastId !== "") {
          headers.set("last-event-id", lastId);
        }
        const init: RequestInit = { method: route.verb, headers, signal: connection.signal };
        if (body !== undefined) {
          init.body = body;
        }
        alive();
        const response = await this.fetcher(this.baseUrl + path, init);
        if (response.status < 200 || response.status > 299 || response.body === null) {
          throw errorFromHttp(response.status, await response.text(), response.headers);
        }
        const requestId = response.headers.get("x-request-id") ?? undefined;
        for await (const event of readEvents(response.body, alive, connection.signal)) {
          if (connection.signal.aborted) {
            break; // events parsed before it were not delivered yet: none is now
          }
          if (event.event === "end") {
            return;
          }
          if (event.event === "error") {
            throw errorFromEvent(event.data, requestId);
          }
          if (event.event !== "message") {
            continue;
          }
          const item = parseResponse(route, event.data, response.headers);
          const version = versionOf(item, resume);
          if (version !== undefined && last !== undefined && version <= last) {
            continue; // delivered already
          }
          last = version ?? last;
          lastId = event.id || (version === undefined ? lastId : String(version));
          failures = 0;
          // A slow consumer is not a quiet connection: the clock stops while the item is handled.
          clearTimeout(idle);
          yield item;
          alive();
        }
        signal?.throwIfAborted();
        failure = new RefereeError({
          message: connection.signal.aborted
            ? `the event stream was given up: ${String(connection.signal.reason)}`
            : "the event stream ended before its end event",
          code: Code.Unavailable,
          reasonName: "",
          transport: "http",
        });
      } catch (error) {
        if (signal?.aborted) {
          throw signal.reason;
        }
        failure = error instanceof RefereeError ? error : unreachable(error, call);
        if (!failure.temporary) {
          throw failure;
        }
      } finally {
        clearTimeout(idle);
        signal?.removeEventListener("abort", stop);
        connection.abort();
      }
      failures++;
      if (failures > retries) {
        throw failure;
      }
      const wait = Math.max(retryDelayMs(failures), (failure.retryAfterSeconds ?? 0) * 1000);
      await sleep(wait, signal);
    }
  }
}

function parseResponse(route: HttpRoute, text: string, headers: Headers): MessageShape<DescMethod["output"]> {
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
    if (route.responseBody !== "") {
      const field = route.method.output.fields.find((each) => each.name === route.responseBody);
      json = { [field?.jsonName ?? route.responseBody]: json };
    }
    // Fields and enum values newer than this client are skipped, not refused.
    return fromJson(route.method.output, json, { ignoreUnknownFields: true });
  } catch (error) {
    throw new RefereeError({
      message: `the referee's answer does not decode as ${route.method.output.typeName}: ${String(error)}`,
      code: Code.Internal,
      reasonName: "",
      requestId: headers.get("x-request-id") ?? undefined,
      transport: "http",
      cause: error,
    });
  }
}

/** A failure to reach the referee (or to read its answer), unless the call was cancelled. */
function unreachable(error: unknown, call: CallOptions | undefined): RefereeError {
  if (call?.signal?.aborted) {
    throw call.signal.reason;
  }
  if (error instanceof RefereeError) {
    return error;
  }
  return new RefereeError({
    message: `cannot reach the referee: ${error instanceof Error ? error.message : String(error)}`,
    code: Code.Unavailable,
    reasonName: "",
    requestId: call?.requestId,
    transport: "http",
    cause: error,
  });
}
