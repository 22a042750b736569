"""uvicorn's httptools protocol, with a response's head and body sent in one system call, a
time limit on each request's arrival and a size limit on each request's head.

uvicorn writes to the socket as soon as the application sends each ASGI message: the status line
and headers at ``http.response.start``, the body at ``http.response.body``. An answer of the API
is both messages, sent one after the other, so every answer cost two ``send`` calls on the
socket; on the machines the benchmark runs on a ``send`` on loopback costs about as much as the
whole Litestar no-op request around it.

:class:`CoalescingHttpToolsProtocol` gives uvicorn a transport (:class:`CoalescedWrites`) that
holds each write until the next one or the end of the event loop's current turn, whichever
comes first: a head followed by its body leaves as one buffer, and a head on its own (a stream
whose first event comes later) leaves when the loop turns, as before. Nothing else changes: the
order of the bytes, flow control and closing are the real transport's.

It also bounds how long a client may take to send a request (:func:`with_request_timeout`).
uvicorn times out only a kept-alive connection's silence after a response: a connection that
never sends a request, or sends its head or its body a byte at a time, would hold a socket and
its memory for as long as the client likes, and a few thousand such clients exhaust the
process's file descriptors (the "slowloris" attack). Here every request must arrive whole within
the timeout: the first from the moment the connection opens, each later one from its first
byte (the silence between two requests stays uvicorn's keep-alive timeout). When the time is
up, a connection that has sent part of a request head is answered ``408 Request Timeout`` and
closed; one that has sent nothing, or whose request is already with the application (its body
unfinished), is closed, as an unasked-for answer could be taken for another request's.
Timeouts are counted in ``hanafuda_http_request_timeouts_total``.

Nor does uvicorn bound a request's head (its request line and headers): httptools keeps a
header value, and uvicorn the URL, whole until they end, by concatenation, so one client
streaming an endless header had the process hold about 100 MB before the timeout ended it, and
four took it from 96 MB to 423 MB. (The body is bounded by the application,
``max_request_bytes``.) Here a head may take :data:`MAX_HEAD_BYTES`, counted from its first
read (the connection's opening, or the end of the previous request) until the parser has it
whole; a longer one is answered ``431 Request Header Fields Too Large`` and its connection
closed, with the 408's care, without the application seeing it; these are counted in
``hanafuda_http_oversized_heads_total``. The count follows whole reads, not the parser's
callbacks (httptools reports a header only once it ends): a subtraction per read while a head is
incomplete, a test while a body arrives. Only a read that goes past the limit is cut, to tell
whether the head ended within it. A head that begins inside a read, after a pipelined request,
is counted from the next read, so may pass the limit by less than one read.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from hanafuda_referee.observability import metrics

__all__ = [
    "MAX_HEAD_BYTES",
    "CoalescedWrites",
    "CoalescingHttpToolsProtocol",
    "with_request_timeout",
]

#: The most bytes a request's head may take. At least what the common fronts let through by
#: default (nginx 32 KiB, Kestrel 32 KiB, Node.js 16 KiB, Envoy 60 KiB), so no head a proxy
#: passed on is refused here, and far above this API's own (a bearer token and a few headers:
#: under 1 KiB); small enough that an unfinished head costs little (a few times this, briefly:
#: the parser copies a value each time it grows).
MAX_HEAD_BYTES = 64 * 1024

_REQUEST_TIMEOUT_TEXT = b"the request did not arrive in time"
_REQUEST_TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\n"
    b"connection: close\r\n"
    b"\r\n"
    b"%s"
) % (len(_REQUEST_TIMEOUT_TEXT), _REQUEST_TIMEOUT_TEXT)
_HEAD_TOO_LARGE_TEXT = b"the request line and headers take more than %d bytes" % MAX_HEAD_BYTES
_HEAD_TOO_LARGE_RESPONSE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\n"
    b"connection: close\r\n"
    b"\r\n"
    b"%s"
) % (len(_HEAD_TOO_LARGE_TEXT), _HEAD_TOO_LARGE_TEXT)


class CoalescedWrites:
    """A transport that passes every call on to ``transport``, but holds a write until the
    next write, a close or the end of the loop's current turn, and then sends what it holds
    with what comes next in one ``write``."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        held = self._held
        if held is None:
            if data:
                self._held = data
                self._loop.call_soon(self._release)
            return
        self._held = None
        self._transport.write(held + data)

    def _release(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if not self._transport.is_closing():
                self._transport.write(held)

    def get_write_buffer_size(self) -> int:
        held = self._held
        return self._transport.get_write_buffer_size() + (0 if held is None else len(held))

    def close(self) -> None:
        self._release()
        self._transport.close()

    def write_eof(self) -> None:
        self._release()
        self._transport.write_eof()

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._release()
        self._transport.set_protocol(protocol)

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        # Everything else (is_closing, get_extra_info, pause_reading...) is the transport's.
        return getattr(self._transport, name)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol writing through :class:`CoalescedWrites`, giving a client
    :attr:`request_timeout` seconds to send each request (0: as long as it likes), and
    :data:`MAX_HEAD_BYTES` for each request's head.

    The deadline is kept lazily: a request's start is noted (a clock read), and one timer per
    connection, re-armed only when it fires early, checks it. Arming and cancelling a timer for
    every request would cost a kept-alive connection about 2 us a request.
    """

    #: Seconds a request may take to arrive (see the module's docstring); 0 is no limit.
    request_timeout: float = 0.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline_timer: asyncio.TimerHandle | None = None
        # When the loop began to wait for the request being received (the connection's
        # opening, or the request's first byte); None between requests.
        self._awaited_since: float | None = None
        # Whether the request being received has begun, and whether its head is complete
        # (False from the end of a request: what arrives next is the next one's head).
        self._request_begun = False
        self._head_complete = False
        # The bytes the head being received may still take.
        self._head_left = MAX_HEAD_BYTES

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        coalesced: Any = CoalescedWrites(transport, self.loop)
        super().connection_made(coalesced)
        if self.request_timeout > 0:
            self._awaited_since = self.loop.time()
            self._arm(self.request_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline_timer is not None:
            self._deadline_timer.cancel()
            self._deadline_timer = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._request_begun = True
        self._head_complete = False
        if self.request_timeout > 0 and self._awaited_since is None:
            self._awaited_since = self.loop.time()
            if self._deadline_timer is None:
                self._arm(self.request_timeout)

    def on_headers_complete(self) -> None:
        self._head_complete = True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._awaited_since = None
        self._request_begun = False
        self._head_complete = False
        self._head_left = MAX_HEAD_BYTES

    def data_received(self, data: bytes) -> None:
        # Every read passes here: the base class is named, as super() would make an object a
        # read (about 150 ns, six times what the count costs).
        if self._head_complete:  # a body: the application bounds it
            HttpToolsProtocol.data_received(self, data)
            return
        left = self._head_left - len(data)
        if left >= 0:
            # Before the feed: the end of the request within it gives the next head its own.
            self._head_left = left
            HttpToolsProtocol.data_received(self, data)
        else:
            self._feed_past_limit(data)

    def _feed_past_limit(self, data: bytes) -> None:
        """Feeds ``data``, longer than the head being received may still take, if that head
        ends within its allowance; refuses it otherwise."""
        allowed = self._head_left
        self._head_left = 0
        if allowed:
            super().data_received(data[:allowed])
            if self.transport.is_closing() or (
                self.parser.should_upgrade() and not self._head_complete
            ):
                # Refused as malformed, or a request that ended in an upgrade: the parser stops
                # there, and would have dropped the rest had it come in one piece.
                return
        if self._head_complete or self._head_left:  # ended (and maybe the next one began)
            self.data_received(data[allowed:])
            return
        metrics.HTTP_OVERSIZED_HEADS.inc()
        self._end(_HEAD_TOO_LARGE_RESPONSE)

    def _arm(self, delay: float) -> None:
        self._deadline_timer = self.loop.call_later(delay, self._check_deadline)

    def _check_deadline(self) -> None:
        self._deadline_timer = None
        since = self._awaited_since
        if since is None or self.transport.is_closing():
            return  # between requests: the next one's first byte arms the timer again
        left = since + self.request_timeout - self.loop.time()
        if left > 0:
            self._arm(left)  # a later request than the one the timer was armed for
            return
        metrics.HTTP_REQUEST_TIMEOUTS.inc()
        if self._request_begun and not self._head_complete:
            self._end(_REQUEST_TIMEOUT_RESPONSE)
        else:
            self.transport.close()

    def _end(self, answer: bytes) -> None:
        """Closes the connection of a request whose head is incomplete (so the application
        never saw it), answering ``answer`` unless an earlier request is still answering: an
        answer out of turn would be taken for that one's."""
        if self.cycle is None or self.cycle.response_complete:
            self.transport.write(answer)
        self.transport.close()


def with_request_timeout(seconds: float) -> type[CoalescingHttpToolsProtocol]:
    """:class:`CoalescingHttpToolsProtocol` giving each request ``seconds`` to arrive (uvicorn
    makes its protocol from the class it is given, so the setting travels as a subclass)."""
    if seconds < 0:
        raise ValueError("a request timeout cannot be negative")
    return type(
        "CoalescingHttpToolsProtocol",
        (CoalescingHttpToolsProtocol,),
        {"request_timeout": float(seconds), "__module__": __name__},
    )
