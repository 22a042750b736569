"""Who is calling: what a transport extracts from a request before the referee sees it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Caller"]


@dataclass(frozen=True, slots=True)
class Caller:
    """The credentials and identifiers of one request, whatever its transport.

    ``token``: the seat's player token (``Authorization: Bearer …`` / gRPC metadata
    ``authorization``), None when absent. ``api_key``: the server-to-server key (HTTP header and
    gRPC metadata ``x-api-key``), None when absent. ``request_id``: the transport's request id
    for logs (not the move's idempotency key, which is a message field).
    """

    token: str | None = None
    api_key: str | None = None
    request_id: str = ""
    transport: str = ""
