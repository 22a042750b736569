"""Redis going away under a running service process, mid-game, and coming back.

The process's games live in a private redis-server (an fsync'ed append-only file, so a stop and a
start on the same port keep the data), which the tests hang (SIGSTOP: connections are accepted
and never answered) or stop outright. Meanwhile every hosted-game method fails fast with
``UNAVAILABLE`` on both transports, readiness turns off while liveness stays on, and the process
lives on; once Redis is back the game resumes where it was, without restarting the process, and
is played to its end, which must replay exactly.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from hanafuda.v1 import game_pb2, service_pb2

from hanafuda_referee.grpc.server import SERVICE_NAME
from tests.service.conftest import seeded_request
from tests.store.servers import REDIS_SERVER, ServerProcess, free_port

from .clients import Client, Refused, connect, expected_status, refusal_of, submission
from .playing import play
from .processes import RefereeProcess
from .replay import Accepted, assert_replays

pytestmark = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")

#: The longest a call may take to fail while Redis is away: the store gives up on an operation
#: after 2 s at most (1 s without a reply on an open connection), plus slack for a loaded host.
FAST = 3.5
#: How long Redis may take to be seen again once it is back.
RECOVERY = 30.0
#: The methods the outage is checked on.
METHODS = ("GetGame", "SubmitMove", "CreateGame", "GetGameLog")


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A private redis-server that survives a restart with its data."""
    server = ServerProcess(
        tmp_path / "redis", free_port(), extra=["--appendonly", "yes", "--appendfsync", "always"]
    )
    server.start()
    try:
        yield server
    finally:
        if server.process is not None and server.process.poll() is None:
            os.kill(server.process.pid, signal.SIGCONT)  # in case a test failed while it hung
        server.stop()


@pytest.fixture
def private_referee(tmp_path: Path, redis_server: ServerProcess) -> Iterator[RefereeProcess]:
    """A service process whose only store is the private server."""
    env = {"REDIS_URL": redis_server.url, "HANAFUDA_KEY_PREFIX": "outage:"}
    with RefereeProcess(tmp_path / "referee", env=env) as process:
        yield process


async def timed(call: Awaitable[Any]) -> tuple[Refused, float]:
    """Awaits ``call``, which must be refused; returns the refusal and the seconds it took."""
    started = time.monotonic()
    error = await refusal_of(call)
    return error, time.monotonic() - started


async def probe(path: str, process: RefereeProcess) -> tuple[httpx.Response, float]:
    """GET ``path`` of the process's HTTP port: the response and the seconds it took."""
    started = time.monotonic()
    async with httpx.AsyncClient(base_url=process.http_url, timeout=30.0) as http:
        response = await http.get(path)
    return response, time.monotonic() - started


def call(
    client: Client,
    method: str,
    game: str,
    token: str,
    pending: service_pb2.SubmitMoveRequest,
) -> Awaitable[Any]:
    """One call of ``method`` on the game, as the seat on turn."""
    match method:
        case "GetGame":
            return client.view(game, token)
        case "SubmitMove":
            return client.submit_request(pending, token)
        case "CreateGame":
            return client.create(seeded_request(seed=1, rounds=1))
        case "GetGameLog":
            return client.log(game, token)
    raise AssertionError(method)


async def assert_unavailable(
    process: RefereeProcess,
    clients: list[Client],
    game: str,
    tokens: list[str],
    view: game_pb2.GameView,
    pending: service_pb2.SubmitMoveRequest,
) -> None:
    """Every method on both transports fails fast with UNAVAILABLE; readiness is off, liveness
    on, the process alive."""
    token = tokens[view.turn]
    for client in clients:
        for method in METHODS:
            error, elapsed = await timed(call(client, method, game, token, pending))
            assert error.reason == "UNAVAILABLE", (client.label, method, error)
            assert error.status == expected_status(client.transport, "UNAVAILABLE")
            assert elapsed < FAST, f"{method} over {client.label} took {elapsed:.2f} s to fail"

    ready, elapsed = await probe("/readyz", process)
    assert ready.status_code == 503 and elapsed < FAST, (ready.status_code, elapsed)
    assert ready.json()["error"]["details"][0]["reason"] == "UNAVAILABLE"
    live, elapsed = await probe("/healthz", process)
    assert live.status_code == 200 and elapsed < FAST
    # gRPC health: the overall status is liveness (the process still serves), the referee's
    # service name is readiness and follows the store within its check period.
    assert await grpc_health(process, "") == health_pb2.HealthCheckResponse.SERVING
    await wait_grpc_health(process, health_pb2.HealthCheckResponse.NOT_SERVING)
    assert process.process is not None and process.process.poll() is None


async def grpc_health(process: RefereeProcess, service: str) -> int:
    """The gRPC health status of ``service`` ("" for the whole server)."""
    async with grpc.aio.insecure_channel(process.grpc_target) as channel:
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=service), timeout=FAST
        )
    status: int = answer.status
    return status


async def wait_grpc_health(process: RefereeProcess, status: int) -> None:
    """Waits until the referee service's gRPC health is ``status``."""
    deadline = time.monotonic() + RECOVERY
    while await grpc_health(process, SERVICE_NAME) != status:
        assert time.monotonic() < deadline, f"gRPC readiness did not turn {status}"
        await asyncio.sleep(0.05)


async def wait_ready(process: RefereeProcess) -> None:
    """Waits until ``/readyz`` answers 200 and the gRPC readiness is SERVING again."""
    deadline = time.monotonic() + RECOVERY
    while (await probe("/readyz", process))[0].status_code != 200:
        assert time.monotonic() < deadline, "the service did not see Redis come back"
        await asyncio.sleep(0.05)
    await wait_grpc_health(process, health_pb2.HealthCheckResponse.SERVING)


def assert_logged_unavailable(process: RefereeProcess) -> None:
    """The outage is in the canonical lines of both transports, and nothing crashed."""
    records = process.log_records()
    unavailable = {
        (r["method"], r["transport"])
        for r in records
        if r.get("event") == "request" and r.get("reason") == "UNAVAILABLE"
    }
    assert unavailable >= {(m, t) for m in METHODS for t in ("http", "grpc")}, unavailable
    assert not [r for r in records if r.get("outcome") == "error" or r.get("level") == "error"]


async def test_a_hung_redis_fails_fast_and_the_game_resumes(
    private_referee: RefereeProcess, redis_server: ServerProcess
) -> None:
    async with connect(private_referee) as clients:
        request = seeded_request(seed=4242, rounds=1)
        created = await clients[0].create(request)
        game, tokens = created.game, list(created.player_tokens)
        accepted: list[Accepted] = []
        view = await play(clients, game, tokens, accepted, moves=3, rng=random.Random(1))
        before = [await clients[1].view(game, token) for token in [*tokens, None]]
        move = before[view.turn].legal_moves[0]
        pending = submission(game, move, request_id="in-the-outage", expected_version=4)
        pid = private_referee.process.pid if private_referee.process else None

        assert redis_server.process is not None
        os.kill(redis_server.process.pid, signal.SIGSTOP)
        try:
            await assert_unavailable(private_referee, clients, game, tokens, view, pending)
        finally:
            os.kill(redis_server.process.pid, signal.SIGCONT)
        await wait_ready(private_referee)
        assert private_referee.process is not None and private_referee.process.pid == pid

        # A hung server may still run what was sent to it before the client gave up: the move
        # sent during the outage is either not made or made once. Retried with its request id,
        # it is made exactly once either way, and nothing else changed.
        now = await clients[1].view(game)
        assert now.version in (4, 5)
        if now.version == 4:
            assert [await clients[0].view(game, t) for t in [*tokens, None]] == before
        answer = await clients[1].submit_request(pending, tokens[view.turn])
        assert answer.version == 5
        assert await clients[0].submit_request(pending, tokens[view.turn]) == answer
        accepted.append(Accepted(view.turn, move, answer))

        final = await play(clients, game, tokens, accepted, rng=random.Random(2))
        assert final.status == game_pb2.GAME_STATUS_OVER
        await assert_replays(clients[0], game, tokens, request, accepted)
    assert_logged_unavailable(private_referee)


async def test_a_stopped_redis_fails_fast_and_the_game_resumes_after_a_restart(
    private_referee: RefereeProcess, redis_server: ServerProcess
) -> None:
    async with connect(private_referee) as clients:
        request = seeded_request(seed=5151, rounds=1)
        created = await clients[1].create(request)
        game, tokens = created.game, list(created.player_tokens)
        accepted: list[Accepted] = []
        view = await play(clients, game, tokens, accepted, moves=3, rng=random.Random(3))
        before = [await clients[0].view(game, token) for token in [*tokens, None]]
        log_before = await clients[0].log(game)
        move = before[view.turn].legal_moves[-1]
        pending = submission(game, move, request_id="in-the-outage", expected_version=4)
        pid = private_referee.process.pid if private_referee.process else None

        redis_server.stop()
        await assert_unavailable(private_referee, clients, game, tokens, view, pending)
        redis_server.start()
        await wait_ready(private_referee)
        assert private_referee.process is not None and private_referee.process.pid == pid

        # A server that was down ran nothing, and its append-only file kept everything: the
        # game is exactly as it was, on both transports.
        for client in clients:
            assert [await client.view(game, t) for t in [*tokens, None]] == before, client.label
            assert await client.log(game) == log_before, client.label
        answer = await clients[0].submit_request(pending, tokens[view.turn])
        assert answer.version == 5
        accepted.append(Accepted(view.turn, move, answer))

        final = await play(clients, game, tokens, accepted, rng=random.Random(4))
        assert final.status == game_pb2.GAME_STATUS_OVER
        await assert_replays(clients[1], game, tokens, request, accepted)
    assert_logged_unavailable(private_referee)
