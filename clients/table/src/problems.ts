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

/** The sentence that tells the player what `error` (any thrown value) means. */
export function problemSentence(error: unknown): string {
  console.warn("hanafuda table:", error);
  const words = t.problems;
  if (error instanceof RefereeError) {
    if (error.reason !== Reason.UNSPECIFIED) {
      return words.together([
        words.reasons[Reason[error.reason] as ReasonName],
        ...limitOf(error),
        ...retryOf(error),
      ]);
    }
    // No reason: the SDK could not reach the referee (reasonName ""), or a reason newer than
    // this table, or the transport's own status; told by its code, as errors.proto asks.
    return error.code === Code.Unavailable || error.code === Code.DeadlineExceeded
      ? words.unreachable
      : words.other;
  }
  // A failed fetch rejects with a TypeError; a request given up, with an AbortError or a
  // TimeoutError (DOMException).
  if (error instanceof TypeError) return words.unreachable;
  if (error instanceof DOMException && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return words.unreachable;
  }
  return words.other;
}

/** The limit a refusal names (`ErrorInfo.metadata["limit"]`: games, expert seats), if any. */
function limitOf(error: RefereeError): string[] {
  const limit = Number(error.metadata["limit"]);
  return error.metadata["limit"] !== undefined && Number.isInteger(limit) && limit > 0
    ? [t.problems.limit(limit)]
    : [];
}

/** When to try again (`Retry-After`), if the refusal says it. */
function retryOf(error: RefereeError): string[] {
  const seconds = error.retryAfterSeconds;
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return [];
  return [
    seconds > SECONDS_SAID
      ? t.problems.retryMinutes(Math.ceil(seconds / 60))
      : t.problems.retrySeconds(Math.ceil(seconds)),
  ];
}
