"""Calling an ASGI app in process, one whole HTTP request at a time, without a server or
sockets: for the benchmark of a move through the HTTP app, and for tests that trace it."""

from __future__ import annotations

from typing import Any

__all__ = ["AsgiCaller"]


class AsgiCaller:
    """Calls ``app`` with one complete request; keeps the response's :attr:`status` and, with
    ``keep_body``, its :attr:`body` (the benchmark keeps none: it prices the app alone)."""

    def __init__(self, app: Any, *, keep_body: bool = False) -> None:
        self._app = app
        self._keep_body = keep_body
        self._chunks: list[bytes] = []
        self.status = 0

    @property
    def body(self) -> bytes:
        """The last response's body (empty unless kept)."""
        return b"".join(self._chunks)

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif self._keep_body and message["type"] == "http.response.body":
            self._chunks.append(message.get("body", b""))

    async def __call__(
        self, method: str, path: str, headers: list[tuple[bytes, bytes]], body: bytes = b""
    ) -> int:
        """Send the request (``path`` may end in a query string); the response's status."""
        path, _, query = path.partition("?")
        received = False

        async def receive() -> dict[str, Any]:
            nonlocal received
            if received:
                return {"type": "http.disconnect"}
            received = True
            return {"type": "http.request", "body": body, "more_body": False}

        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": [(b"host", b"in-process"), *headers],
            "client": ("127.0.0.1", 40000),
            "server": ("127.0.0.1", 8080),
            "state": {},
        }
        self.status = 0
        self._chunks = []
        await self._app(scope, receive, self._send)
        return self.status
