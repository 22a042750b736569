"""A TCP proxy in front of a server port that fails on command, the way networks fail: it cuts
every open connection (:meth:`FaultyProxy.cut`), or lets the next request through and swallows
its answer before cutting that connection (:meth:`FaultyProxy.drop_next_answer`), so the server
did the work and the client saw only a broken connection.

Threads, not asyncio: one proxy serves sync and async clients alike.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from types import TracebackType

__all__ = ["FaultyProxy"]

#: Seconds the proxy holds a swallowed answer's connection open before cutting it: far more
#: than the server takes to finish the request it forwarded.
HOLD = 0.5


class _Link:
    """One client connection and its connection to the server."""

    def __init__(self, downstream: socket.socket, upstream: socket.socket) -> None:
        self.downstream = downstream
        self.upstream = upstream
        #: Set when the server's bytes are swallowed rather than forwarded.
        self.muted = False

    def close(self) -> None:
        for end in (self.downstream, self.upstream):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()


class FaultyProxy:
    """Listens on a free loopback port (:attr:`target`) and forwards to ``port``."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.target = f"127.0.0.1:{self.listener.getsockname()[1]}"
        #: Connections accepted so far, and answers swallowed.
        self.accepted = 0
        self.dropped = 0
        self._links: list[_Link] = []
        self._lock = threading.Lock()
        self._armed = False
        self._closed = False
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> FaultyProxy:
        self._spawn(self._accept)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._closed = True
        self.listener.close()
        self.cut()

    def cut(self) -> None:
        """Close every open connection, both ways, at once."""
        with self._lock:
            links, self._links = self._links, []
        for link in links:
            link.close()

    def drop_next_answer(self) -> None:
        """Forward the next bytes any client sends (its next request), swallow everything the
        server sends back on that connection, and cut it :data:`HOLD` seconds later."""
        with self._lock:
            self._armed = True

    def _spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        thread.start()
        self._threads.append(thread)

    def _accept(self) -> None:
        while not self._closed:
            try:
                downstream, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.port))
            link = _Link(downstream, upstream)
            with self._lock:
                self._links.append(link)
                self.accepted += 1
            self._spawn(self._requests, link)
            self._spawn(self._answers, link)

    def _requests(self, link: _Link) -> None:
        """Client to server; arms the swallowing of the answer when asked to."""
        while chunk := _receive(link.downstream):
            with self._lock:
                swallow, self._armed = self._armed, False
            if swallow:
                link.muted = True
                self.dropped += 1
                self._spawn(self._cut_later, link)
            if not _send(link.upstream, chunk):
                break
        link.close()

    def _answers(self, link: _Link) -> None:
        """Server to client, unless muted."""
        while chunk := _receive(link.upstream):
            if not link.muted and not _send(link.downstream, chunk):
                break
        link.close()

    def _cut_later(self, link: _Link) -> None:
        time.sleep(HOLD)
        with self._lock:
            if link in self._links:
                self._links.remove(link)
        link.close()


def _receive(end: socket.socket) -> bytes:
    try:
        return end.recv(65536)
    except OSError:
        return b""


def _send(end: socket.socket, chunk: bytes) -> bool:
    try:
        end.sendall(chunk)
    except OSError:
        return False
    return True
