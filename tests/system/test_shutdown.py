"""SIGTERM with open streams: each stream gets its closing frame at once, the process exits
within a second or so, and a normal shutdown logs nothing at ERROR.

The process is given a long shutdown grace (10 s, the default): a server that waited for its
streams to end on their own would take all of it, and then cut them (a reset, not an end).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import httpx
import pytest
from hanafuda.v1 import service_pb2, service_pb2_grpc

from .conftest import redis_env
from .processes import RefereeProcess

#: The longest a stream may take to see its end after SIGTERM, and the process to exit.
STREAM_END = 1.0
PROCESS_EXIT = 1.5


@pytest.fixture
def long_grace_referee(tmp_path: Path, key_prefix: str) -> Iterator[RefereeProcess]:
    env = {**redis_env(key_prefix), "HANAFUDA_SHUTDOWN_GRACE": "10"}
    with RefereeProcess(tmp_path, env=env) as process:
        yield process


def _new_game(referee: RefereeProcess) -> str:
    answer = httpx.post(
        f"{referee.http_url}/v1/games",
        json={"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bob"]},
        timeout=5,
    )
    answer.raise_for_status()
    game: str = answer.json()["game"]
    return game


@dataclass
class _Watch:
    """What one stream saw: its frames, how it ended and when."""

    opened: threading.Event = field(default_factory=threading.Event)
    frames: list[str] = field(default_factory=list)
    ended_at: float | None = None
    failure: BaseException | None = None


def _follow_sse(url: str, seen: _Watch) -> None:
    try:
        with httpx.stream("GET", url, timeout=30) as answer:
            frame: list[str] = []
            for line in answer.iter_lines():
                if line:
                    frame.append(line)
                    continue
                seen.frames.append("\n".join(frame))
                frame = []
                seen.opened.set()
        seen.ended_at = time.monotonic()
    except BaseException as error:  # a reset: the body ended before its last chunk
        seen.ended_at = time.monotonic()
        seen.failure = error


def _follow_grpc(target: str, game: str, seen: _Watch) -> None:
    with grpc.insecure_channel(target) as channel:
        stream = service_pb2_grpc.RefereeServiceStub(channel).WatchGame(
            service_pb2.WatchGameRequest(game=game), timeout=30
        )
        try:
            for item in stream:
                seen.frames.append(f"version {item.version}")
                seen.opened.set()
        except grpc.RpcError as error:
            seen.failure = error
        seen.ended_at = time.monotonic()


def test_sigterm_ends_open_streams_with_a_closing_frame_and_exits_at_once(
    long_grace_referee: RefereeProcess,
) -> None:
    referee = long_grace_referee
    game = _new_game(referee)
    sse, rpc = _Watch(), _Watch()
    threads = [
        threading.Thread(
            target=_follow_sse, args=(f"{referee.http_url}/v1/games/{game}/events", sse)
        ),
        threading.Thread(target=_follow_grpc, args=(referee.grpc_target, game, rpc)),
    ]
    for thread in threads:
        thread.start()
    assert sse.opened.wait(10) and rpc.opened.wait(10), (sse, rpc)

    process = referee.process
    assert process is not None
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    for thread in threads:
        thread.join(10)
    try:
        status = process.wait(10)
    finally:
        exited = time.monotonic() - signalled

    # HTTP: the documented closing frame, then a body that ends properly (no reset).
    assert sse.failure is None, repr(sse.failure)
    closing = sse.frames[-1].splitlines()
    assert closing[0] == "event: error", sse.frames
    body = json.loads(closing[1].removeprefix("data: "))
    assert body["error"]["code"] == 503 and body["error"]["status"] == "UNAVAILABLE", body
    (info,) = body["error"]["details"]
    assert info["reason"] == "UNAVAILABLE" and info["metadata"] == {"cause": "shutdown"}, info
    assert sse.ended_at is not None and sse.ended_at - signalled < STREAM_END

    # gRPC: the stream ends with the same status, which the clients resume after.
    assert isinstance(rpc.failure, grpc.Call), repr(rpc.failure)
    assert rpc.failure.code() == grpc.StatusCode.UNAVAILABLE
    assert "shutting down" in (rpc.failure.details() or ""), rpc.failure.details()
    assert rpc.ended_at is not None and rpc.ended_at - signalled < STREAM_END

    assert status == 0
    assert exited < PROCESS_EXIT, exited
    records = referee.log_records()
    assert not [r for r in records if r.get("level") in ("error", "critical")], records
    assert records[-1]["event"] == "stopped"
    referee.process = None
