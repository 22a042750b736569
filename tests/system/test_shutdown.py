"""SIGTERM with open streams: each stream gets its closing frame at once, the process exits
within a second or so, and a normal shutdown logs nothing at ERROR.

The process is given a long shutdown grace (10 s, the default): a server that waited for its
streams to end on their own would take all of it, and then cut them (a reset, not an end).
With ``--workers 2``, every worker stops by itself, start after start (a short run of
``shutdown_stress.py``), and a worker the supervisor has to kill is logged and fails its exit
status.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from hanafuda.v1 import service_pb2, service_pb2_grpc

from .conftest import redis_env
from .processes import RefereeProcess
from .shutdown_stress import run_cycle

#: The longest a stream may take to see its end after SIGTERM, and the process to exit.
STREAM_END = 1.0
PROCESS_EXIT = 1.5
#: Starts and stops of a group of workers in the suite (the stress script runs more).
CYCLES = 6
#: The longest a group of two workers and a bot worker may take to stop (a worker killed after
#: its grace would take 12 s at least).
GROUP_STOP = 5.0
#: The supervisor's exit status when it had to kill a worker at stop (docs/observability.md).
KILLED_STATUS = 3


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


def test_a_group_of_workers_stops_cleanly_again_and_again(tmp_path: Path) -> None:
    # A short run of the stress script (``python -m tests.system.shutdown_stress`` for a long
    # one): each start and stop with streams, waits and calls in flight, one in five stopped
    # before every worker serves.
    rng = random.Random(36)
    for index in range(CYCLES):
        cycle = run_cycle(tmp_path, index, rng)
        assert cycle.clean, (cycle, cycle.stacks)
        assert cycle.stop_seconds < GROUP_STOP, cycle


def _worker_pids(process: RefereeProcess) -> dict[int, int]:
    return {
        r["worker"]: r["pid"]
        for r in process.log_records()
        if r.get("event") == "http listening" and "worker" in r
    }


def test_a_worker_the_supervisor_had_to_kill_is_logged_and_fails_the_exit_status(
    tmp_path: Path, key_prefix: str
) -> None:
    env = {**redis_env(key_prefix), "HANAFUDA_SHUTDOWN_GRACE": "0.5"}
    with RefereeProcess(tmp_path, env=env, flags=["--workers", "2"]) as group:
        deadline = time.monotonic() + 60
        while len(_worker_pids(group)) < 2:
            assert time.monotonic() < deadline, group.log_text()
            time.sleep(0.05)
        stuck = _worker_pids(group)[1]
        # A stopped process cannot act on SIGTERM: it stands for a worker that hangs.
        os.kill(stuck, signal.SIGSTOP)
        assert group.stop(timeout=40) == KILLED_STATUS
    records = group.log_records()
    (killed,) = [r for r in records if r.get("event") == "worker killed"]
    assert killed["level"] == "error"
    assert (killed["worker"], killed["pid"], killed["exit_code"]) == (1, stuck, -signal.SIGKILL)
    (stopped,) = [r for r in records if r.get("event") == "workers stopped"]
    assert stopped["exit_codes"] == [0, -signal.SIGKILL]
    assert stopped["killed"] == [1]


def test_workers_signalled_while_they_start_stop_gracefully(
    tmp_path: Path, key_prefix: str
) -> None:
    # SIGTERM while the workers import and open their ports, before any could install its
    # handlers: they used to die of it at once (exit code -15); each now stops as it would
    # once serving.
    group = RefereeProcess(tmp_path, env=redis_env(key_prefix), flags=["--workers", "2"])
    group._launch()
    process = group.process
    assert process is not None
    try:
        deadline = time.monotonic() + 30
        while not any(r.get("event") == "starting workers" for r in _records(group)):
            assert time.monotonic() < deadline, group.log_text()
            time.sleep(0.01)
        time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0, group.log_text()
    finally:
        group.stop()
    (stopped,) = [r for r in group.log_records() if r.get("event") == "workers stopped"]
    assert stopped["exit_codes"] == [0, 0]
    assert [r["worker"] for r in group.log_records() if r.get("event") == "stopped"] in (
        [0, 1],
        [1, 0],
    )


def _records(process: RefereeProcess) -> list[dict[str, Any]]:
    """The JSON lines written so far (the last may be half written)."""
    found = []
    for line in process.log_text().splitlines():
        with contextlib.suppress(ValueError):
            found.append(json.loads(line))
    return found
