"""API errors: one stable reason, one gRPC code and one HTTP status, the same on both transports.

The reasons are the ``hanafuda.v1.Reason`` enum names without their ``REASON_`` prefix (the
engine's :class:`~hanafuda_referee.errors.Reason` values plus the service's own).

>>> error = ApiError("NOT_YOUR_TURN", "seat 1 is to act")
>>> error.grpc_code.name, error.http_status
('FAILED_PRECONDITION', 409)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType

import grpc

__all__ = [
    "DOMAIN",
    "MAX_MESSAGE",
    "MAX_METADATA_VALUE",
    "RETRY_AFTER",
    "STATUS",
    "ApiError",
    "ErrorTranslation",
]

#: The ``google.rpc.ErrorInfo.domain`` of every error this service raises.
DOMAIN = "hanafuda-referee"

_INVALID = (grpc.StatusCode.INVALID_ARGUMENT, 400)
_PRECONDITION = (grpc.StatusCode.FAILED_PRECONDITION, 409)
_UNAUTHENTICATED = (grpc.StatusCode.UNAUTHENTICATED, 401)
_DENIED = (grpc.StatusCode.PERMISSION_DENIED, 403)

#: reason -> (gRPC code, HTTP status), as documented on each ``hanafuda.v1.Reason`` value.
STATUS: Mapping[str, tuple[grpc.StatusCode, int]] = {
    "NOT_YOUR_TURN": _PRECONDITION,
    "UNKNOWN_SEAT": _INVALID,
    "CARD_NOT_IN_HAND": _PRECONDITION,
    "TARGET_REQUIRED": _PRECONDITION,
    "TARGET_DOES_NOT_MATCH": _PRECONDITION,
    "WRONG_MOVE": _PRECONDITION,
    "NO_DECISION_PENDING": _PRECONDITION,
    "MOVE_NOT_IN_GAME": _INVALID,
    "KOIKOI_NOT_ALLOWED": _PRECONDITION,
    "GAME_OVER": _PRECONDITION,
    "UNKNOWN_PRESET": _INVALID,
    "UNKNOWN_OPTION": _INVALID,
    "BAD_OPTION_VALUE": _INVALID,
    "BAD_DEAL": _INVALID,
    "BAD_CARDS": _INVALID,
    "BAD_ENCODING": _INVALID,
    "STALE_VERSION": (grpc.StatusCode.ABORTED, 409),
    "UNKNOWN_GAME": (grpc.StatusCode.NOT_FOUND, 404),
    "BAD_TOKEN": _UNAUTHENTICATED,
    "MISSING_TOKEN": _UNAUTHENTICATED,
    "PERMISSION_DENIED": _DENIED,
    "TESTING_FEATURE_DISABLED": _DENIED,
    "REQUEST_TOO_LARGE": _INVALID,
    "INVALID_ARGUMENT": _INVALID,
    "UNAVAILABLE": (grpc.StatusCode.UNAVAILABLE, 503),
    "API_KEY_REQUIRED": _UNAUTHENTICATED,
    "MALFORMED_MOVE": _INVALID,
    "REQUEST_ID_REUSED": _INVALID,
    # Only the HTTP transport refuses it; gRPC's code is there for completeness.
    "UNSUPPORTED_MEDIA_TYPE": (grpc.StatusCode.INVALID_ARGUMENT, 415),
    "RATE_LIMITED": (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "TIMED_OUT": (grpc.StatusCode.ABORTED, 409),
    "TOO_MANY_GAMES": (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "TOO_MANY_BOT_GAMES": (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "TOO_MANY_EXPERT_SEATS": _INVALID,
    # The server's capacity, not the client's doing: 503, which HTTP clients and proxies know
    # as "try again later"; gRPC's UNAVAILABLE would say the outcome is unknown, and it is not.
    "STORE_FULL": (grpc.StatusCode.RESOURCE_EXHAUSTED, 503),
    "GAME_NOT_OVER": _PRECONDITION,
}

#: The ``ErrorInfo`` metadata key of the seconds to wait before a retry (``RATE_LIMITED``,
#: ``STORE_FULL``), a whole number; the transports also carry it as ``Retry-After`` and
#: ``google.rpc.RetryInfo``.
RETRY_AFTER = "retry_after_seconds"


#: The longest message and ``ErrorInfo`` metadata value an error carries, in characters. Some
#: messages quote what the client sent (an unknown preset's name): whole, a long one made the
#: gRPC status detail outgrow grpc's 8 KiB metadata limit, and the client got
#: ``RESOURCE_EXHAUSTED`` without the reason. Cut here, the largest error stays under 3 KiB.
MAX_MESSAGE = 512
MAX_METADATA_VALUE = 128


def _cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit - 1`` characters and an ellipsis.

    >>> _cut("abcdef", 4), _cut("abc", 4)
    ('abc…', 'abc')
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ApiError(Exception):
    """A refused request: ``reason`` (a key of :data:`STATUS`), a human ``message`` that reveals
    no hidden card, and optional ``metadata`` for the ``ErrorInfo``; the message and the
    metadata values are cut to :data:`MAX_MESSAGE` and :data:`MAX_METADATA_VALUE` characters."""

    def __init__(
        self, reason: str, message: str, metadata: Mapping[str, str] | None = None
    ) -> None:
        if reason not in STATUS:
            raise ValueError(f"unknown reason {reason!r}")
        message = _cut(message, MAX_MESSAGE)
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = (
            {key: _cut(value, MAX_METADATA_VALUE) for key, value in metadata.items()}
            if metadata
            else {}
        )

    @property
    def grpc_code(self) -> grpc.StatusCode:
        return STATUS[self.reason][0]

    @property
    def http_status(self) -> int:
        return STATUS[self.reason][1]


class ErrorTranslation:
    """A context manager that turns the exceptions :meth:`translate` knows into
    :class:`ApiError` (not chained: the original's details stay inside the service) and lets
    every other one through. A plain class: the move path enters these on every request, and a
    generator-based context manager costs a generator and a helper object each time.
    """

    __slots__ = ()

    def translate(self, error: BaseException) -> ApiError | None:
        """The API error ``error`` becomes; None lets it through unchanged."""
        raise NotImplementedError

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is not None:
            translated = self.translate(error)
            if translated is not None:
                raise translated from None
