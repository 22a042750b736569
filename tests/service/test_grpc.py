"""The gRPC transport: a real ``grpc.aio`` server on a free port, spoken to through the generated
stub; one game end to end on Redis, rich errors, the request size limit, health, reflection, and
the command's graceful shutdown in a subprocess."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
import pytest_asyncio
from google.protobuf.message import Message
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped]
    reflection_pb2,
    reflection_pb2_grpc,
)
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import game_pb2, moves_pb2, play_pb2, rules_pb2, service_pb2, service_pb2_grpc
from structlog.testing import capture_logs

from hanafuda_referee.calls.errors import DOMAIN
from hanafuda_referee.grpc import server as grpc_server
from hanafuda_referee.grpc.server import HARD_CAP_FACTOR, SERVICE_NAME, GrpcServer
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore
from tests.store.servers import free_port

from .conftest import cards, scripted_request, serving_grpc

PLAY, STOP = moves_pb2.MOVE_KIND_PLAY, moves_pb2.MOVE_KIND_STOP
#: The test servers' ``max_request_bytes``.
LIMIT = 64 * 1024


@pytest_asyncio.fixture
async def redis_channel(redis_referee: Referee) -> AsyncIterator[grpc.aio.Channel]:
    """A channel to a server whose games live in Redis."""
    async with serving_grpc(redis_referee, max_request_bytes=LIMIT) as (_, channel):
        yield channel


@pytest_asyncio.fixture
async def channel() -> AsyncIterator[grpc.aio.Channel]:
    """A channel to a server on the in-memory store."""
    referee = Referee(MemoryStore(), allow_testing=True)
    async with serving_grpc(referee, max_request_bytes=LIMIT) as (_, channel):
        yield channel


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def play(card: int) -> moves_pb2.Move:
    return moves_pb2.Move(kind=PLAY, card=cards([card])[0])


async def test_a_game_on_redis_end_to_end(redis_channel: grpc.aio.Channel) -> None:
    stub = service_pb2_grpc.RefereeServiceStub(redis_channel)
    created = await stub.CreateGame(scripted_request())
    game, (t0, t1) = created.game, created.player_tokens
    watch = stub.WatchGame(service_pb2.WatchGameRequest(game=game))
    first = await watch.read()
    assert isinstance(first, service_pb2.WatchGameResponse)
    assert first.version == 1 and not first.view.hand

    for token, card in ((t0, 1), (t1, 37), (t0, 9), (t1, 45), (t0, 29)):
        answer = await stub.SubmitMove(
            service_pb2.SubmitMoveRequest(game=game, move=play(card)), metadata=bearer(token)
        )
    assert answer.view.waiting.kind == game_pb2.WAITING_FOR_KOIKOI_DECISION
    last = await stub.SubmitMove(
        service_pb2.SubmitMoveRequest(
            game=game, move=moves_pb2.Move(kind=STOP), request_id="stop-1"
        ),
        metadata=bearer(t0),
    )
    assert last.view.status == game_pb2.GAME_STATUS_OVER
    assert [s.score for s in last.view.seats] == [5, 0]
    retry = await stub.SubmitMove(
        service_pb2.SubmitMoveRequest(
            game=game, move=moves_pb2.Move(kind=STOP), request_id="stop-1"
        ),
        metadata=bearer(t0),
    )
    assert retry == last

    items: list[service_pb2.WatchGameResponse] = []
    while isinstance(item := await watch.read(), service_pb2.WatchGameResponse):
        items.append(item)
    assert [i.version for i in items] == list(range(2, 8))
    assert items[-1].view.status == game_pb2.GAME_STATUS_OVER

    seat_view = await stub.GetGame(service_pb2.GetGameRequest(game=game), metadata=bearer(t1))
    assert seat_view.view.viewer_seat == 1
    log = await stub.GetGameLog(service_pb2.GetGameLogRequest(game=game))
    assert len(log.deals) == 1 and log.HasField("seed")


async def test_errors_carry_the_reason_in_error_info(channel: grpc.aio.Channel) -> None:
    stub = service_pb2_grpc.RefereeServiceStub(channel)
    created = await stub.CreateGame(scripted_request())
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=play(1)),
            metadata=bearer("forged"),
        )
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
    status = rpc_status.from_call(info.value)
    assert status is not None and status.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
    error_info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(error_info)
    assert error_info.reason == "BAD_TOKEN" and error_info.domain == DOMAIN

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=play(1), expected_version=9),
            metadata=bearer(created.player_tokens[0]),
        )
    assert info.value.code() == grpc.StatusCode.ABORTED
    status = rpc_status.from_call(info.value)
    status.details[0].Unpack(error_info)
    assert error_info.reason == "STALE_VERSION"
    assert error_info.metadata["current_version"] == "1"

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.GetGame(service_pb2.GetGameRequest(game="NoSuchGame123"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND

    # A streaming call fails the same way.
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in stub.WatchGame(service_pb2.WatchGameRequest(game="NoSuchGame123")):
            pass
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    status = rpc_status.from_call(info.value)
    status.details[0].Unpack(error_info)
    assert error_info.reason == "UNKNOWN_GAME"

    # Oversized requests are refused by the transport before they reach the referee.
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.GetGame(service_pb2.GetGameRequest(game="x" * 100_000))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(info.value)
    status.details[0].Unpack(error_info)
    assert error_info.reason == "REQUEST_TOO_LARGE"


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def padded(message: Message, size: int) -> bytes:
    """``message`` serialized, then an unknown length-delimited field (number 999) that brings
    it to exactly ``size`` bytes: a valid request of that size, which proto3 parsers accept."""
    head = message.SerializeToString() + _varint(999 << 3 | 2)
    filler = size - len(head)
    while len(head) + len(_varint(filler)) + filler != size:
        filler -= 1
        assert filler >= 0, f"no padding makes {size} bytes"
    raw = head + _varint(filler) + b"\0" * filler
    assert len(raw) == size
    return raw


def raw_method(
    channel: grpc.aio.Channel, name: str, response: type[Message], *, streaming: bool = False
) -> Any:
    """A RefereeService method that takes the request's bytes as they are."""
    path = f"/{SERVICE_NAME}/{name}"
    make = channel.unary_stream if streaming else channel.unary_unary
    return make(path, request_serializer=None, response_deserializer=response.FromString)


def reason_of(error: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(error)
    assert status is not None, "no rich status"
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.domain == DOMAIN
    return str(info.reason)


async def test_requests_over_the_size_limit_are_refused_with_a_reason(
    channel: grpc.aio.Channel,
) -> None:
    list_presets = raw_method(channel, "ListPresets", service_pb2.ListPresetsResponse)
    request = service_pb2.ListPresetsRequest(kind=rules_pb2.GAME_KIND_KOI_KOI)
    answer = await list_presets(padded(request, LIMIT))
    assert answer.presets and answer.presets[0].kind == rules_pb2.GAME_KIND_KOI_KOI

    with capture_logs() as logs, pytest.raises(grpc.aio.AioRpcError) as info:
        await list_presets(padded(request, LIMIT + 1))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # Logged and counted like any refusal: one canonical line.
    lines = [line for line in logs if line["event"] == "request"]
    assert [(line["method"], line["outcome"], line["reason"]) for line in lines] == [
        ("ListPresets", "rejected", "REQUEST_TOO_LARGE")
    ]
    assert reason_of(info.value) == "REQUEST_TOO_LARGE"
    status = rpc_status.from_call(info.value)
    error_info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(error_info)
    assert error_info.metadata["max_request_bytes"] == str(LIMIT)

    # A server-streaming method: the same limit, the same refusal.
    game = (await service_pb2_grpc.RefereeServiceStub(channel).CreateGame(scripted_request())).game
    watch_request = service_pb2.WatchGameRequest(game=game)
    watch = raw_method(channel, "WatchGame", service_pb2.WatchGameResponse, streaming=True)
    stream = watch(padded(watch_request, LIMIT))
    first = await stream.read()
    assert isinstance(first, service_pb2.WatchGameResponse) and first.version == 1
    stream.cancel()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        async for _ in watch(padded(watch_request, LIMIT + 1)):
            pass
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(info.value) == "REQUEST_TOO_LARGE"


async def test_requests_past_the_hard_cap_are_cut_off_and_the_server_carries_on(
    channel: grpc.aio.Channel,
) -> None:
    list_presets = raw_method(channel, "ListPresets", service_pb2.ListPresetsResponse)
    request = service_pb2.ListPresetsRequest()
    # Up to the hard cap, our own refusal; past it grpc refuses without reading it all.
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await list_presets(padded(request, LIMIT * HARD_CAP_FACTOR))
    assert reason_of(info.value) == "REQUEST_TOO_LARGE"
    for size in (LIMIT * HARD_CAP_FACTOR + 1, 16 * 1024 * 1024):
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await list_presets(padded(request, size))
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # The connection and the server both still serve.
    assert (await list_presets(padded(request, 100))).presets
    health = health_pb2_grpc.HealthStub(channel)
    answer = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
    assert answer.status == health_pb2.HealthCheckResponse.SERVING


async def test_a_request_that_does_not_parse_is_bad_encoding(channel: grpc.aio.Channel) -> None:
    get_game = raw_method(channel, "GetGame", service_pb2.GetGameResponse)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await get_game(b"\xff\xff\xff")
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(info.value) == "BAD_ENCODING"
    assert "Wire format" not in (info.value.details() or "")  # no parser internals


@pytest.mark.parametrize(
    ("bots", "clock", "option"),
    [
        ([play_pb2.BOT_LEVEL_UNSPECIFIED, 7], None, "bots"),
        ([7], None, "bots"),
        ([], play_pb2.ClockOptions(move_seconds=30, timeout_bot=7), "timeout_bot"),  # type: ignore[arg-type]
    ],
    ids=["second-seat", "first-seat", "timeout-bot"],
)
async def test_an_unknown_bot_level_is_bad_option_value_wherever_it_is(
    channel: grpc.aio.Channel, bots: list[int], clock: play_pb2.ClockOptions | None, option: str
) -> None:
    # The same unknown value, the same reason: a seat's level was INVALID_ARGUMENT where the
    # clock's timeout bot was BAD_OPTION_VALUE, the reason of every other option's bad value.
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["a", "b"],
        bots=bots,  # type: ignore[arg-type]
        clock=clock,
    )
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await service_pb2_grpc.RefereeServiceStub(channel).CreateGame(request)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(info.value) == "BAD_OPTION_VALUE"
    status = rpc_status.from_call(info.value)
    error_info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(error_info)
    assert error_info.metadata["option"] == option
    assert "7" in (info.value.details() or "")


async def test_stateless_methods_over_grpc(channel: grpc.aio.Channel) -> None:
    stub = service_pb2_grpc.RefereeServiceStub(channel)
    presets = await stub.ListPresets(service_pb2.ListPresetsRequest())
    assert presets.presets[0].name == "fudawiki" and presets.presets[0].is_default
    score = await stub.ScoreKoiKoi(
        service_pb2.ScoreKoiKoiRequest(captured=cards([1, 9, 29]), round_month=5)
    )
    assert score.score.points == 5


async def test_health_and_reflection(channel: grpc.aio.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE_NAME):
        answer = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    call = reflection.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    )
    names = set()
    async for response in call:
        names |= {s.name for s in response.list_services_response.service}
    assert SERVICE_NAME in names and "grpc.health.v1.Health" in names


async def test_connections_without_a_call_are_closed_after_the_idle_timeout() -> None:
    referee = Referee(MemoryStore(), allow_testing=True)
    server = GrpcServer(referee, host="127.0.0.1", port=0, idle_timeout=0.3)
    port = await server.start()
    # A pool of its own per channel: one connection each.
    options = [("grpc.use_local_subchannel_pool", 1)]
    quiet = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options)
    watching = grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options)
    try:
        stub = service_pb2_grpc.RefereeServiceStub(quiet)
        created = await stub.CreateGame(scripted_request())
        stream = service_pb2_grpc.RefereeServiceStub(watching).WatchGame(
            service_pb2.WatchGameRequest(game=created.game)
        )
        first = await stream.read()
        assert isinstance(first, service_pb2.WatchGameResponse) and first.version == 1
        assert quiet.get_state() == watching.get_state() == grpc.ChannelConnectivity.READY

        async with asyncio.timeout(10):
            while quiet.get_state() == grpc.ChannelConnectivity.READY:
                await asyncio.sleep(0.05)
        assert quiet.get_state() == grpc.ChannelConnectivity.IDLE
        # A connection with a call in flight is not idle, however long the call.
        await asyncio.sleep(1.0)
        assert watching.get_state() == grpc.ChannelConnectivity.READY
        # The quiet client simply reconnects at its next call, and the watch goes on.
        await stub.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=play(1)),
            metadata=bearer(created.player_tokens[0]),
        )
        second = await stream.read()
        assert isinstance(second, service_pb2.WatchGameResponse) and second.version == 2
        stream.cancel()
    finally:
        await quiet.close()
        await watching.close()
        await server.stop(0)


async def test_the_command_serves_and_shuts_down_gracefully() -> None:
    grpc_port, http_port = free_port(), free_port()
    env = {
        **os.environ,
        "HANAFUDA_HOST": "127.0.0.1",
        "HANAFUDA_GRPC_PORT": str(grpc_port),
        "HANAFUDA_HTTP_PORT": str(http_port),
        "HANAFUDA_SHUTDOWN_GRACE": "2",
    }
    env.pop("REDIS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "hanafuda_referee.cli"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            deadline = time.monotonic() + 20
            while True:
                try:
                    answer = await health.Check(health_pb2.HealthCheckRequest(), timeout=1)
                    break
                except grpc.aio.AioRpcError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise
                    await asyncio.sleep(0.1)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            stub = service_pb2_grpc.RefereeServiceStub(channel)
            created = await stub.CreateGame(
                service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
            )
            assert created.view.version == 1
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, output.decode(errors="replace")
    text = output.decode(errors="replace")
    assert '"event": "request"' in text and '"method": "CreateGame"' in text
    assert '"event": "stopped"' in text
    # Tokens are never logged.
    for token in created.player_tokens:
        assert token not in text


async def test_a_stop_that_grpc_never_finishes_is_given_up_after_a_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # grpc's stop waits with no bound for the calls it cancelled at the grace's end, and
    # once in a while for ever (tests/system/shutdown_stress.py); the worker must go on.
    server = GrpcServer(Referee(MemoryStore()), host="127.0.0.1", port=0)
    await server.start()
    grpc_stop = server._server.stop

    async def never_stops(grace: float | None) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(server._server, "stop", never_stops)
    monkeypatch.setattr(grpc_server, "_CANCELLED_CALLS_WAIT", 0.2)
    started = time.monotonic()
    try:
        with capture_logs() as logs:
            await server.stop(0.1)
        assert time.monotonic() - started < 1.5
        (warned,) = [line for line in logs if "did not stop in time" in line["event"]]
        assert warned["log_level"] == "warning"
    finally:
        await grpc_stop(None)
