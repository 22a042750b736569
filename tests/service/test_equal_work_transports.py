"""What a seat cannot see does not change the transports' work either.

:mod:`tests.service.test_equal_work` compares the hosted-games layer's work in twin games (the
same game as far as one seat sees, the cards it never sees shuffled). Here the same twins are
served through the HTTP app, called as an ASGI app in process, and through the gRPC server, on
a loopback port: the binding of each request, the token, the canonical log line and the
metrics, the writing of each answer (JSON, protobuf) and of each refusal (an AIP-193 error, a
rich status). The seat's repeatable requests (its view, its log, refused moves, retries of its
own last move) must give the same answer in both twins and run the same lines of the package
in the same order. Litestar's, uvicorn's and grpc's code is not traced: it handles the bytes
the package gives it, which are compared whole.

The twins' clocks stand still (the request time the transports measure included), so that
their answers and canonical lines can be compared. The game ids and seats' tokens differ
between the twins, as they do between any two games: they are random, of one length.
"""

from __future__ import annotations

import asyncio
import io
import json
import random
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, ClassVar

import grpc
import pytest
from google.protobuf import json_format
from hanafuda.v1 import moves_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.grpc.server import GrpcServer
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http import app as http_app
from hanafuda_referee.observability import logs as observability
from hanafuda_referee.store import MemoryStore
from tests.asgi import AsgiCaller

from . import test_equal_work as equal_work
from .test_equal_work import CASES, Tally, compare_moves, twin_pair
from .test_observability import Configure, written
from .test_observability import configure as configure  # the fixture, for this module

_NOW = equal_work._NOW

#: A Koi-Koi preset and Hachi-Hachi with a drop phase: the transports do the same for any rules.
TRANSPORT_CASES = [c for c in CASES if c.name in (CASES[0].name, "hachihachi-4")]
_JSON = [(b"content-type", b"application/json")]
#: What the transports' clocks read all along.
_STILL = 100.0


@dataclass
class _StillRecord(observability.RequestRecord):
    """A request's record whose clock stands still, as the transports' do here."""

    started: float = _STILL


@pytest.fixture(autouse=True)
def json_lines(monkeypatch: pytest.MonkeyPatch, configure: Configure) -> io.StringIO:
    """The canonical lines, JSON written by the service's own writer as in production. The
    transports time each request and stamp its line; here their clocks stand still."""
    still = SimpleNamespace(perf_counter=lambda: _STILL, time_ns=lambda: int(_NOW * 1e9))
    monkeypatch.setattr(http_app, "time", still)
    monkeypatch.setattr(observability, "time", still)
    monkeypatch.setattr(observability, "RequestRecord", _StillRecord)
    return configure("json")


class HttpTwin:
    """One twin game on a referee of its own, reached through the HTTP app."""

    transport = "http"
    #: Its views are JSON; watches are Server-Sent Events, left out here.
    forms: ClassVar[tuple[Any, ...]] = ("json",)
    watches: ClassVar[bool] = False

    def __init__(self) -> None:
        app = http_app.create_app(
            _twin_referee(), SimpleNamespace(max_request_bytes=1 << 20, cors_origins=())
        )
        self.caller = AsgiCaller(app, keep_body=True)
        self.game_id = ""
        self.tokens: list[str] = []

    async def call(
        self, method: str, path: str, token: str | None = None, body: bytes = b""
    ) -> tuple[int, bytes]:
        """One request, whole: its status and body."""
        headers = [(b"x-request-id", b"equal-work"), *_JSON]
        if token is not None:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        if body:
            headers.append((b"content-length", str(len(body)).encode()))
        status = await self.caller(method, path, headers, body)
        return status, self.caller.body

    async def create(self, request: service_pb2.CreateGameRequest) -> None:
        status, body = await self.call(
            "POST", "/v1/games", body=json_format.MessageToJson(request).encode()
        )
        assert status == 200, body
        created = json.loads(body)
        self.game_id, self.tokens = created["game"], created["playerTokens"]

    def token(self, seat: int | None) -> str | None:
        return None if seat is None else self.tokens[seat]

    async def view(self, seat: int | None, form: Any = "json") -> tuple[int, bytes]:
        return await self.call("GET", f"/v1/games/{self.game_id}", self.token(seat))

    async def watch(self, seat: int | None, items: int) -> Any:
        raise NotImplementedError("not asked (watches is False)")

    async def log(self, seat: int | None) -> tuple[int, bytes]:
        return await self.call("GET", f"/v1/games/{self.game_id}/log", self.token(seat))

    async def submit(
        self, seat: int | None, move: moves_pb2.Move, request_id: str = ""
    ) -> tuple[int, bytes]:
        request = service_pb2.SubmitMoveRequest(move=move, request_id=request_id)
        body = json_format.MessageToJson(request).encode()
        return await self.call("POST", f"/v1/games/{self.game_id}/moves", self.token(seat), body)

    @staticmethod
    def accepted(answer: tuple[int, bytes]) -> bool:
        return answer[0] == 200

    def same(self, result: Any) -> Any:
        """A status and body with what differs by construction (the game id) taken out."""
        status, body = result
        return status, body.replace(self.game_id.encode(), b"<game>")

    async def close(self) -> None:
        pass


class GrpcTwin:
    """One twin game on a referee of its own, reached through a gRPC server on a loopback port
    of its own."""

    transport = "grpc"
    #: Its views are protobuf; watches are streams, left out here.
    forms: ClassVar[tuple[Any, ...]] = ("protobuf",)
    watches: ClassVar[bool] = False

    def __init__(self) -> None:
        self.server = GrpcServer(_twin_referee(), host="127.0.0.1", port=0)
        #: The calls whose handler was still running when the client had its answer.
        self.handlers_awaited = 0
        self.channel: grpc.aio.Channel | None = None
        self.stub: Any = None
        self.game_id = ""
        self.tokens: list[str] = []

    async def create(self, request: service_pb2.CreateGameRequest) -> None:
        port = await self.server.start()
        self.channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        self.stub = service_pb2_grpc.RefereeServiceStub(self.channel)
        created = await self.stub.CreateGame(request)
        self.game_id, self.tokens = created.game, list(created.player_tokens)

    async def call(self, method: str, request: Any, seat: int | None) -> tuple[str, bytes]:
        """One call: its status code's name and its answer, or its error's details and rich
        status."""
        metadata = [("x-request-id", "equal-work")]
        if seat is not None:
            metadata.append(("authorization", f"Bearer {self.tokens[seat]}"))
        running = asyncio.all_tasks()
        try:
            answer = await getattr(self.stub, method)(request, metadata=metadata)
            result = "OK", answer.SerializeToString()
        except grpc.aio.AioRpcError as error:
            trailing = dict(error.trailing_metadata() or ())
            details = f"{error.details()}".encode() + bytes(trailing.get(_STATUS_DETAILS, b""))
            result = error.code().name, details
        # grpc serves each call in a task of its own, whose handler may still be unwinding
        # (a refusal raised out of it) when the client has its answer: the call's work is
        # done, and its trace whole, only when that task is.
        handlers = [
            task
            for task in asyncio.all_tasks() - running
            if getattr(task.get_coro(), "__qualname__", "") == _RPC_TASK
        ]
        await asyncio.gather(*handlers, return_exceptions=True)
        self.handlers_awaited += len(handlers)
        return result

    async def view(self, seat: int | None, form: Any = "protobuf") -> tuple[str, bytes]:
        return await self.call("GetGame", service_pb2.GetGameRequest(game=self.game_id), seat)

    async def watch(self, seat: int | None, items: int) -> Any:
        raise NotImplementedError("not asked (watches is False)")

    async def log(self, seat: int | None) -> tuple[str, bytes]:
        request = service_pb2.GetGameLogRequest(game=self.game_id)
        return await self.call("GetGameLog", request, seat)

    async def submit(
        self, seat: int | None, move: moves_pb2.Move, request_id: str = ""
    ) -> tuple[str, bytes]:
        request = service_pb2.SubmitMoveRequest(game=self.game_id, move=move, request_id=request_id)
        return await self.call("SubmitMove", request, seat)

    @staticmethod
    def accepted(answer: tuple[str, bytes]) -> bool:
        return answer[0] == "OK"

    def same(self, result: Any) -> Any:
        code, body = result
        return code, body.replace(self.game_id.encode(), b"<game>")

    async def close(self) -> None:
        if self.channel is not None:
            await self.channel.close()
        await self.server.stop(0)


_TWINS: dict[str, type[HttpTwin] | type[GrpcTwin]] = {"http": HttpTwin, "grpc": GrpcTwin}
_STATUS_DETAILS = "grpc-status-details-bin"
#: What grpc.aio names the coroutine that serves one call.
_RPC_TASK = "_schedule_rpc_coro"


@dataclass
class TransportTally(Tally):
    """:class:`Tally`, and the gRPC calls whose handler was awaited after their answer."""

    handlers_awaited: int = 0


def _twin_referee() -> Referee:
    """A referee on a store of its own, whose clocks stand still."""
    referee = Referee(MemoryStore(clock=lambda: 1000.0), allow_testing=True)
    referee.games = HostedGames(referee.store, allow_testing=True, clock=lambda: _NOW)
    return referee


async def play_transport_twins(
    transport: str, case: Any, seed: int, seat: int | None, tally: TransportTally
) -> bool:
    """One pair of twin games for ``seat`` (None: a spectator), as in
    :func:`tests.service.test_equal_work.play_twins`, through ``transport``."""
    rng = random.Random(f"{transport}-{case.name}-{seed}-{seat}")
    pair = twin_pair(case, seed, seat, rng)
    if pair is None:
        return False
    twins: list[Any] = [_TWINS[transport](), _TWINS[transport]()]
    try:
        await twins[0].create(pair.played.request)
        await twins[1].create(pair.twin_request)
        await compare_moves(twins, case, pair.played, seat, rng, tally)
    finally:
        for twin in twins:
            await twin.close()
            tally.handlers_awaited += getattr(twin, "handlers_awaited", 0)
    return True


@pytest.mark.parametrize("transport", ["http", "grpc"])
@pytest.mark.parametrize("case", TRANSPORT_CASES, ids=[c.name for c in TRANSPORT_CASES])
async def test_the_transports_do_the_same_work_whatever_a_seat_cannot_see(
    case: Any, transport: str, json_lines: io.StringIO
) -> None:
    tally = TransportTally()
    for seat in [*range(case.participants), None]:
        played = 0
        for seed in range(60):
            if played == 2:
                break
            played += await play_transport_twins(transport, case, seed, seat, tally)
        assert played == 2, f"too few usable seeds for seat {seat}"
    assert tally.refusals > 10 * case.participants
    assert tally.retries > 5 * case.participants
    assert tally.requests > 40 * case.participants
    assert tally.others_differing >= 2
    # The lines went through the service's JSON writer, with the clocks standing still.
    lines = [json.loads(line) for line in written(json_lines)]
    assert len(lines) >= tally.requests
    assert {line["latency_ms"] for line in lines} == {0.0}
    assert {line["transport"] for line in lines} == {transport}
    if transport == "grpc":
        # The wait for grpc's handler tasks is not blind (it names grpc's coroutine).
        assert tally.handlers_awaited > 0
