"""Typed async clients of a referee process, one per transport, speaking protobuf messages.

:class:`HttpClient` (proto3 JSON over HTTP, Server-Sent Events for ``WatchGame``) and
:class:`GrpcClient` offer the same methods, so a test can send one request through either
transport and compare the answers as messages. A refusal is a :class:`Refused` carrying the
contract's reason, whichever transport brought it, and the transport's own status, so a test can
check both.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

import grpc
import httpx
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import game_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.api.errors import STATUS

from .processes import RefereeProcess

__all__ = [
    "GrpcClient",
    "HttpClient",
    "RefereeClient",
    "Refused",
    "connect",
    "expected_status",
]

#: Seconds a unary call may take before the client gives up (far above any expected latency:
#: the tests bound latencies themselves, with their own clocks).
CALL_TIMEOUT = 30.0

_M = TypeVar("_M", bound=Message)


class Refused(Exception):
    """A call the service refused: the ``ErrorInfo`` reason and metadata, and the transport's
    status (the HTTP status code as text, or the gRPC status code name)."""

    def __init__(
        self, transport: str, status: str, reason: str, metadata: Mapping[str, str], message: str
    ) -> None:
        super().__init__(f"{transport} {status} {reason}: {message}")
        self.transport = transport
        self.status = status
        self.reason = reason
        self.metadata = dict(metadata)
        self.message = message


def expected_status(transport: str, reason: str) -> str:
    """The status ``transport`` must carry ``reason`` with, as the contract's table says."""
    code, http_status = STATUS[reason]
    return str(http_status) if transport == "http" else code.name


class RefereeClient(ABC):
    """The hosted-game methods of one referee process over one transport."""

    #: ``"http"`` or ``"grpc"``.
    transport: str

    def __init__(self, process: RefereeProcess) -> None:
        self.process = process

    @property
    def label(self) -> str:
        """Which process and transport, for failure messages."""
        return f"{self.transport}@{self.process.name}"

    @abstractmethod
    async def create(
        self, request: service_pb2.CreateGameRequest
    ) -> service_pb2.CreateGameResponse:
        """``CreateGame``."""

    @abstractmethod
    async def get(self, game: str, token: str | None = None) -> game_pb2.GameView:
        """``GetGame`` as the token's seat (a spectator without one)."""

    @abstractmethod
    async def submit(
        self, request: service_pb2.SubmitMoveRequest, token: str
    ) -> service_pb2.SubmitMoveResponse:
        """``SubmitMove`` as the token's seat."""

    @abstractmethod
    async def log(self, game: str, token: str | None = None) -> service_pb2.GetGameLogResponse:
        """``GetGameLog`` as the token's seat (a spectator without one)."""

    @abstractmethod
    def watch(
        self, request: service_pb2.WatchGameRequest, token: str | None = None
    ) -> AbstractAsyncContextManager[AsyncIterator[service_pb2.WatchGameResponse]]:
        """``WatchGame``: the stream's items while the context is open; leaving the context
        disconnects. The iterator ends when the service ends the stream."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close the client's connections."""


class HttpClient(RefereeClient):
    """The HTTP/JSON transport of a process."""

    transport = "http"

    def __init__(self, process: RefereeProcess) -> None:
        super().__init__(process)
        self._http = httpx.AsyncClient(
            base_url=process.http_url,
            timeout=httpx.Timeout(CALL_TIMEOUT),
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
        )

    @staticmethod
    def _headers(token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def _refused(self, response: httpx.Response) -> Refused:
        try:
            error = response.json()["error"]
            info = next(d for d in error["details"] if d["@type"].endswith("google.rpc.ErrorInfo"))
            return Refused(
                "http",
                str(response.status_code),
                info["reason"],
                info["metadata"],
                error["message"],
            )
        except (ValueError, KeyError, TypeError, StopIteration):
            return Refused("http", str(response.status_code), "", {}, response.text[:500])

    def _parse(self, response: httpx.Response, into: _M) -> _M:
        if response.status_code != 200:
            raise self._refused(response)
        json_format.ParseDict(response.json(), into)
        return into

    async def create(
        self, request: service_pb2.CreateGameRequest
    ) -> service_pb2.CreateGameResponse:
        response = await self._http.post("/v1/games", json=json_format.MessageToDict(request))
        return self._parse(response, service_pb2.CreateGameResponse())

    async def get(self, game: str, token: str | None = None) -> game_pb2.GameView:
        response = await self._http.get(f"/v1/games/{game}", headers=self._headers(token))
        return self._parse(response, service_pb2.GetGameResponse()).view

    async def submit(
        self, request: service_pb2.SubmitMoveRequest, token: str
    ) -> service_pb2.SubmitMoveResponse:
        response = await self._http.post(
            f"/v1/games/{request.game}/moves",
            json=json_format.MessageToDict(request),
            headers=self._headers(token),
        )
        return self._parse(response, service_pb2.SubmitMoveResponse())

    async def log(self, game: str, token: str | None = None) -> service_pb2.GetGameLogResponse:
        response = await self._http.get(f"/v1/games/{game}/log", headers=self._headers(token))
        return self._parse(response, service_pb2.GetGameLogResponse())

    def watch(
        self,
        request: service_pb2.WatchGameRequest,
        token: str | None = None,
        *,
        last_event_id: int | None = None,
    ) -> AbstractAsyncContextManager[AsyncIterator[service_pb2.WatchGameResponse]]:
        """As :meth:`RefereeClient.watch`; ``request.from_version`` travels as the ``fromVersion``
        query parameter and ``last_event_id`` as the ``Last-Event-ID`` header."""
        return self._watch(request, token, last_event_id)

    @asynccontextmanager
    async def _watch(
        self, request: service_pb2.WatchGameRequest, token: str | None, last_event_id: int | None
    ) -> AsyncIterator[AsyncIterator[service_pb2.WatchGameResponse]]:
        params = (
            {"fromVersion": str(request.from_version)} if request.HasField("from_version") else {}
        )
        headers = self._headers(token)
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        async with self._http.stream(
            "GET",
            f"/v1/games/{request.game}/events",
            params=params,
            headers=headers,
            # A live stream is quiet between moves: only the test's own deadlines bound it.
            timeout=httpx.Timeout(CALL_TIMEOUT, read=None),
        ) as response:
            if response.status_code != 200:
                await response.aread()
                raise self._refused(response)
            items = self._items(response)
            try:
                yield items
            finally:
                await items.aclose()

    async def _items(
        self, response: httpx.Response
    ) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
        """The stream's items from its SSE frames (keep-alive comments skipped): ``end`` ends
        it, ``error`` raises its refusal."""
        event, event_id, data = "message", None, ""
        async for line in response.aiter_lines():
            if line.startswith(":"):
                continue
            if line:
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "event":
                    event = value
                elif name == "id":
                    event_id = value
                elif name == "data":
                    assert not data, "one data line per SSE event"
                    data = value
                continue
            if data:
                payload = json.loads(data)
                if event == "end":
                    return
                if event == "error":
                    error = payload["error"]
                    info = error["details"][0]
                    raise Refused(
                        "http",
                        str(error["code"]),
                        info["reason"],
                        info["metadata"],
                        error["message"],
                    )
                item = json_format.ParseDict(payload, service_pb2.WatchGameResponse())
                # The SSE id is the version: what a reconnecting client sends back.
                assert event_id == str(item.version), (event_id, item.version)
                yield item
            event, event_id, data = "message", None, ""

    async def aclose(self) -> None:
        await self._http.aclose()


class GrpcClient(RefereeClient):
    """The gRPC transport of a process."""

    transport = "grpc"

    def __init__(self, process: RefereeProcess) -> None:
        super().__init__(process)
        self._channel = grpc.aio.insecure_channel(process.grpc_target)
        self._stub = service_pb2_grpc.RefereeServiceStub(self._channel)

    @staticmethod
    def _metadata(token: str | None) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {token}"),) if token else ()

    @staticmethod
    def refused(error: grpc.aio.AioRpcError) -> Refused:
        """The refusal an RPC error carries (its ``ErrorInfo``, when it has one)."""
        status = rpc_status.from_call(error)
        code = error.code().name
        if status is not None:
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return Refused("grpc", code, info.reason, dict(info.metadata), status.message)
        return Refused("grpc", code, "", {}, str(error.details()))

    async def create(
        self, request: service_pb2.CreateGameRequest
    ) -> service_pb2.CreateGameResponse:
        try:
            return await self._stub.CreateGame(request, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as error:
            raise self.refused(error) from None

    async def get(self, game: str, token: str | None = None) -> game_pb2.GameView:
        try:
            response = await self._stub.GetGame(
                service_pb2.GetGameRequest(game=game),
                metadata=self._metadata(token),
                timeout=CALL_TIMEOUT,
            )
        except grpc.aio.AioRpcError as error:
            raise self.refused(error) from None
        return response.view

    async def submit(
        self, request: service_pb2.SubmitMoveRequest, token: str
    ) -> service_pb2.SubmitMoveResponse:
        try:
            return await self._stub.SubmitMove(
                request, metadata=self._metadata(token), timeout=CALL_TIMEOUT
            )
        except grpc.aio.AioRpcError as error:
            raise self.refused(error) from None

    async def log(self, game: str, token: str | None = None) -> service_pb2.GetGameLogResponse:
        try:
            return await self._stub.GetGameLog(
                service_pb2.GetGameLogRequest(game=game),
                metadata=self._metadata(token),
                timeout=CALL_TIMEOUT,
            )
        except grpc.aio.AioRpcError as error:
            raise self.refused(error) from None

    def watch(
        self, request: service_pb2.WatchGameRequest, token: str | None = None
    ) -> AbstractAsyncContextManager[AsyncIterator[service_pb2.WatchGameResponse]]:
        return self._watch(request, token)

    @asynccontextmanager
    async def _watch(
        self, request: service_pb2.WatchGameRequest, token: str | None
    ) -> AsyncIterator[AsyncIterator[service_pb2.WatchGameResponse]]:
        call = self._stub.WatchGame(request, metadata=self._metadata(token))
        items = self._items(call)
        try:
            yield items
        finally:
            call.cancel()
            await items.aclose()

    async def _items(self, call: Any) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
        try:
            async for item in call:
                yield item
        except grpc.aio.AioRpcError as error:
            raise self.refused(error) from None

    async def aclose(self) -> None:
        await self._channel.close()


@asynccontextmanager
async def connect(*processes: RefereeProcess) -> AsyncIterator[list[RefereeClient]]:
    """An HTTP and a gRPC client of each process, in that order, closed afterwards."""
    clients: list[RefereeClient] = []
    try:
        for process in processes:
            clients.append(HttpClient(process))
            clients.append(GrpcClient(process))
        yield clients
    finally:
        for client in clients:
            await client.aclose()
