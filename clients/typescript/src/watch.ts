/**
 * How a watch resumes after a failure: the options both clients take, and the waits between
 * attempts. A watch reconnects after a failure that retrying may cure (the network, a dropped
 * connection, the referee `UNAVAILABLE`), from the last version it delivered, so the caller sees
 * every version once, in order; it gives up, with the last error, after `retries` failed
 * attempts in a row.
 */

import type { DescMethod } from "@bufbuild/protobuf";

/** Options of a watch's resumption. */
export interface WatchOptions {
  /** Failed attempts in a row before giving up (an item delivered resets the count). Default 10. */
  retries?: number;
  /**
   * The wait before attempt `n` (1, 2, ...) in milliseconds. Default: 250 ms doubling up to 5 s.
   * A `Retry-After` the referee sends is waited for at least.
   */
  retryDelayMs?: (attempt: number) => number;
  /**
   * HTTP only: reconnect when nothing at all arrives for this long, keep-alives included (the
   * referee sends one every 15 s by default), which catches a connection that died silently.
   * Default 45 000 ms; 0 turns it off.
   */
  idleTimeoutMs?: number;
}

/** The options with their defaults. */
export interface ResolvedWatchOptions {
  readonly retries: number;
  readonly retryDelayMs: (attempt: number) => number;
  readonly idleTimeoutMs: number;
}

/** Fills in the defaults. */
export function resolveWatchOptions(options: WatchOptions = {}): ResolvedWatchOptions {
  return {
    retries: options.retries ?? 10,
    retryDelayMs: options.retryDelayMs ?? ((attempt) => Math.min(5000, 250 * 2 ** (attempt - 1))),
    idleTimeoutMs: options.idleTimeoutMs ?? 45_000,
  };
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The fields a stream resumes by (their local names in the generated types). */
export interface ResumeFields {
  /** The request field that asks for every item after a version (`fromVersion`). */
  readonly from: string;
  /** The item field that holds the version it reaches (`version`). */
  readonly version: string;
}

/**
 * How a stream resumes, as the contract words it for `WatchGame`: the request's `from_version`
 * set to the last item's `version`. Undefined for a stream without those fields.
 */
export function resumeFields(method: DescMethod): ResumeFields | undefined {
  const from = method.input.fields.find((field) => field.name === "from_version");
  const version = method.output.fields.find((field) => field.name === "version");
  return from && version ? { from: from.localName, version: version.localName } : undefined;
}

/** The version an item reaches, if its stream has one. */
export function versionOf(item: object, fields: ResumeFields | undefined): bigint | undefined {
  if (fields === undefined) {
    return undefined;
  }
  const version = (item as Record<string, unknown>)[fields.version];
  return typeof version === "bigint" ? version : undefined;
}
