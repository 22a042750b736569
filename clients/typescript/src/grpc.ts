/**
 * The referee over gRPC, for Node: the generated `RefereeService` through
 * `@connectrpc/connect-node`'s gRPC transport (HTTP/2), with the same typed methods and the same
 * {@link RefereeError} as the HTTP client. Import it from `@hanafuda-referee/client/grpc`; the
 * main entry point stays free of Node's modules for browsers.
 *
 * ```ts
 * const referee = new RefereeGrpcClient({ baseUrl: "http://localhost:50051" });
 * const { game, playerTokens } = await referee.createGame({ kind: GameKind.KOI_KOI, players: ["ann", "bob"] });
 * const { view } = await referee.getGame({ game }, { token: playerTokens[0] });
 * ```
 */

import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import type { Client, Transport } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { GrpcTransportOptions } from "@connectrpc/connect-node";
import { refusal, RefereeError } from "./errors.js";
import { ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { RefereeService } from "./gen/hanafuda/v1/service_pb.js";
import { newRequestId } from "./methods.js";
import type { CallOptions, RefereeMethods } from "./methods.js";
import { resolveWatchOptions, resumeFields, sleep, versionOf } from "./watch.js";
import type { ResolvedWatchOptions, WatchOptions } from "./watch.js";

export { RefereeError } from "./errors.js";
export type { CallOptions, RefereeMethods } from "./methods.js";
export type { WatchOptions } from "./watch.js";

/** Options of a {@link RefereeGrpcClient}. */
export interface RefereeGrpcClientOptions {
  /** The referee's gRPC address as a URL: `http://localhost:50051` (`https://` for TLS). */
  baseUrl: string;
  /** The seat's player token sent with every call (a call's `token` option overrides it). */
  token?: string;
  /** The API key (`x-api-key` metadata) for `createGame`, when the referee requires one. */
  apiKey?: string;
  /** Metadata sent with every call. */
  headers?: Record<string, string>;
  /** More options of the transport (TLS: `nodeOptions`; HTTP/2 pings...). */
  transportOptions?: Omit<GrpcTransportOptions, "baseUrl">;
  /** A transport of your own instead (the options above that configure one are then unused). */
  transport?: Transport;
  /** How `watchGame` resumes after a failure (`idleTimeoutMs` is HTTP's; use HTTP/2 pings). */
  watch?: WatchOptions;
}

/** Every RPC of the referee over gRPC, as typed methods (see {@link RefereeMethods}). */
export interface RefereeGrpcClient extends RefereeMethods {}

/**
 * The gRPC client. Tokens travel as `authorization: Bearer <token>` metadata, the API key as
 * `x-api-key`, the request id as `x-request-id` (made up when the call names none, and carried by
 * a {@link RefereeError}). A server-streaming method resumes by itself after a failure that
 * retrying may cure, with its request's `from_version` set to the last `version` it delivered.
 */
export class RefereeGrpcClient {
  readonly options: Readonly<RefereeGrpcClientOptions>;
  readonly transport: Transport;
  private readonly client: Client<typeof RefereeService>;
  private readonly watchOptions: ResolvedWatchOptions;

  constructor(options: RefereeGrpcClientOptions) {
    this.options = { ...options };
    this.transport =
      options.transport ?? createGrpcTransport({ ...options.transportOptions, baseUrl: options.baseUrl });
    this.client = createClient(RefereeService, this.transport);
    this.watchOptions = resolveWatchOptions(options.watch);
    const self = this as unknown as Record<string, unknown>;
    const generic = this.client as unknown as Record<string, (request: unknown, options: unknown) => unknown>;
    for (const method of RefereeService.methods) {
      const name = method.localName;
      const call = (request: unknown, options: CallOptions | undefined, requestId: string) =>
        generic[name]?.(request, this.callOptions(options, requestId));
      self[name] =
        method.methodKind === "server_streaming"
          ? (request: MessageInitShape<DescMessage>, options?: CallOptions) =>
              this.stream(method, request, options, (each, id) => call(each, options, id) as AsyncIterable<Message>)
          : async (request: MessageInitShape<DescMessage>, options?: CallOptions) => {
              const requestId = options?.requestId || newRequestId();
              try {
                return await (call(request, options, requestId) as Promise<Message>);
              } catch (error) {
                throw converted(error, options, requestId);
              }
            };
    }
  }

  /** The same client (and connection) acting as the seat of `token` ("": as a spectator). */
  withToken(token: string): RefereeGrpcClient {
    return new RefereeGrpcClient({ ...this.options, transport: this.transport, token });
  }

  private callOptions(options: CallOptions | undefined, requestId: string) {
    const headers = new Headers(this.options.headers);
    const token = options?.token ?? this.options.token;
    if (token) {
      headers.set("authorization", `Bearer ${token}`);
    }
    if (this.options.apiKey) {
      headers.set("x-api-key", this.options.apiKey);
    }
    headers.set("x-request-id", requestId);
    for (const [name, value] of Object.entries(options?.headers ?? {})) {
      headers.set(name, value);
    }
    return options?.signal ? { headers, signal: options.signal } : { headers };
  }

  private async *stream(
    method: DescMethod,
    request: MessageInitShape<DescMessage>,
    options: CallOptions | undefined,
    open: (request: MessageInitShape<DescMessage>, requestId: string) => AsyncIterable<Message>,
  ): AsyncGenerator<Message, void, undefined> {
    const { retries, retryDelayMs } = this.watchOptions;
    const resume = resumeFields(method);
    let resumed = request;
    let last: bigint | undefined;
    let failures = 0;
    while (true) {
      const requestId = options?.requestId || newRequestId();
      let failure: RefereeError;
      try {
        for await (const item of open(resumed, requestId)) {
          const version = versionOf(item, resume);
          if (version !== undefined && resume !== undefined) {
            if (last !== undefined && version <= last) {
              continue;
            }
            last = version;
            // Every item after the last one delivered, as a new request would ask for them.
            resumed = { ...(request as object), [resume.from]: version } as MessageInitShape<DescMessage>;
          }
          failures = 0;
          yield item;
        }
        return;
      } catch (error) {
        failure = converted(error, options, requestId);
        if (!failure.temporary || resume === undefined) {
          throw failure;
        }
      }
      failures++;
      if (failures > retries) {
        throw failure;
      }
      await sleep(Math.max(retryDelayMs(failures), (failure.retryAfterSeconds ?? 0) * 1000), options?.signal);
    }
  }
}

type Message = MessageShape<DescMessage>;

const BROKEN: readonly Code[] = [Code.Aborted, Code.Canceled, Code.Internal, Code.Unknown, Code.Unavailable];

/** A ConnectError as a RefereeError (the caller's own cancellation is rethrown as it was). */
function converted(error: unknown, options: CallOptions | undefined, requestId: string): RefereeError {
  if (options?.signal?.aborted) {
    throw options.signal.reason;
  }
  if (error instanceof RefereeError) {
    return error;
  }
  const connect = ConnectError.from(error);
  const info = connect.findDetails(ErrorInfoSchema)[0];
  const retry = connect.findDetails(RetryInfoSchema)[0];
  if (!connect.metadata.has("grpc-status") && BROKEN.includes(connect.code)) {
    // No status from the referee, and not the caller's cancellation: the connection failed on the
    // way (connect-node reports a reset as ABORTED, a stream the dying HTTP/2 session cancelled as
    // CANCELLED, a broken one as INTERNAL), which is UNAVAILABLE to the caller.
    return new RefereeError({
      message: `cannot reach the referee: ${connect.rawMessage}`,
      code: Code.Unavailable,
      reasonName: "",
      requestId,
      transport: "grpc",
      cause: error,
    });
  }
  return refusal({
    message: connect.rawMessage,
    code: connect.code,
    reasonName: info?.reason ?? "",
    metadata: info ? { ...info.metadata } : {},
    httpStatus: undefined,
    requestId,
    retryAfter: retry?.retryDelay ? Number(retry.retryDelay.seconds) : undefined,
    transport: "grpc",
  });
}

export { Code };
