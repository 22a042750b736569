/**
 * Refusals as one typed error class, whichever transport carried them.
 *
 * The referee refuses a request with a stable reason: a `hanafuda.v1.Reason` name without its
 * `REASON_` prefix in a `google.rpc.ErrorInfo` (domain `hanafuda-referee`), and a status that the
 * reason always maps to (docs/api.md, "Errors"). On HTTP the body is AIP-193 JSON,
 * `{"error": {"code": <HTTP status>, "status": "<gRPC code name>", "message": ..., "details":
 * [ErrorInfo]}}`; on gRPC the same ErrorInfo is a detail of the status.
 */

import { createRegistry, fromJson, isMessage } from "@bufbuild/protobuf";
import type { JsonValue } from "@bufbuild/protobuf";
import { AnySchema, anyUnpack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { Reason, ReasonSchema } from "./gen/hanafuda/v1/errors_pb.js";

/** The `ErrorInfo.domain` of the referee's refusals. */
export const ERROR_DOMAIN = "hanafuda-referee";

/** What makes a {@link RefereeError}. */
export interface RefereeErrorInit {
  message: string;
  code: Code;
  reasonName: string;
  metadata?: Record<string, string>;
  httpStatus?: number;
  requestId?: string;
  retryAfterSeconds?: number;
  transport: "http" | "grpc";
  cause?: unknown;
}

/**
 * A request the referee refused, or that could not reach it.
 *
 * Branch on {@link reason} (or {@link reasonName} for a reason newer than this client, which
 * reads as `Reason.UNSPECIFIED`), and fall back on {@link code} when the reason is unknown, as
 * the contract asks. `message` is for people, never for parsing.
 */
export class RefereeError extends Error {
  override readonly name = "RefereeError";
  /** The reason as this client's `Reason` enum; `Reason.UNSPECIFIED` if it is not one. */
  readonly reason: Reason;
  /**
   * The reason as sent (`"NOT_YOUR_TURN"`). Errors of the transport itself carry their status
   * name here (`"NOT_FOUND"` for a path no route serves); failures to reach the referee carry
   * `""`.
   */
  readonly reasonName: string;
  /** The status, as a gRPC code (the same on both transports for a given reason). */
  readonly code: Code;
  /** The HTTP status (HTTP client only). */
  readonly httpStatus: number | undefined;
  /** `ErrorInfo.metadata`: `current_version` for `STALE_VERSION`, `option` for rule options... */
  readonly metadata: Readonly<Record<string, string>>;
  /** When to try again, for `RATE_LIMITED` and `STORE_FULL` (`Retry-After`, `RetryInfo`). */
  readonly retryAfterSeconds: number | undefined;
  /** The request id (`x-request-id`) the referee logged the request under. */
  readonly requestId: string | undefined;
  /** The transport that carried the call. */
  readonly transport: "http" | "grpc";

  constructor(init: RefereeErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.reasonName = init.reasonName;
    this.reason = reasonOf(init.reasonName);
    this.code = init.code;
    this.httpStatus = init.httpStatus;
    this.metadata = Object.freeze({ ...(init.metadata ?? {}) });
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.requestId = init.requestId;
    this.transport = init.transport;
  }

  /**
   * Whether the same request may succeed later: the referee (or the way to it) is unavailable.
   * A move retried after this must carry the same `requestId` field: it may have been made.
   */
  get temporary(): boolean {
    return this.code === Code.Unavailable;
  }
}

/** The `Reason` a reason name (without the `REASON_` prefix) stands for; UNSPECIFIED if none. */
export function reasonOf(name: string): Reason {
  const value = ReasonSchema.values.find((each) => each.name === `REASON_${name}`);
  return value === undefined ? Reason.UNSPECIFIED : (value.number as Reason);
}

// The canonical gRPC code names, as the HTTP body's `status` spells them.
const CODE_NAMES: Readonly<Record<string, Code>> = {
  CANCELLED: Code.Canceled,
  UNKNOWN: Code.Unknown,
  INVALID_ARGUMENT: Code.InvalidArgument,
  DEADLINE_EXCEEDED: Code.DeadlineExceeded,
  NOT_FOUND: Code.NotFound,
  ALREADY_EXISTS: Code.AlreadyExists,
  PERMISSION_DENIED: Code.PermissionDenied,
  RESOURCE_EXHAUSTED: Code.ResourceExhausted,
  FAILED_PRECONDITION: Code.FailedPrecondition,
  ABORTED: Code.Aborted,
  OUT_OF_RANGE: Code.OutOfRange,
  UNIMPLEMENTED: Code.Unimplemented,
  INTERNAL: Code.Internal,
  UNAVAILABLE: Code.Unavailable,
  DATA_LOSS: Code.DataLoss,
  UNAUTHENTICATED: Code.Unauthenticated,
};

/** The code of an HTTP status without a readable body (a proxy's page, a server's plain text). */
export function codeOfHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 405:
    case 501:
      return Code.Unimplemented;
    case 408:
    case 504:
      return Code.DeadlineExceeded;
    case 409:
      return Code.Aborted;
    case 413:
    case 429:
    case 431:
      return Code.ResourceExhausted;
    case 502:
    case 503:
      return Code.Unavailable;
    default:
      return status >= 500 ? Code.Internal : Code.Unknown;
  }
}

const DETAILS = createRegistry(ErrorInfoSchema, RetryInfoSchema);

/**
 * The error an HTTP error response stands for, from its AIP-193 body when it has one.
 * `body` is the response text; `headers` give `Retry-After` and `x-request-id`.
 */
export function errorFromHttp(status: number, body: string, headers: Headers): RefereeError {
  const requestId = headers.get("x-request-id") ?? undefined;
  const retryAfter = parseSeconds(headers.get("retry-after"));
  const parsed = parseErrorBody(body);
  if (parsed === undefined) {
    return new RefereeError({
      message: body.trim().slice(0, 512) || `HTTP ${status}`,
      code: codeOfHttpStatus(status),
      reasonName: "",
      httpStatus: status,
      ...(requestId === undefined ? {} : { requestId }),
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
      transport: "http",
    });
  }
  return refusal({
    ...parsed,
    httpStatus: status,
    requestId,
    retryAfter: retryAfter ?? parsed.retryAfter,
    transport: "http",
  });
}

/** The error an SSE `error` event stands for (its data is the same body as a response's). */
export function errorFromEvent(data: string, requestId: string | undefined): RefereeError {
  const parsed = parseErrorBody(data);
  if (parsed === undefined) {
    return new RefereeError({
      message: `the event stream failed: ${data.slice(0, 512)}`,
      code: Code.Unknown,
      reasonName: "",
      ...(requestId === undefined ? {} : { requestId }),
      transport: "http",
    });
  }
  return refusal({ ...parsed, httpStatus: parsed.httpStatus, requestId, transport: "http" });
}

interface ParsedBody {
  message: string;
  code: Code;
  httpStatus: number | undefined;
  reasonName: string;
  metadata: Record<string, string>;
  retryAfter: number | undefined;
}

function parseErrorBody(text: string): ParsedBody | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(document) || !isObject(document["error"])) {
    return undefined;
  }
  const error = document["error"];
  const statusName = typeof error["status"] === "string" ? error["status"] : "";
  const httpStatus = typeof error["code"] === "number" ? error["code"] : undefined;
  const parsed: ParsedBody = {
    message: typeof error["message"] === "string" ? error["message"] : "",
    code: CODE_NAMES[statusName] ?? codeOfHttpStatus(httpStatus ?? 500),
    httpStatus,
    reasonName: "",
    metadata: {},
    retryAfter: undefined,
  };
  const details = Array.isArray(error["details"]) ? error["details"] : [];
  for (const detail of details) {
    const message = unpack(detail as JsonValue);
    if (isMessage(message, ErrorInfoSchema) && parsed.reasonName === "") {
      parsed.reasonName = message.reason;
      parsed.metadata = { ...message.metadata };
    } else if (isMessage(message, RetryInfoSchema) && message.retryDelay !== undefined) {
      parsed.retryAfter = Number(message.retryDelay.seconds);
    }
  }
  return parsed;
}

/** A detail (a `google.protobuf.Any` in JSON) as its message, or undefined if unknown here. */
function unpack(detail: JsonValue) {
  try {
    return anyUnpack(fromJson(AnySchema, detail, { registry: DETAILS }), DETAILS);
  } catch {
    return undefined;
  }
}

/** A refusal from its parts, as both transports read them. */
export function refusal(parts: {
  message: string;
  code: Code;
  reasonName: string;
  metadata: Record<string, string>;
  httpStatus: number | undefined;
  requestId: string | undefined;
  retryAfter: number | undefined;
  transport: "http" | "grpc";
}): RefereeError {
  const retryAfter = parts.retryAfter ?? parseSeconds(parts.metadata["retry_after_seconds"]);
  return new RefereeError({
    message: parts.message,
    code: parts.code,
    reasonName: parts.reasonName,
    metadata: parts.metadata,
    ...(parts.httpStatus === undefined ? {} : { httpStatus: parts.httpStatus }),
    ...(parts.requestId === undefined ? {} : { requestId: parts.requestId }),
    ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    transport: parts.transport,
  });
}

function parseSeconds(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\d+(\.\d+)?$/.test(value.trim())) {
    return undefined;
  }
  return Number(value.trim());
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
