"""uvicorn's httptools protocol, with a response's head and body sent in one system call.

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
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["CoalescedWrites", "CoalescingHttpToolsProtocol"]


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
    """uvicorn's httptools protocol writing through :class:`CoalescedWrites`."""

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        coalesced: Any = CoalescedWrites(transport, self.loop)
        super().connection_made(coalesced)
