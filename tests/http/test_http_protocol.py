"""uvicorn's protocol with coalesced writes: a response leaves in one write, bytes keep their
order, and nothing is held past the loop's turn or a close; a request that does not arrive in
time ends its connection, and so does one whose head is too long."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import uvicorn
from prometheus_client import REGISTRY
from uvicorn.server import ServerState

from hanafuda_referee.http.protocol import (
    MAX_HEAD_BYTES,
    CoalescedWrites,
    CoalescingHttpToolsProtocol,
    with_request_timeout,
)


class RecordingTransport(asyncio.Transport):
    """A transport that records what is written to it and what is done with it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.calls: list[str] = []
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.calls.append("close")
        self.closing = True

    def abort(self) -> None:
        self.calls.append("abort")
        self.closing = True

    def write_eof(self) -> None:
        self.calls.append("write_eof")

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return 7

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def pause_reading(self) -> None:
        self.calls.append("pause_reading")

    def resume_reading(self) -> None:
        self.calls.append("resume_reading")


async def test_a_write_followed_by_another_leaves_with_it_in_one_write() -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.write(b"head")
    assert transport.writes == []
    assert writes.get_write_buffer_size() == 7 + 4
    writes.write(b"body")
    assert transport.writes == [b"headbody"]
    await asyncio.sleep(0)
    assert transport.writes == [b"headbody"]  # nothing more once the loop turns


async def test_a_lone_write_leaves_when_the_loop_turns() -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.write(b"head")
    await asyncio.sleep(0)
    assert transport.writes == [b"head"]
    writes.write(b"event 1")
    writes.write(b"event 2")
    writes.write(b"event 3")
    await asyncio.sleep(0)
    assert b"".join(transport.writes) == b"headevent 1event 2event 3"
    assert transport.writes[1:] == [b"event 1event 2", b"event 3"]


async def test_empty_writes_hold_nothing() -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.write(b"")
    await asyncio.sleep(0)
    assert transport.writes == []
    writes.write(b"head")
    writes.write(b"")  # a 204's empty body: the head goes at once
    assert transport.writes == [b"head"]


@pytest.mark.parametrize("ending", ["close", "write_eof"])
async def test_what_is_held_leaves_before_the_connection_ends(ending: str) -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.write(b"last words")
    getattr(writes, ending)()
    assert transport.writes == [b"last words"]
    assert transport.calls == [ending]
    await asyncio.sleep(0)
    assert transport.writes == [b"last words"]


async def test_an_abort_drops_what_is_held() -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.write(b"never sent")
    writes.abort()
    await asyncio.sleep(0)
    assert transport.writes == []
    assert transport.calls == ["abort"]


async def test_nothing_is_written_to_a_transport_closed_meanwhile() -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.write(b"too late")
    transport.closing = True  # the peer went away
    await asyncio.sleep(0)
    assert transport.writes == []


async def test_other_calls_are_the_transport_s() -> None:
    transport = RecordingTransport()
    writes = CoalescedWrites(transport, asyncio.get_running_loop())
    writes.pause_reading()
    assert transport.calls == ["pause_reading"]
    assert writes.get_extra_info("peername") == ("127.0.0.1", 5000)
    assert not writes.is_closing()


async def _answer(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app answering every request with a JSON body, as the RPC handlers do."""
    assert scope["type"] == "http"
    await receive()
    body = b'{"answer":' + scope["path"].encode().replace(b"/", b"") + b"}"
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _protocol(loop: asyncio.AbstractEventLoop) -> CoalescingHttpToolsProtocol:
    config = uvicorn.Config(_answer, log_config=None, access_log=False)
    return CoalescingHttpToolsProtocol(config, ServerState(), {}, _loop=loop)


async def test_uvicorn_sends_each_response_in_one_write() -> None:
    loop = asyncio.get_running_loop()
    protocol = _protocol(loop)
    transport = RecordingTransport()
    protocol.connection_made(transport)
    for n in (1, 2):  # two requests on one keep-alive connection
        protocol.data_received(f"GET /{n} HTTP/1.1\r\nhost: x\r\n\r\n".encode())
        for _ in range(5):
            await asyncio.sleep(0)
        assert len(transport.writes) == n
        response = transport.writes[-1]
        assert response.startswith(b"HTTP/1.1 200 OK\r\n")
        assert response.endswith(b"\r\n\r\n{" + f'"answer":{n}'.encode() + b"}")
    protocol.connection_lost(None)
    assert transport.calls[-1] == "close"


# The request timeout -------------------------------------------------------------------------

TIMEOUT = 0.05


async def _read_whole_body(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app that reads the whole body before it answers, as the RPC handlers do."""
    more = True
    while more:
        event = await receive()
        if event["type"] == "http.disconnect":
            return
        more = event.get("more_body", False)
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def _timed_protocol(
    loop: asyncio.AbstractEventLoop, seconds: float = TIMEOUT, app: Any = _read_whole_body
) -> CoalescingHttpToolsProtocol:
    config = uvicorn.Config(app, log_config=None, access_log=False, timeout_keep_alive=5)
    return with_request_timeout(seconds)(config, ServerState(), {}, _loop=loop)


def _connected(
    sent: bytes = b"", seconds: float = TIMEOUT, app: Any = _read_whole_body
) -> tuple[CoalescingHttpToolsProtocol, RecordingTransport]:
    """A protocol with the request timeout ``seconds``, connected, that has received ``sent``."""
    protocol = _timed_protocol(asyncio.get_running_loop(), seconds, app)
    transport = RecordingTransport()
    protocol.connection_made(transport)
    if sent:
        protocol.data_received(sent)
    return protocol, transport


def _timeouts() -> float:
    return REGISTRY.get_sample_value("hanafuda_http_request_timeouts_total") or 0.0


async def _past_the_timeout() -> None:
    await asyncio.sleep(TIMEOUT * 3)


async def test_a_connection_that_sends_nothing_is_closed_without_an_answer() -> None:
    before = _timeouts()
    _, transport = _connected()
    await _past_the_timeout()
    assert transport.calls == ["close"]
    assert transport.writes == []
    assert _timeouts() == before + 1


async def test_a_head_that_does_not_arrive_in_time_is_answered_408() -> None:
    _, transport = _connected(b"GET /v1/rules/presets HTTP/1.1\r\nhost: x\r\n")
    await _past_the_timeout()
    _assert_answered_and_closed(transport, b"408 Request Timeout")


async def test_a_body_that_does_not_arrive_in_time_closes_the_connection() -> None:
    protocol, transport = _connected(
        b"POST /v1/games HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"
    )
    await _past_the_timeout()
    # The application holds the request: the connection is closed, and no answer is made up
    # beside the application's.
    assert transport.calls == ["close"]
    assert transport.writes == []
    protocol.connection_lost(None)
    await asyncio.sleep(0)
    assert transport.writes == []  # the application saw a disconnect and answered nothing


async def test_requests_in_time_keep_their_connection_and_each_gets_its_own_time() -> None:
    protocol, transport = _connected(
        b"POST /one HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
    )
    await _past_the_timeout()  # the keep-alive timeout (5 s) governs the silence after it
    assert transport.calls == []
    assert [w[:12] for w in transport.writes] == [b"HTTP/1.1 204"]
    # A later request has the whole time from its first byte, however long the silence was.
    protocol.data_received(b"POST /two HTTP/1.1\r\nhost: x\r\n")
    await asyncio.sleep(TIMEOUT / 2)
    protocol.data_received(b"content-length: 2\r\n\r\n{}")
    await _past_the_timeout()
    assert transport.calls == []
    assert [w[:12] for w in transport.writes] == [b"HTTP/1.1 204"] * 2
    protocol.connection_lost(None)


async def test_a_request_begun_before_an_earlier_deadline_has_its_own() -> None:
    # One timer per connection: armed for the connection's opening, it fires while a later
    # request is under way, and must then wait for that request's own deadline.
    seconds = 0.2
    protocol, transport = _connected(
        b"POST /one HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}", seconds=seconds
    )
    await asyncio.sleep(seconds * 0.6)
    protocol.data_received(b"GET /two HTTP/1.1\r\n")
    await asyncio.sleep(seconds * 0.6)  # past the first deadline, within the second
    assert transport.calls == []
    await asyncio.sleep(seconds)
    assert transport.calls == ["close"]
    assert transport.writes[-1].startswith(b"HTTP/1.1 408 Request Timeout\r\n")


async def test_the_timer_ends_with_the_connection() -> None:
    before = _timeouts()
    protocol, transport = _connected(b"GET / HTTP/1.1\r\n")
    protocol.connection_lost(None)
    await _past_the_timeout()
    assert transport.writes == []
    assert _timeouts() == before


async def test_a_timeout_of_zero_sets_no_limit() -> None:
    protocol, transport = _connected(b"GET / HTTP/1.1\r\n", seconds=0)
    await _past_the_timeout()
    assert transport.calls == []
    protocol.connection_lost(None)


def test_a_negative_timeout_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        with_request_timeout(-1)


# The head's size limit -----------------------------------------------------------------------

#: The service's default request timeout: a head that is too long must not wait for it.
SERVICE_TIMEOUT = 10.0
GET = b"GET /x HTTP/1.1\r\nhost: x\r\n"


class Recorder:
    """An ASGI app that notes the path of each request it sees, and answers it 204."""

    def __init__(self) -> None:
        self.paths: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.paths.append(scope["path"])
        await _read_whole_body(scope, receive, send)


def _head(size: int, start: bytes = GET) -> bytes:
    """A request head of exactly ``size`` bytes: ``start`` and a padding header."""
    padding = size - len(start) - len(b"x-pad: \r\n\r\n")
    return start + b"x-pad: " + b"a" * padding + b"\r\n\r\n"


def _pieces(data: bytes, count: int) -> list[bytes]:
    size = -(-len(data) // count)
    return [data[i : i + size] for i in range(0, len(data), size)]


def _oversized_heads() -> float:
    return REGISTRY.get_sample_value("hanafuda_http_oversized_heads_total") or 0.0


async def _turns() -> None:
    """Lets the application answer what it was given (a few turns of the loop)."""
    for _ in range(10):
        await asyncio.sleep(0)


def _assert_answered_and_closed(transport: RecordingTransport, status: bytes) -> None:
    """The connection was answered with ``status`` (a whole answer saying it closes) and
    closed."""
    assert transport.calls == ["close"]
    (answer,) = transport.writes
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 " + status + b"\r\n")
    assert b"connection: close" in head
    assert f"content-length: {len(body)}".encode() in head


def _assert_refused(transport: RecordingTransport) -> None:
    """The connection was answered 431 and closed."""
    _assert_answered_and_closed(transport, b"431 Request Header Fields Too Large")


@pytest.mark.parametrize("reads", [1, 7])
async def test_a_head_at_the_limit_is_served(reads: int) -> None:
    app = Recorder()
    protocol, transport = _connected(seconds=SERVICE_TIMEOUT, app=app)
    for piece in _pieces(_head(MAX_HEAD_BYTES), reads):
        protocol.data_received(piece)
    await _turns()
    assert app.paths == ["/x"]
    assert [w[:12] for w in transport.writes] == [b"HTTP/1.1 204"]
    assert transport.calls == []
    protocol.connection_lost(None)


async def test_a_body_in_the_same_read_as_its_head_is_not_counted_as_head() -> None:
    app = Recorder()
    start = b"POST /x HTTP/1.1\r\nhost: x\r\ncontent-length: 4096\r\n"
    protocol, transport = _connected(seconds=SERVICE_TIMEOUT, app=app)
    protocol.data_received(_head(MAX_HEAD_BYTES, start) + b"b" * 4096)
    await _turns()
    assert app.paths == ["/x"]
    assert [w[:12] for w in transport.writes] == [b"HTTP/1.1 204"]
    protocol.connection_lost(None)


@pytest.mark.parametrize("reads", [1, 7])
async def test_a_head_one_byte_past_the_limit_is_answered_431(reads: int) -> None:
    before = _oversized_heads()
    app = Recorder()
    protocol, transport = _connected(seconds=SERVICE_TIMEOUT, app=app)
    for piece in _pieces(_head(MAX_HEAD_BYTES + 1), reads):
        protocol.data_received(piece)
    _assert_refused(transport)
    await _turns()
    assert app.paths == []
    assert _oversized_heads() == before + 1


async def test_a_header_streamed_past_the_limit_is_answered_431_and_closed_at_once() -> None:
    before = _oversized_heads()
    app = Recorder()
    protocol, transport = _connected(GET + b"x-endless: ", seconds=SERVICE_TIMEOUT, app=app)
    sent = len(GET + b"x-endless: ")
    while not transport.closing:
        assert sent <= MAX_HEAD_BYTES  # refused by the read that passes the limit
        protocol.data_received(b"a" * 1000)
        sent += 1000
    # Closed within that read, before the loop ever turned: not by the request timeout.
    _assert_refused(transport)
    await _turns()
    assert app.paths == []
    assert _oversized_heads() == before + 1


@pytest.mark.parametrize("reads", [1, 50])
async def test_a_request_line_past_the_limit_is_answered_431(reads: int) -> None:
    before = _oversized_heads()
    app = Recorder()
    protocol, transport = _connected(seconds=SERVICE_TIMEOUT, app=app)
    request = b"GET /" + b"a" * MAX_HEAD_BYTES + b" HTTP/1.1\r\nhost: x\r\n\r\n"
    for piece in _pieces(request, reads):
        if not transport.closing:
            protocol.data_received(piece)
    _assert_refused(transport)
    await _turns()
    assert app.paths == []
    assert _oversized_heads() == before + 1


@pytest.mark.parametrize("one_read", [False, True])
async def test_each_request_on_a_kept_alive_connection_has_its_own_allowance(
    one_read: bool,
) -> None:
    app = Recorder()
    protocol, transport = _connected(seconds=SERVICE_TIMEOUT, app=app)
    first = _head(40 * 1024, b"GET /1 HTTP/1.1\r\nhost: x\r\n")
    second = _head(40 * 1024, b"GET /2 HTTP/1.1\r\nhost: x\r\n")
    if one_read:  # pipelined: the second head begins inside the read that ends the first
        protocol.data_received(first + second)
    else:
        protocol.data_received(first)
        await _turns()
        protocol.data_received(second)
    await _turns()
    assert app.paths == ["/1", "/2"]
    assert [w[:12] for w in transport.writes] == [b"HTTP/1.1 204"] * 2
    assert "close" not in transport.calls  # (a pipelined request pauses reading meanwhile)
    protocol.connection_lost(None)


async def test_a_head_past_the_limit_behind_an_unanswered_request_only_closes() -> None:
    answered = asyncio.Event()

    async def slow(scope: Any, receive: Any, send: Any) -> None:
        await answered.wait()
        await _read_whole_body(scope, receive, send)

    protocol, transport = _connected(GET + b"\r\n", seconds=SERVICE_TIMEOUT, app=slow)
    await _turns()
    protocol.data_received(_head(MAX_HEAD_BYTES + 1))
    # A 431 now would be read as the first request's answer.
    assert transport.calls == ["close"]
    assert transport.writes == []
    protocol.connection_lost(None)
    answered.set()
    await _turns()
    assert transport.writes == []
