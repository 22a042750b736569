"""Error bodies of the HTTP transport: ``google.rpc.Status`` in the AIP-193 JSON shape.

>>> error_body(ApiError("NOT_YOUR_TURN", "seat 1 is to act"))["error"]["status"]
'FAILED_PRECONDITION'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hanafuda_referee.calls.errors import DOMAIN, ApiError

__all__ = ["ERROR_INFO_TYPE", "error_body", "transport_error_body"]

#: The ``@type`` of the one detail every error carries.
ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"

# Errors the transport raises itself (no route, wrong verb, a crash) have no `Reason` of their
# own: they are reported with the gRPC code name as the reason, the fallback the contract tells
# clients to apply to a reason they do not know anyway.
_TRANSPORT_CODES: Mapping[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    405: "UNIMPLEMENTED",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def _body(
    http_status: int, status: str, message: str, reason: str, metadata: Mapping[str, str]
) -> dict[str, Any]:
    return {
        "error": {
            "code": http_status,
            "message": message,
            "status": status,
            "details": [
                {
                    "@type": ERROR_INFO_TYPE,
                    "reason": reason,
                    "domain": DOMAIN,
                    "metadata": dict(metadata),
                }
            ],
        }
    }


def error_body(error: ApiError) -> dict[str, Any]:
    """The JSON body of a refused request: its HTTP status, message, gRPC code name and an
    ``ErrorInfo`` with the stable reason and metadata."""
    return _body(
        error.http_status, error.grpc_code.name, error.message, error.reason, error.metadata
    )


def transport_error_body(http_status: int, message: str) -> dict[str, Any]:
    """The JSON body of an error raised by the transport itself, for an HTTP status."""
    code = _TRANSPORT_CODES.get(http_status, "INTERNAL" if http_status >= 500 else "UNKNOWN")
    return _body(http_status, code, message, code, {})
