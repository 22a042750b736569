"""``--workers``: several serving processes on the same ports, over one Redis.

A real ``hanafuda-referee --workers 2`` process: both workers serve (their log lines name them),
a game created through one is played through both, ``/metrics`` adds up what both served, and
SIGTERM stops every process of the group. The in-process store refuses workers.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from hanafuda.v1 import game_pb2, service_pb2, service_pb2_grpc

from tests.service.conftest import seeded_request

from .clients import Client, GrpcClient, HttpClient
from .conftest import redis_env
from .playing import play
from .processes import RefereeProcess
from .replay import Accepted

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="Linux only")


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        match = re.search(r"^PPid:\s+(\d+)$", status, flags=re.MULTILINE)
        if match and int(match.group(1)) == pid:
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: it has exited)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return not re.search(r"^State:\s+Z", status, flags=re.MULTILINE)


def _wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def _lines(process: RefereeProcess, event: str) -> list[dict[str, Any]]:
    return [r for r in process.log_records() if r.get("event") == event]


def _worker_pids(process: RefereeProcess) -> dict[int, int]:
    """Each worker's pid, by index, as its latest ``http listening`` line says."""
    return {line["worker"]: line["pid"] for line in _lines(process, "http listening")}


async def _served_by(process: RefereeProcess, client: Client) -> int:
    """The worker that serves ``client``'s connection: the one whose line has the request id
    of a call made through it."""
    request_id = uuid.uuid4().hex
    request = service_pb2.ListPresetsRequest()
    if isinstance(client, HttpClient):
        answer = await client.http.get("/v1/rules/presets", headers={"x-request-id": request_id})
        assert answer.status_code == 200
    else:
        assert isinstance(client, GrpcClient)
        await client.stub.ListPresets(request, metadata=[("x-request-id", request_id)])
    for _ in range(200):
        for line in _lines(process, "request"):
            if line["request_id"] == request_id:
                return int(line["worker"])
        await asyncio.sleep(0.05)
    raise AssertionError("the request's line never came")


async def _one_per_worker(
    process: RefereeProcess, stack: AsyncExitStack, kind: type[Client], workers: int
) -> dict[int, Client]:
    """A client (a connection of its own) served by each worker: new connections until every
    worker has one (the kernel spreads them at random)."""
    found: dict[int, Client] = {}
    for _ in range(64):
        client = kind(process)
        stack.push_async_callback(client.aclose)
        worker = await _served_by(process, client)
        found.setdefault(worker, client)
        if len(found) == workers:
            return found
    raise AssertionError(f"64 connections reached only the workers {sorted(found)}")


class _OwnGrpcConnection(GrpcClient):
    """A gRPC client on a connection of its own: grpc's channels of one process to one target
    otherwise share one connection (its global subchannel pool), hence one worker."""

    def __init__(self, process: RefereeProcess) -> None:
        Client.__init__(self, process)
        self.channel = grpc.aio.insecure_channel(
            process.grpc_target, options=[("grpc.use_local_subchannel_pool", 1)]
        )
        self.stub = service_pb2_grpc.RefereeServiceStub(self.channel)


def _counted(client: Client, calls: list[str]) -> None:
    """Count every call made through ``client`` in ``calls``."""
    call = client.call

    async def counting(method: str, *args: Any, **options: Any) -> Any:
        calls.append(method)
        return await call(method, *args, **options)

    client.call = counting  # type: ignore[method-assign]


def _requests_served(process: RefereeProcess) -> float:
    """The sum of every ``hanafuda_requests_total`` series ``/metrics`` serves."""
    text = httpx.get(f"{process.http_url}/metrics", timeout=5).text
    values = re.findall(r"^hanafuda_requests_total\{[^}]*\} (\S+)$", text, flags=re.MULTILINE)
    return sum(float(value) for value in values)


@pytest.fixture
def workers(tmp_path: Path, key_prefix: str) -> Iterator[RefereeProcess]:
    with RefereeProcess(tmp_path, env=redis_env(key_prefix), flags=["--workers", "2"]) as process:
        _wait_for(lambda: len(_lines(process, "workers serving")) == 1)
        yield process


async def test_two_workers_serve_one_port_one_store_and_one_metrics_page(
    workers: RefereeProcess,
) -> None:
    supervisor = workers.process
    assert supervisor is not None
    pids = _worker_pids(workers)
    assert sorted(pids) == [0, 1] and len(set(pids.values())) == 2
    assert set(pids.values()) <= _children(supervisor.pid)

    async with AsyncExitStack() as stack:
        http = await _one_per_worker(workers, stack, HttpClient, 2)
        rpc = await _one_per_worker(workers, stack, _OwnGrpcConnection, 2)
        calls: list[str] = []
        clients = [http[0], rpc[1], http[1], rpc[0]]
        for client in clients:
            _counted(client, calls)
        created = await http[0].create(seeded_request(7, rounds=1))
        accepted: list[Accepted] = []
        view = await play(clients, created.game, created.player_tokens, accepted)
        assert view.status == game_pb2.GAME_STATUS_OVER
        assert len(accepted) > 10

    def game_moves() -> list[dict[str, Any]]:
        return [
            line
            for line in _lines(workers, "request")
            if line["method"] == "SubmitMove" and line.get("game") == created.game
        ]

    # A request's line may reach the file just after its answer reached the client.
    _wait_for(lambda: len(game_moves()) >= len(accepted), timeout=5)
    moves = game_moves()
    assert len(moves) == len(accepted)
    assert {line["worker"] for line in moves} == {0, 1}  # one game, both workers
    assert all(line["outcome"] == "ok" for line in moves)

    # /metrics, whichever worker answers it (a connection of its own each time), adds up both
    # workers' requests: the calls counted, and the probes that found the workers.
    _wait_for(lambda: len(_lines(workers, "request")) >= len(calls) + 4, timeout=5)
    lines = len(_lines(workers, "request"))
    for _ in range(5):
        assert _requests_served(workers) == lines

    children = _children(supervisor.pid)
    (starting,) = _lines(workers, "starting workers")
    assert Path(starting["metrics_directory"]).is_dir()
    assert workers.stop() == 0
    assert not Path(starting["metrics_directory"]).exists()
    # The workers were waited for; multiprocessing's resource tracker, the supervisor's other
    # child, ends by itself once the supervisor has.
    assert not [pid for pid in pids.values() if _alive(pid)]
    _wait_for(lambda: not [pid for pid in children if _alive(pid)], timeout=5)
    stopped = {line["worker"] for line in _lines(workers, "stopped") if "worker" in line}
    assert stopped == {0, 1}
    assert _lines(workers, "workers stopped")[0]["exit_codes"] == [0, 0]


async def test_a_worker_that_dies_is_replaced(workers: RefereeProcess) -> None:
    pids = _worker_pids(workers)
    os.kill(pids[1], signal.SIGKILL)
    _wait_for(lambda: _worker_pids(workers)[1] != pids[1])
    (exited,) = _lines(workers, "worker exited")
    assert exited["worker"] == 1 and exited["pid"] == pids[1]
    assert exited["exit_code"] == -signal.SIGKILL
    assert _worker_pids(workers)[0] == pids[0]
    # The new worker serves: connections reach both again.
    async with AsyncExitStack() as stack:
        await _one_per_worker(workers, stack, HttpClient, 2)
    assert workers.stop() == 0


def test_a_killed_supervisor_takes_its_workers_with_it(workers: RefereeProcess) -> None:
    supervisor = workers.process
    assert supervisor is not None
    children = _children(supervisor.pid)
    assert set(_worker_pids(workers).values()) <= children
    supervisor.kill()
    supervisor.wait()
    _wait_for(lambda: not [pid for pid in children if _alive(pid)])
    # They also removed the metrics directory the supervisor could not.
    (starting,) = _lines(workers, "starting workers")
    assert not Path(starting["metrics_directory"]).exists()


def test_workers_without_redis_are_refused(tmp_path: Path) -> None:
    process = RefereeProcess(tmp_path, flags=["--workers", "2"])
    assert process.exit_status_at_start() == 2
    assert "need a shared store: set a Redis URL" in process.log_text()


def test_a_port_in_use_stops_the_workers_at_start(tmp_path: Path, key_prefix: str) -> None:
    process = RefereeProcess(tmp_path, env=redis_env(key_prefix), flags=["--workers", "2"])
    with RefereeProcess(tmp_path, env=redis_env(key_prefix), name="first") as first:
        process.grpc_port = first.grpc_port
        assert process.exit_status_at_start() == 1
    (refused,) = _lines(process, "cannot listen")
    assert refused["transport"] == "grpc" and refused["port"] == first.grpc_port
    assert not _lines(process, "starting workers")
