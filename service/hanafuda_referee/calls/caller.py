"""Who is calling: what a transport extracts from a request before the referee sees it."""

from __future__ import annotations

import os
import random
import secrets
import urllib.parse
from dataclasses import dataclass

from hanafuda_referee.calls.errors import ApiError

__all__ = [
    "CREDENTIAL_HEADERS",
    "QUERY_TOKEN_METHODS",
    "QUERY_TOKEN_PARAMETER",
    "Caller",
    "bearer_token",
    "new_request_id",
    "peer_host",
    "sent_twice",
    "takes_query_token",
]

#: The credentials' header (HTTP) and metadata (gRPC) names. Each may be sent once: of two
#: values that might differ, neither transport guesses which one the client meant.
CREDENTIAL_HEADERS = ("authorization", "x-api-key")

#: The HTTP query parameter that may carry the player token instead of the Authorization header
#: (the name RFC 6750 gives it), for browsers: an ``EventSource`` cannot set headers.
QUERY_TOKEN_PARAMETER = "access_token"
#: The RPCs whose GET routes take :data:`QUERY_TOKEN_PARAMETER`: the reads a browser page makes.
#: Every other route refuses it, so that a token goes into a URL (where proxies and browser
#: histories may keep it) only where there is no other way.
QUERY_TOKEN_METHODS = frozenset({"GetGame", "WatchGame", "GetGameLog"})


def takes_query_token(method: str, verb: str) -> bool:
    """Whether the HTTP route of RPC ``method`` with ``verb`` takes the token as a query
    parameter."""
    return verb.upper() == "GET" and method in QUERY_TOKEN_METHODS


def bearer_token(authorization: str) -> str:
    """The token of an ``authorization`` header or metadata value, which must be ``Bearer
    <token>`` (the scheme in any case), on both transports.

    Anything else is refused rather than ignored: a client that sends credentials it believes
    valid must not silently be served as a spectator, nor a bare token be taken on one
    transport and refused on the other.

    >>> bearer_token("Bearer abc")
    'abc'
    >>> bearer_token("abc")
    Traceback (most recent call last):
    ...
    hanafuda_referee.calls.errors.ApiError: the authorization must be 'Bearer <token>'
    """
    scheme, _, credentials = authorization.strip().partition(" ")
    credentials = credentials.strip()
    if scheme.lower() != "bearer" or not credentials:
        raise ApiError("BAD_TOKEN", "the authorization must be 'Bearer <token>'")
    return credentials


def sent_twice(name: str) -> ApiError:
    """The refusal of a request that sends credential ``name`` (of
    :data:`CREDENTIAL_HEADERS`) more than once."""
    return ApiError("INVALID_ARGUMENT", f"send {name} once", {"header": name})


# Request ids only need to be unique, not secret: a generator of the process's own, seeded from
# the OS, draws them at a fraction of uuid4's cost (a system call and a UUID object per request).
# Not the global `random`, whose state is anyone's to seed.
_ids = random.Random(secrets.randbits(128))
os.register_at_fork(after_in_child=lambda: _ids.seed(secrets.randbits(128)))


def new_request_id() -> str:
    """A new request id for a request that came without one: 32 lowercase hex digits, as
    ``uuid.uuid4().hex``.

    >>> len(new_request_id()), new_request_id() == new_request_id()
    (32, False)
    """
    return f"{_ids.getrandbits(128):032x}"


@dataclass(frozen=True, slots=True)
class Caller:
    """The credentials and identifiers of one request, whatever its transport.

    ``token``: the seat's player token (``Authorization: Bearer …`` / gRPC metadata
    ``authorization``, or on a few HTTP GET routes the ``access_token`` query parameter), None
    when absent. ``api_key``: the server-to-server key (HTTP header and gRPC metadata
    ``x-api-key``), None when absent. ``request_id``: the transport's request id for logs (not
    the move's idempotency key, which is a message field). ``address``: the client's network
    address as the server saw it (no port; "" when unknown), for per-client limits.
    ``trace_parent``: the W3C ``traceparent`` header (or metadata) the request came with, "" for
    none: its span continues that trace when tracing is on (``observability.tracing``).
    """

    token: str | None = None
    api_key: str | None = None
    request_id: str = ""
    transport: str = ""
    address: str = ""
    trace_parent: str = ""

    def __repr__(self) -> str:
        # The token and the key are secrets: a repr may end up in a log or a traceback.
        return (
            f"Caller(token={'***' if self.token else None}, "
            f"api_key={'***' if self.api_key else None}, "
            f"request_id={self.request_id!r}, transport={self.transport!r}, "
            f"address={self.address!r}, trace_parent={self.trace_parent!r})"
        )


def peer_host(peer: str) -> str:
    """The host of a gRPC peer string (``ipv4:1.2.3.4:5``, ``ipv6:[::1]:5``, ``unix:path``),
    as HTTP's ASGI scope gives its client address: without the port; "" when there is none.
    gRPC writes the peer as a URI, its IPv6 brackets percent-encoded (``ipv6:%5B::1%5D:5``):
    left so, the address would parse as none, and name a client of its own per address rather
    than by its network.

    >>> peer_host("ipv4:127.0.0.1:50123"), peer_host("ipv6:[::1]:50123"), peer_host("unix:/s")
    ('127.0.0.1', '::1', '')
    >>> peer_host("ipv6:%5B2001:db8::1%5D:50123"), peer_host("ipv6:%5Bfe80::1%25eth0%5D:5")
    ('2001:db8::1', 'fe80::1%eth0')
    """
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return urllib.parse.unquote(rest).rpartition(":")[0].strip("[]")
    return ""
