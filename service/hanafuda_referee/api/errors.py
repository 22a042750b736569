"""API errors: one stable reason, one gRPC code and one HTTP status, the same on both transports.

The reasons are the ``hanafuda.v1.Reason`` enum names without their ``REASON_`` prefix (the
engine's :class:`~hanafuda_referee.errors.Reason` values plus the service's own).

>>> error = ApiError("NOT_YOUR_TURN", "seat 1 is to act")
>>> error.grpc_code.name, error.http_status
('FAILED_PRECONDITION', 409)
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc

__all__ = ["DOMAIN", "STATUS", "ApiError"]

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
}


class ApiError(Exception):
    """A refused request: ``reason`` (a key of :data:`STATUS`), a human ``message`` that reveals
    no hidden card, and optional ``metadata`` for the ``ErrorInfo``."""

    def __init__(
        self, reason: str, message: str, metadata: Mapping[str, str] | None = None
    ) -> None:
        if reason not in STATUS:
            raise ValueError(f"unknown reason {reason!r}")
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})

    @property
    def grpc_code(self) -> grpc.StatusCode:
        return STATUS[self.reason][0]

    @property
    def http_status(self) -> int:
        return STATUS[self.reason][1]
