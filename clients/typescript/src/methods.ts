/**
 * The client's shape, derived from the generated service descriptor: one method per RPC of
 * `hanafuda.v1.RefereeService`, named as protoc-gen-es names it (`createGame`, `submitMove`,
 * `watchGame`...), taking the request (a plain object or a message) and returning the response
 * message, or an async iterable of them for a server-streaming RPC.
 *
 * Nothing here lists the methods: a method added to the proto appears on both clients at the next
 * `scripts/gen-protos`.
 */

import type { DescMessage, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import { RefereeService } from "./gen/hanafuda/v1/service_pb.js";

/** Options of one call. */
export interface CallOptions {
  /**
   * The seat's player token for this call (sent as `Authorization: Bearer <token>`), instead of
   * the client's own. An empty string sends none: a spectator's read.
   */
  token?: string;
  /** Cancels the call (for `watchGame`: ends the stream). */
  signal?: AbortSignal;
  /**
   * The request id, for the referee's logs (`x-request-id`: 1 to 128 letters, digits, `.`, `_`,
   * `:` or `-`). Unset: the referee makes one up over HTTP (and returns it), the gRPC client
   * makes one up. A `RefereeError` carries it.
   */
  requestId?: string;
  /** Extra request headers (gRPC: metadata). */
  headers?: Record<string, string>;
}

type ServiceShape = typeof RefereeService.method;

type UnaryMethod<I extends DescMessage, O extends DescMessage> = (
  request: MessageInitShape<I>,
  options?: CallOptions,
) => Promise<MessageShape<O>>;

type StreamingMethod<I extends DescMessage, O extends DescMessage> = (
  request: MessageInitShape<I>,
  options?: CallOptions,
) => AsyncIterable<MessageShape<O>>;

/** Every RPC of the referee as a typed method. */
export type RefereeMethods = {
  [K in keyof ServiceShape]: ServiceShape[K]["methodKind"] extends "server_streaming"
    ? StreamingMethod<ServiceShape[K]["input"], ServiceShape[K]["output"]>
    : UnaryMethod<ServiceShape[K]["input"], ServiceShape[K]["output"]>;
};

/** A fresh random request id (32 hex digits; `getRandomValues` works in any browser context). */
export function newRequestId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
