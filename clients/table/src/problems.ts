/**
 * What went wrong, told to the player in the table's language (TABLE.md, "Languages": the errors
 * are translated too).
 *
 * The referee refuses with a stable reason (`hanafuda.v1.Reason`) and an English `message` written
 * for developers, which clients must not parse: the sentence shown is picked by the reason alone,
 * with the numbers the refusal carries (when to try again, a limit). The message goes to the
 * browser's console only, for whoever looks into a failure.
 */

import { Code, Reason, RefereeError } from "@hanafuda-referee/client";
import { t } from "./i18n/language.js";
import type { ReasonName } from "./i18n/strings.js";

/** Above this many seconds, when to try again is said in minutes. */
const SECONDS_SAID = 90;

/**
 * What went wrong, as plain data that can be kept and told again in another language: the
 * referee's reason with the numbers its refusal carries, or that the referee was out of reach.
 */
export interface Problem {
  readonly reason?: ReasonName;
  readonly unreachable?: boolean;
  /** The limit a refusal names (`ErrorInfo.metadata["limit"]`: games, expert seats). */
  readonly limit?: number;
  /** When to try again (`Retry-After`). */
  readonly retrySeconds?: number;
}

/** What `error` (any thrown value) means; its message goes to the console only. */
export function problemOf(error: unknown): Problem {
  console.warn("hanafuda table:", error);
  if (error instanceof RefereeError) {
    if (error.reason !== Reason.UNSPECIFIED) {
      return { reason: Reason[error.reason] as ReasonName, limit: limitOf(error), retrySeconds: retryOf(error) };
    }
    // No reason: the SDK could not reach the referee (reasonName ""), or a reason newer than
    // this table, or the transport's own status; told by its code, as errors.proto asks.
    return { unreachable: error.code === Code.Unavailable || error.code === Code.DeadlineExceeded };
  }
  // A failed fetch rejects with a TypeError; a request given up, with an AbortError or a
  // TimeoutError (DOMException).
  if (error instanceof TypeError) return { unreachable: true };
  if (error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return { unreachable: true };
  }
  return {};
}

/** The sentence that tells the player `problem`, in the table's language now. */
export function problemText(problem: Problem): string {
  const words = t.problems;
  if (problem.reason !== undefined && problem.reason in words.reasons) {
    const parts = [words.reasons[problem.reason]];
    if (problem.limit !== undefined) parts.push(words.limit(problem.limit));
    const seconds = problem.retrySeconds;
    if (seconds !== undefined) {
      parts.push(seconds > SECONDS_SAID ? words.retryMinutes(Math.ceil(seconds / 60)) : words.retrySeconds(Math.ceil(seconds)));
    }
    return words.together(parts);
  }
  return problem.unreachable ? words.unreachable : words.other;
}

/** The sentence that tells the player what `error` (any thrown value) means. */
export function problemSentence(error: unknown): string {
  return problemText(problemOf(error));
}

function limitOf(error: RefereeError): number | undefined {
  const limit = Number(error.metadata["limit"]);
  return error.metadata["limit"] !== undefined && Number.isInteger(limit) && limit > 0 ? limit : undefined;
}

function retryOf(error: RefereeError): number | undefined {
  const seconds = error.retryAfterSeconds;
  return seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 ? undefined : seconds;
}
