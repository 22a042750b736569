"""The harness itself: a server process starts, answers on both ports, logs JSON, stops cleanly."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from hanafuda.v1 import service_pb2, service_pb2_grpc

from tests.store.servers import private_server

from .processes import RefereeProcess


def test_a_process_serves_both_transports_and_stops_on_sigterm(referee: RefereeProcess) -> None:
    presets = httpx.get(f"{referee.http_url}/v1/rules/presets", timeout=5).json()
    with grpc.insecure_channel(referee.grpc_target) as channel:
        stub = service_pb2_grpc.RefereeServiceStub(channel)
        answer = stub.ListPresets(service_pb2.ListPresetsRequest(), timeout=5)
    assert len(presets["presets"]) == len(answer.presets) > 0
    started = {r.get("event"): r for r in referee.log_records()}
    # The fast paths the service counts on (both are dependencies): uvloop and httptools.
    assert started["grpc listening"]["event_loop"] == "uvloop"
    assert started["http listening"]["parser"] == "httptools"
    assert referee.stop() == 0
    assert any(r.get("event") == "stopped" for r in referee.log_records())


def _json_lines(process: RefereeProcess) -> list[dict[str, Any]]:
    """The process's JSON lines, leaving out the text grpc's C core writes on a failed bind."""
    return [json.loads(line) for line in process.log_text().splitlines() if line.startswith("{")]


def test_a_grpc_port_in_use_is_refused_at_start_not_shared(
    referee: RefereeProcess, tmp_path: Path
) -> None:
    # grpc binds with SO_REUSEPORT by default: a second process on the same port would take
    # half of the first one's calls.
    second = RefereeProcess(tmp_path, name="second")
    second.grpc_port = referee.grpc_port
    assert second.exit_status_at_start() == 1
    (refused,) = [r for r in _json_lines(second) if r.get("event") == "cannot listen"]
    assert refused["transport"] == "grpc" and refused["port"] == referee.grpc_port
    assert refused["level"] == "error"
    assert not any("listening" in str(r.get("event")) for r in _json_lines(second))
    with grpc.insecure_channel(referee.grpc_target) as channel:
        stub = service_pb2_grpc.RefereeServiceStub(channel)
        for _ in range(20):  # with a shared port, some would have reached the second process
            stub.ListPresets(service_pb2.ListPresetsRequest(), timeout=5)
    assert referee.stop() == 0


def test_an_http_port_in_use_is_refused_at_start_with_a_json_line(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        process = RefereeProcess(tmp_path)
        process.http_port = taken.getsockname()[1]
        assert process.exit_status_at_start() == 1
    records = process.log_records()  # every line JSON: nothing from uvicorn in plain text
    assert [r["event"] for r in records] == ["cannot listen"]
    assert records[0]["transport"] == "http" and records[0]["port"] == process.http_port


def test_the_test_harness_starts_again_on_new_ports_when_one_was_taken(tmp_path: Path) -> None:
    # Ports are drawn before the start; a parallel test may bind one in between.
    with socket.create_server(("127.0.0.1", 0)) as taken:
        process = RefereeProcess(tmp_path)
        process.http_port = taken.getsockname()[1]
        with process:
            assert process.http_port != taken.getsockname()[1]
            assert httpx.get(f"{process.http_url}/readyz", timeout=5).status_code == 200
    assert process.log_records()[0]["event"] == "cannot listen"


def test_library_warnings_are_json_lines_too(referee: RefereeProcess) -> None:
    with socket.create_connection(("127.0.0.1", referee.http_port), timeout=5) as connection:
        connection.sendall(b"NOT HTTP\r\n\r\n")
        assert connection.recv(64).startswith(b"HTTP/1.1 400")
    deadline = time.monotonic() + 5
    while True:
        warned = [r for r in referee.log_records() if r.get("logger") == "uvicorn.error"]
        if warned or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [(r["event"], r["level"]) for r in warned] == [
        ("Invalid HTTP request received.", "warning")
    ]


@pytest.mark.parametrize(
    ("redis_flags", "warned"),
    [
        ([], []),
        (
            ["--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"],
            [
                "maxmemory-policy allkeys-lru under a memory limit may evict games in progress:"
                " use noeviction"
            ],
        ),
    ],
)
def test_a_redis_the_referee_cannot_rely_on_is_named_at_start_up(
    tmp_path: Path, redis_flags: list[str], warned: list[str]
) -> None:
    with (
        private_server(tmp_path / "redis", redis_flags) as redis,
        RefereeProcess(tmp_path, env={"REDIS_URL": redis.url}) as process,
    ):
        pass
    said = [r["problem"] for r in process.log_records() if r["event"] == "game store misconfigured"]
    assert said == warned
    assert all(r["level"] == "warning" for r in process.log_records() if "problem" in r)
