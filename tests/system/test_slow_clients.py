"""Clients that connect and then take their time: a request must arrive whole within the
request timeout (HTTP), and an HTTP/2 session must open within it (gRPC), or the connection is
closed; clients that are quick enough, a kept-alive connection's silence between requests and
a live event stream are not cut. A request head that is too long is refused at once."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from hanafuda_referee.http.protocol import MAX_HEAD_BYTES

from .conftest import own_referee
from .processes import RefereeProcess

#: The request timeout the server runs with, in seconds.
TIMEOUT = 1.0
#: How long a test waits for the server to act on the timeout before giving up.
PATIENCE = TIMEOUT + 4.0


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    with own_referee(
        tmp_path_factory.mktemp("strict"), flags=["--request-timeout", str(TIMEOUT)]
    ) as process:
        yield process


def _connect(port: int, sent: bytes = b"") -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    if sent:
        connection.sendall(sent)
    return connection


def _timeouts(process: RefereeProcess) -> float:
    return process.metric("hanafuda_http_request_timeouts_total")


def _until_closed(connection: socket.socket) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    started = time.monotonic()
    received = b""
    with connection:
        while chunk := connection.recv(4096):
            received += chunk
    return received, time.monotonic() - started


def test_http_connections_that_do_not_send_a_whole_request_in_time_are_closed(
    strict: RefereeProcess,
) -> None:
    port = strict.http_port
    before = _timeouts(strict)
    idle = [_connect(port) for _ in range(50)]
    partial_head = _connect(port, b"GET /v1/rules/presets HTTP/1.1\r\nhost: x\r\n")
    partial_body = _connect(
        port,
        b"POST /v1/games HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"x-request-id: slow-body-1\r\ncontent-length: 100\r\n\r\n{",
    )

    for connection in idle:
        received, waited = _until_closed(connection)
        assert received == b"" and waited < PATIENCE
    received, _ = _until_closed(partial_head)
    assert received.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    received, _ = _until_closed(partial_body)
    assert received == b""  # the application held the request; nothing was made up for it

    assert _timeouts(strict) == before + 52
    records = strict.log_records()
    (gone,) = [r for r in records if r.get("request_id") == "slow-body-1"]
    assert (gone["method"], gone["outcome"]) == ("CreateGame", "cancelled")
    assert not [r for r in records if r.get("level") in ("error", "critical")]


def test_quick_requests_and_the_silence_between_them_are_not_cut(strict: RefereeProcess) -> None:
    request = b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n"
    with _connect(strict.http_port, request) as connection:
        assert connection.recv(4096).startswith(b"HTTP/1.1 200 OK")
        # Longer than the request timeout, shorter than the keep-alive timeout (5 s).
        time.sleep(TIMEOUT * 1.5)
        # The next request trickles in, but arrives whole in time.
        for part in (request[:10], request[10:25], request[25:]):
            connection.sendall(part)
            time.sleep(TIMEOUT / 5)
        assert connection.recv(4096).startswith(b"HTTP/1.1 200 OK")


def test_an_event_stream_outlives_the_request_timeout(strict: RefereeProcess) -> None:
    base = strict.http_url
    created = httpx.post(
        f"{base}/v1/games",
        json={"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"], "seed": "5"},
        timeout=5,
    ).json()
    game, tokens = created["game"], created["playerTokens"]
    with (
        httpx.Client(timeout=PATIENCE) as client,
        client.stream("GET", f"{base}/v1/games/{game}/events") as stream,
    ):
        lines = stream.iter_lines()
        versions = (json.loads(line[5:])["version"] for line in lines if line.startswith("data:"))
        assert next(versions) == "1"
        time.sleep(TIMEOUT * 1.5)
        turn = created["view"]["turn"]
        seat = {"Authorization": f"Bearer {tokens[turn]}"}
        view = httpx.get(f"{base}/v1/games/{game}", headers=seat, timeout=5).json()["view"]
        move = view["legalMoves"][0]
        answer = httpx.post(
            f"{base}/v1/games/{game}/moves", headers=seat, json={"move": move}, timeout=5
        )
        assert answer.status_code == 200
        assert next(versions) == "2"


def test_an_http_head_past_the_limit_is_answered_431_long_before_the_timeout(
    strict: RefereeProcess,
) -> None:
    before = strict.metric("hanafuda_http_oversized_heads_total")
    start = b"GET /healthz HTTP/1.1\r\nhost: x\r\nx-endless: "
    connection = _connect(strict.http_port, start)
    # One byte past the limit, streamed, and no more: bytes the server had not read when it
    # closed would make the close a reset, which may drop the answer before it is read here.
    left = MAX_HEAD_BYTES + 1 - len(start)
    while left:
        piece = min(left, 4096)
        connection.sendall(b"a" * piece)
        left -= piece
    received, waited = _until_closed(connection)
    assert received.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert waited < TIMEOUT / 2
    assert strict.metric("hanafuda_http_oversized_heads_total") == before + 1


def test_grpc_connections_that_do_not_open_a_session_in_time_are_closed(
    strict: RefereeProcess,
) -> None:
    for sent in (b"", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"):  # nothing; the preface alone
        _, waited = _until_closed(_connect(strict.grpc_port, sent))
        assert waited < PATIENCE
