"""A real uvicorn server on a free port, and an SSE reader, for the streaming tests."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx
import uvicorn
from litestar import Litestar

#: Seconds any single wait of a streaming test may take.
TIMEOUT = 5.0


@asynccontextmanager
async def running(app: Litestar) -> AsyncIterator[str]:
    """Serves ``app`` on 127.0.0.1 (a port the OS picks) in this event loop; yields its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(TIMEOUT):
            while not server.started:
                await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        server.force_exit = True  # open streams must not hold the shutdown
        await task
        sock.close()


@dataclass
class SseEvent:
    """One parsed SSE event (or, with only ``comments``, a keep-alive)."""

    event: str = "message"
    id: str | None = None
    data: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    def json(self) -> dict[str, object]:
        assert len(self.data) == 1, "one data line per event"
        parsed: dict[str, object] = json.loads(self.data[0])
        return parsed


async def sse_events(response: httpx.Response) -> AsyncIterator[SseEvent]:
    """The events of an SSE response, as a browser's EventSource splits them."""
    current = SseEvent()
    async for line in response.aiter_lines():
        if line == "":
            yield current
            current = SseEvent()
        elif line.startswith(":"):
            current.comments.append(line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                current.data.append(value)
            elif name == "id":
                current.id = value
            elif name == "event":
                current.event = value


async def next_event(events: AsyncIterator[SseEvent], *, keepalives: bool = False) -> SseEvent:
    """The next event with data (or the next keep-alive, with ``keepalives``)."""
    async with asyncio.timeout(TIMEOUT):
        async for event in events:
            if event.data or keepalives:
                return event
    raise AssertionError("the stream ended")
