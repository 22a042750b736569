"""Typed async clients of a referee process for the system tests: one interface, two transports.

:class:`HttpClient` speaks HTTP/JSON (proto3 canonical JSON through ``json_format``, Server-Sent
Events for ``WatchGame``) and :class:`GrpcClient` the generated ``hanafuda.v1`` stubs; both take
and return protobuf messages, so a test plays the same game through either and compares what it
got as messages. A refusal is raised as :class:`Refused`, whichever transport brought it, with
the transport's status and the ``google.rpc.ErrorInfo`` it carried, plus everything the client
received about it (``text``) for the hidden-information scans.

The HTTP routes are written out here from the contract (docs/api.md) rather than taken from the
server's code, the way an independent client would know them.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, ClassVar, TypeVar

import grpc
import httpx
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import game_pb2, moves_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.calls.errors import STATUS
from tests.http.live import sse_events

from .processes import RefereeProcess

__all__ = [
    "CALL_TIMEOUT",
    "HTTP_ROUTES",
    "TRANSPORTS",
    "Client",
    "GrpcClient",
    "HttpClient",
    "Refused",
    "collect",
    "connect",
    "expected_status",
    "open_client",
    "refusal_of",
    "submission",
]

#: The transports a test may be parametrized over, in the order :func:`connect` opens them.
TRANSPORTS = ("http", "grpc")
#: Seconds a unary call may take before the test fails (far above any expected latency: the
#: machine is loaded, and the tests bound latencies themselves, with their own clocks).
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

    @property
    def status(self) -> tuple[grpc.StatusCode, int | None]:
        """The status the refusal came with: the gRPC code and the HTTP status (None on gRPC),
        to compare with :func:`expected_status`."""
        return self.code, self.http_status

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
        """The refusal of a failed gRPC call; its rich status holds one ErrorInfo first, and
        after it at most a RetryInfo (``RATE_LIMITED``)."""
        info = error_details_pb2.ErrorInfo()
        status = rpc_status.from_call(error)
        if status is not None:
            assert status.code == error.code().value[0]
            assert status.message == error.details()
            detail, *others = status.details
            assert detail.Unpack(info), detail.type_url
            assert len(others) <= 1
            assert all(o.Is(error_details_pb2.RetryInfo.DESCRIPTOR) for o in others), others
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


def expected_status(transport: str, reason: str) -> tuple[grpc.StatusCode, int | None]:
    """The :attr:`Refused.status` ``transport`` must carry ``reason`` with, as the service's
    table says."""
    code, http_status = STATUS[reason]
    return code, http_status if transport == "http" else None


async def refusal_of(call: Awaitable[object]) -> Refused:
    """The refusal of an awaited call that must be refused."""
    try:
        await call
    except Refused as error:
        return error
    raise AssertionError("the call was accepted")


def submission(
    game: str,
    move: moves_pb2.Move,
    *,
    seat: int | None = None,
    expected_version: int | None = None,
    request_id: str = "",
) -> service_pb2.SubmitMoveRequest:
    """A ``SubmitMoveRequest`` of ``move``; ``seat`` and ``expected_version`` are set only when
    given."""
    request = service_pb2.SubmitMoveRequest(game=game, request_id=request_id)
    request.move.CopyFrom(move)
    if seat is not None:
        request.seat = seat
    if expected_version is not None:
        request.expected_version = expected_version
    return request


def _credentials(token: str | None, api_key: str | None) -> tuple[tuple[str, str], ...]:
    """What a request carries of a seat's token and of the API key: the same names serve as
    HTTP headers (case does not matter there) and as gRPC metadata."""
    pairs = []
    if token is not None:
        pairs.append(("authorization", f"Bearer {token}"))
    if api_key is not None:
        pairs.append(("x-api-key", api_key))
    return tuple(pairs)


class Client(ABC):
    """The referee's RPCs as one process serves them over one transport."""

    transport: ClassVar[str]

    def __init__(self, process: RefereeProcess) -> None:
        self.process = process

    @property
    def label(self) -> str:
        """Which transport of which process, for failure messages."""
        return f"{self.transport}@{self.process.name}"

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
    ) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
        """``WatchGame`` until the stream ends; raises :class:`Refused`. Closing the iterator
        (``contextlib.aclosing``) disconnects."""

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

    async def hint(
        self, game: str, token: str | None, wait_seconds: int = 0
    ) -> service_pb2.GetHintResponse:
        """``GetHint`` as ``token``'s seat."""
        request = service_pb2.GetHintRequest(game=game, wait_seconds=wait_seconds)
        return await self.call("GetHint", request, service_pb2.GetHintResponse, token=token)

    async def review(
        self, game: str, token: str | None, wait_seconds: int = 0
    ) -> service_pb2.ReviewGameResponse:
        """``ReviewGame`` as ``token``'s seat."""
        request = service_pb2.ReviewGameRequest(game=game, wait_seconds=wait_seconds)
        return await self.call("ReviewGame", request, service_pb2.ReviewGameResponse, token=token)

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
        """``SubmitMove`` of ``move`` as ``token``'s seat (no token: none sent); the options
        are as :func:`submission` sets them."""
        request = submission(
            game, move, seat=seat, expected_version=expected_version, request_id=request_id
        )
        return await self.submit_request(request, token)

    async def submit_request(
        self, request: service_pb2.SubmitMoveRequest, token: str | None
    ) -> service_pb2.SubmitMoveResponse:
        """``SubmitMove`` of a request built beforehand (to send the very same one again)."""
        return await self.call("SubmitMove", request, service_pb2.SubmitMoveResponse, token=token)

    async def log(
        self, game: str, token: str | None = None, *, page_size: int = 0
    ) -> service_pb2.GetGameLogResponse:
        """``GetGameLog`` as ``token``'s seat, or a spectator: every page, followed by its
        ``next_page_token`` and merged into one response (with no token of its own)."""
        whole = service_pb2.GetGameLogResponse()
        request = service_pb2.GetGameLogRequest(game=game, page_size=page_size)
        while True:
            page = await self.log_page(request, token)
            whole.events.extend(page.events)
            whole.deals.extend(page.deals)
            if page.HasField("seed"):
                whole.seed = page.seed
            if not page.next_page_token:
                return whole
            request.page_token = page.next_page_token

    async def log_page(
        self, request: service_pb2.GetGameLogRequest, token: str | None = None
    ) -> service_pb2.GetGameLogResponse:
        """One ``GetGameLog`` page."""
        return await self.call("GetGameLog", request, service_pb2.GetGameLogResponse, token=token)


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
    "GetHint": ("GET", "/v1/games/{game}/hint", ("game",)),
    "ReviewGame": ("GET", "/v1/games/{game}/review", ("game",)),
}


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

    def __init__(self, process: RefereeProcess) -> None:
        super().__init__(process)
        self.http = httpx.AsyncClient(base_url=process.http_url, timeout=CALL_TIMEOUT)

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
        headers = dict(_credentials(token, api_key))
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
        self,
        game: str,
        token: str | None = None,
        from_version: int | None = None,
        *,
        last_event_id: int | None = None,
    ) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
        """As :meth:`Client.watch`; ``from_version`` travels as the ``fromVersion`` query
        parameter and ``last_event_id`` as the ``Last-Event-ID`` header."""
        request = service_pb2.WatchGameRequest(game=game)
        if from_version is not None:
            request.from_version = from_version
        _, path, query = _http_request("WatchGame", request)
        headers = dict(_credentials(token, None))
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        async with self.http.stream(
            "GET",
            path,
            params=query,
            headers=headers,
            # A quiet stream sends a keep-alive comment every 15 s: no read may wait longer.
            timeout=httpx.Timeout(CALL_TIMEOUT, read=60.0),
        ) as response:
            if response.status_code != 200:
                raise Refused.from_http(response.status_code, await response.aread())
            assert response.headers["content-type"].startswith("text/event-stream")
            async for event in sse_events(response):
                if not event.data:
                    continue  # a keep-alive comment
                assert len(event.data) == 1, "one data line per SSE event"
                if event.event == "end":
                    return
                if event.event == "error":
                    body = event.data[0].encode()
                    raise Refused.from_http(json.loads(body)["error"]["code"], body)
                assert event.event == "message", event
                item = json_format.Parse(event.data[0], service_pb2.WatchGameResponse())
                # The SSE id is the version: what a reconnecting client sends back.
                assert event.id == str(item.version), (event.id, item.version)
                yield item
        raise AssertionError("the event stream closed without its end event")

    async def aclose(self) -> None:
        await self.http.aclose()


# --- gRPC -------------------------------------------------------------------------------------


class GrpcClient(Client):
    """The gRPC transport through the generated ``hanafuda.v1`` stub."""

    transport = "grpc"

    def __init__(self, process: RefereeProcess) -> None:
        super().__init__(process)
        self.channel = grpc.aio.insecure_channel(process.grpc_target)
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
            response = await rpc(
                request, metadata=_credentials(token, api_key), timeout=CALL_TIMEOUT
            )
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
    ) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
        request = service_pb2.WatchGameRequest(game=game)
        if from_version is not None:
            request.from_version = from_version
        call = self.stub.WatchGame(request, metadata=_credentials(token, None))
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
        client = HttpClient(process)
    elif transport == "grpc":
        client = GrpcClient(process)
    else:
        raise ValueError(f"unknown transport {transport!r}")
    try:
        yield client
    finally:
        await client.aclose()


@asynccontextmanager
async def connect(*processes: RefereeProcess) -> AsyncIterator[list[Client]]:
    """A client of each process over each of :data:`TRANSPORTS` (HTTP first), process by
    process, all closed afterwards."""
    async with AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(open_client(transport, process))
            for process in processes
            for transport in TRANSPORTS
        ]


async def collect(
    stream: AsyncIterator[service_pb2.WatchGameResponse], timeout: float = 60.0
) -> list[service_pb2.WatchGameResponse]:
    """Every item of a stream that ends by itself (a finished game's), within ``timeout``."""
    items = []
    async with asyncio.timeout(timeout):
        async for item in stream:
            items.append(item)
    return items
