"""A small typed client of the referee for the system tests: one interface, two transports.

:class:`HttpClient` speaks HTTP/JSON (proto3 canonical JSON through ``json_format``, Server-Sent
Events for ``WatchGame``) and :class:`GrpcClient` the generated ``hanafuda.v1`` stubs; both take
and return protobuf messages, so a test plays the same game through either and compares what it
got as messages. A refusal is raised as :class:`Refused` with the transport's status and the
``google.rpc.ErrorInfo`` it carried, plus everything the client received about it (``text``) for
the hidden-information scans.

The HTTP routes are written out here from the contract (docs/api.md) rather than taken from the
server's code, the way an independent client would know them.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, ClassVar, TypeVar

import grpc
import httpx
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import game_pb2, moves_pb2, service_pb2, service_pb2_grpc

from tests.http.live import sse_events

from .processes import RefereeProcess

__all__ = [
    "HTTP_ROUTES",
    "TRANSPORTS",
    "Client",
    "GrpcClient",
    "HttpClient",
    "Refused",
    "collect",
    "open_client",
]

#: The transports a test may be parametrized over.
TRANSPORTS = ("http", "grpc")
#: Seconds any one call may take before the test fails (generous: the machine is loaded).
CALL_TIMEOUT = 30.0
_SERVICE = "hanafuda.v1.RefereeService"
_ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"

_Response = TypeVar("_Response", bound=Message)


class Refused(Exception):
    """A request the service refused.

    ``code`` is the gRPC status code (on HTTP, the one the AIP-193 body names), ``http_status``
    the HTTP status (None on gRPC), ``reason``/``domain``/``metadata`` the ``ErrorInfo``, and
    ``text`` everything the client was told about the error, for scans.
    """

    def __init__(
        self,
        *,
        transport: str,
        code: grpc.StatusCode,
        http_status: int | None,
        reason: str,
        domain: str,
        metadata: Mapping[str, str],
        message: str,
        text: str,
    ) -> None:
        super().__init__(f"{transport} {code.name} {http_status or ''} {reason}: {message}")
        self.transport = transport
        self.code = code
        self.http_status = http_status
        self.reason = reason
        self.domain = domain
        self.metadata = dict(metadata)
        self.message = message
        self.text = text

    @classmethod
    def from_http(cls, status: int, body: bytes) -> Refused:
        """The refusal of an HTTP response (its body must be the AIP-193 error shape)."""
        text = body.decode(errors="replace")
        error = json.loads(text)["error"]
        assert error["code"] == status, text
        (detail,) = error["details"]
        assert detail["@type"] == _ERROR_INFO_TYPE, text
        return cls(
            transport="http",
            code=grpc.StatusCode[error["status"]],
            http_status=status,
            reason=detail["reason"],
            domain=detail["domain"],
            metadata=detail.get("metadata", {}),
            message=error["message"],
            text=text,
        )

    @classmethod
    def from_grpc(cls, error: grpc.aio.AioRpcError) -> Refused:
        """The refusal of a failed gRPC call; its rich status holds at most one ErrorInfo."""
        info = error_details_pb2.ErrorInfo()
        status = rpc_status.from_call(error)
        if status is not None:
            assert status.code == error.code().value[0]
            assert status.message == error.details()
            (detail,) = status.details
            assert detail.Unpack(info), detail.type_url
        return cls(
            transport="grpc",
            code=error.code(),
            http_status=None,
            reason=info.reason,
            domain=info.domain,
            metadata=dict(info.metadata),
            message=error.details() or "",
            text=f"{error.details()}\n{info}\n{error.trailing_metadata()}",
        )


class Client(ABC):
    """The referee's RPCs as one transport serves them."""

    transport: ClassVar[str]

    @abstractmethod
    async def call(
        self,
        method: str,
        request: Message,
        response_type: type[_Response],
        *,
        token: str | None = None,
        api_key: str | None = None,
    ) -> _Response:
        """Any unary RPC by name; raises :class:`Refused`."""

    @abstractmethod
    def watch(
        self, game: str, token: str | None = None, from_version: int | None = None
    ) -> AsyncIterator[service_pb2.WatchGameResponse]:
        """``WatchGame`` until the stream ends; raises :class:`Refused`."""

    @abstractmethod
    async def aclose(self) -> None:
        """Close the connection."""

    async def create(
        self, request: service_pb2.CreateGameRequest, *, api_key: str | None = None
    ) -> service_pb2.CreateGameResponse:
        """``CreateGame``, with the server's API key when it needs one."""
        return await self.call(
            "CreateGame", request, service_pb2.CreateGameResponse, api_key=api_key
        )

    async def view(self, game: str, token: str | None = None) -> game_pb2.GameView:
        """``GetGame``: the game as ``token``'s seat (a spectator without one) sees it."""
        request = service_pb2.GetGameRequest(game=game)
        answer = await self.call("GetGame", request, service_pb2.GetGameResponse, token=token)
        return answer.view

    async def submit(
        self,
        game: str,
        move: moves_pb2.Move,
        token: str | None,
        *,
        seat: int | None = None,
        expected_version: int | None = None,
        request_id: str = "",
    ) -> service_pb2.SubmitMoveResponse:
        """``SubmitMove`` as ``token``'s seat (no token: none sent); ``seat`` and
        ``expected_version`` are sent only when given."""
        request = service_pb2.SubmitMoveRequest(game=game, request_id=request_id)
        request.move.CopyFrom(move)
        if seat is not None:
            request.seat = seat
        if expected_version is not None:
            request.expected_version = expected_version
        return await self.call("SubmitMove", request, service_pb2.SubmitMoveResponse, token=token)

    async def log(self, game: str, token: str | None = None) -> service_pb2.GetGameLogResponse:
        """``GetGameLog`` as ``token``'s seat, or a spectator."""
        return await self.call(
            "GetGameLog",
            service_pb2.GetGameLogRequest(game=game),
            service_pb2.GetGameLogResponse,
            token=token,
        )


# --- HTTP -------------------------------------------------------------------------------------

#: rpc -> (verb, path template, fields bound by the path). All POST routes take the body "*".
HTTP_ROUTES: Mapping[str, tuple[str, str, tuple[str, ...]]] = {
    "ListPresets": ("GET", "/v1/rules/presets", ()),
    "ScoreKoiKoi": ("POST", "/v1/rules/koikoi:score", ()),
    "ClassifyKoiKoiHand": ("POST", "/v1/rules/koikoi:classifyHand", ()),
    "ClassifyHachiHachiHand": ("POST", "/v1/rules/hachihachi:classifyHand", ()),
    "ScoreHachiHachiCaptures": ("POST", "/v1/rules/hachihachi:scoreCaptures", ()),
    "SettleHachiHachiRound": ("POST", "/v1/rules/hachihachi:settle", ()),
    "ListCaptures": ("POST", "/v1/rules:listCaptures", ()),
    "CreateGame": ("POST", "/v1/games", ()),
    "GetGame": ("GET", "/v1/games/{game}", ("game",)),
    "SubmitMove": ("POST", "/v1/games/{game}/moves", ("game",)),
    "WatchGame": ("GET", "/v1/games/{game}/events", ("game",)),
    "GetGameLog": ("GET", "/v1/games/{game}/log", ("game",)),
}


def _headers(token: str | None, api_key: str | None) -> dict[str, str]:
    headers = {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if api_key is not None:
        headers["x-api-key"] = api_key
    return headers


def _http_request(method: str, request: Message) -> tuple[str, str, dict[str, Any]]:
    """The verb, path and JSON fields (body or query) of a request message."""
    verb, template, bound = HTTP_ROUTES[method]
    fields: dict[str, Any] = json_format.MessageToDict(request)
    path = template
    for name in bound:
        path = path.replace("{" + name + "}", str(fields.pop(name, "")))
    return verb, path, fields


class HttpClient(Client):
    """The HTTP/JSON transport through ``httpx``."""

    transport = "http"

    def __init__(self, base_url: str) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=CALL_TIMEOUT)

    async def call(
        self,
        method: str,
        request: Message,
        response_type: type[_Response],
        *,
        token: str | None = None,
        api_key: str | None = None,
    ) -> _Response:
        verb, path, fields = _http_request(method, request)
        headers = _headers(token, api_key)
        if verb == "GET":
            response = await self.http.get(path, params=fields, headers=headers)
        else:
            response = await self.http.post(path, json=fields, headers=headers)
        return self.decode(response, response_type)

    @staticmethod
    def decode(response: httpx.Response, response_type: type[_Response]) -> _Response:
        """A 200 response's JSON as ``response_type`` (strictly: an unknown field fails), or
        :class:`Refused`."""
        if response.status_code != 200:
            raise Refused.from_http(response.status_code, response.content)
        assert response.headers["content-type"].startswith("application/json")
        return json_format.Parse(response.text, response_type())

    async def post_raw(
        self, path: str, content: bytes, headers: Mapping[str, str] | None = None
    ) -> httpx.Response:
        """A POST with a body exactly as given (for bodies no message encodes to)."""
        merged = {"content-type": "application/json", **(headers or {})}
        return await self.http.post(path, content=content, headers=merged)

    async def watch(
        self, game: str, token: str | None = None, from_version: int | None = None
    ) -> AsyncIterator[service_pb2.WatchGameResponse]:
        request = service_pb2.WatchGameRequest(game=game)
        if from_version is not None:
            request.from_version = from_version
        _, path, query = _http_request("WatchGame", request)
        async with self.http.stream(
            "GET",
            path,
            params=query,
            headers=_headers(token, None),
            # A quiet stream sends a keep-alive comment every 15 s: no read may wait longer.
            timeout=httpx.Timeout(CALL_TIMEOUT, read=60.0),
        ) as response:
            if response.status_code != 200:
                raise Refused.from_http(response.status_code, await response.aread())
            assert response.headers["content-type"].startswith("text/event-stream")
            async for event in sse_events(response):
                if not event.data:
                    continue  # a keep-alive comment
                if event.event == "end":
                    return
                if event.event == "error":
                    body = event.data[0].encode()
                    raise Refused.from_http(json.loads(body)["error"]["code"], body)
                assert event.event == "message", event
                item = json_format.Parse(event.data[0], service_pb2.WatchGameResponse())
                assert event.id == str(item.version)
                yield item
        raise AssertionError("the event stream closed without its end event")

    async def aclose(self) -> None:
        await self.http.aclose()


# --- gRPC -------------------------------------------------------------------------------------


def _metadata(token: str | None, api_key: str | None) -> tuple[tuple[str, str], ...]:
    pairs = []
    if token is not None:
        pairs.append(("authorization", f"Bearer {token}"))
    if api_key is not None:
        pairs.append(("x-api-key", api_key))
    return tuple(pairs)


class GrpcClient(Client):
    """The gRPC transport through the generated ``hanafuda.v1`` stub."""

    transport = "grpc"

    def __init__(self, target: str) -> None:
        self.channel = grpc.aio.insecure_channel(target)
        self.stub = service_pb2_grpc.RefereeServiceStub(self.channel)

    async def call(
        self,
        method: str,
        request: Message,
        response_type: type[_Response],
        *,
        token: str | None = None,
        api_key: str | None = None,
    ) -> _Response:
        rpc = getattr(self.stub, method)
        try:
            response = await rpc(request, metadata=_metadata(token, api_key), timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as error:
            raise Refused.from_grpc(error) from None
        assert isinstance(response, response_type)
        return response

    async def call_raw(self, method: str, payload: bytes) -> bytes:
        """A unary call whose request is the bytes given (for bytes no message encodes to)."""
        rpc: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = self.channel.unary_unary(
            f"/{_SERVICE}/{method}"
        )
        try:
            answer = await rpc(payload, timeout=CALL_TIMEOUT)
        except grpc.aio.AioRpcError as error:
            raise Refused.from_grpc(error) from None
        assert isinstance(answer, bytes)
        return answer

    async def watch(
        self, game: str, token: str | None = None, from_version: int | None = None
    ) -> AsyncIterator[service_pb2.WatchGameResponse]:
        request = service_pb2.WatchGameRequest(game=game)
        if from_version is not None:
            request.from_version = from_version
        call = self.stub.WatchGame(request, metadata=_metadata(token, None))
        try:
            async for item in call:
                assert isinstance(item, service_pb2.WatchGameResponse)
                yield item
        except grpc.aio.AioRpcError as error:
            raise Refused.from_grpc(error) from None
        finally:
            call.cancel()

    async def aclose(self) -> None:
        await self.channel.close()


@asynccontextmanager
async def open_client(transport: str, process: RefereeProcess) -> AsyncIterator[Client]:
    """A client of ``process`` over ``transport`` (``http`` or ``grpc``), closed afterwards."""
    client: Client
    if transport == "http":
        client = HttpClient(process.http_url)
    elif transport == "grpc":
        client = GrpcClient(process.grpc_target)
    else:
        raise ValueError(f"unknown transport {transport!r}")
    try:
        yield client
    finally:
        await client.aclose()


async def collect(
    stream: AsyncIterator[service_pb2.WatchGameResponse], timeout: float = 60.0
) -> list[service_pb2.WatchGameResponse]:
    """Every item of a stream that ends by itself (a finished game's), within ``timeout``."""
    items = []
    async with asyncio.timeout(timeout):
        async for item in stream:
            items.append(item)
    return items
