"""The HTTP/JSON transport: a Litestar app whose routes are generated from the proto contract.

Every RPC of ``hanafuda.v1.RefereeService`` is served at the verb and path of its
``google.api.http`` option (see :mod:`hanafuda_referee.http.routes`), with proto3 canonical
JSON in and out, and dispatched by name to the application object: ``await
referee.<Method>(request, caller)``, or ``async for item in referee.<Method>(request, caller)`` for
a server-streaming method, served as Server-Sent Events. The transport knows nothing of the
referee beyond that convention and ``ApiError``.

The player token comes in ``Authorization: Bearer <token>``; on the GET routes a browser page
reads (GetGame, WatchGame, GetGameLog: an ``EventSource`` cannot set headers) it may come as the
``access_token`` query parameter instead. The query string is never logged (the canonical line
holds no URL; the service runs uvicorn without its access log), and such responses are marked
``Cache-Control: private, no-store``, since their URL alone now selects a seat's private view.

Besides the RPCs: ``GET /openapi.json`` (generated from the descriptors, see
:mod:`hanafuda_referee.http.openapi`), ``/healthz``, ``/readyz`` and ``/metrics``; and, unless
the config's ``table`` is off, the browser table at ``/`` (see :mod:`hanafuda_referee.http.page`).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import parse_qsl

from google.protobuf import timestamp_pb2
from google.protobuf.message import Message as ProtoMessage
from hanafuda.v1 import game_pb2, rules_pb2, service_pb2
from litestar import Litestar, Request, Response, get
from litestar.config.cors import CORSConfig
from litestar.enums import HttpMethod
from litestar.exceptions import (
    HTTPException,
    MethodNotAllowedException,
    NotFoundException,
)
from litestar.handlers import HTTPRouteHandler
from litestar.response import Stream
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from hanafuda_referee.calls.caller import (
    QUERY_TOKEN_PARAMETER,
    Caller,
    bearer_token,
    new_request_id,
    sent_twice,
    takes_query_token,
)
from hanafuda_referee.calls.errors import RETRY_AFTER, ApiError
from hanafuda_referee.calls.forwarding import NO_PROXIES, TrustedProxies
from hanafuda_referee.hosting.referee import reply_method
from hanafuda_referee.http.errors import error_body, transport_error_body
from hanafuda_referee.http.openapi import build_openapi
from hanafuda_referee.http.page import table_handlers
from hanafuda_referee.http.routes import (
    HttpBinding,
    bind_request,
    service_bindings,
)
from hanafuda_referee.identity_cache import IdentityCache
from hanafuda_referee.observability.logs import ClientGone, observe
from hanafuda_referee.observability.metrics import render as render_metrics
from hanafuda_referee.writers.forms import JSON
from hanafuda_referee.writers.proto_json import JsonWriter

__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "SERVICE_NAME", "create_app", "request_id_of"]

_log = logging.getLogger(__name__)

#: The service whose methods are served.
SERVICE_NAME = "RefereeService"
#: The largest request body accepted when the config does not say.
DEFAULT_MAX_REQUEST_BYTES = 64 * 1024
_DEFAULT_KEEPALIVE_SECONDS = 15.0
# How long a stream's first item may take before the response starts anyway: an error the
# referee raises at once (unknown game, bad token) becomes a proper HTTP status, while a resume
# that waits for the next move does not hold the response back.
_DEFAULT_FIRST_ITEM_SECONDS = 1.0
#: SSE frames kept per streaming route for the other watchers of the same item.
_SHARED_FRAMES = 1024

#: The request field a stream's ``Last-Event-ID`` resumes from, and the response field whose
#: value is each event's SSE ``id``, as the contract names them (``WatchGame``).
RESUME_FIELD = "from_version"
EVENT_ID_FIELD = "version"

_REQUEST_ID_HEADER = "x-request-id"
_REQUEST_ID_SCOPE_KEY = "hanafuda_referee.request_id"
# A client's request id is echoed and logged, so only a short, plain one is taken as is.
_REQUEST_ID_PATTERN = re.compile(r"[A-Za-z0-9._:\-]{1,128}")
_CORS_HEADERS = ["authorization", "x-api-key", "x-request-id", "last-event-id", "content-type"]
_JSON = "application/json"
# For a response whose URL carried the token: no cache, shared or not, may keep a seat's view
# under a URL (RFC 6750 section 2.3 asks for at least `private`).
_QUERY_TOKEN_CACHE_CONTROL = "private, no-store"
_QUERY_TOKEN_HEADER = (b"cache-control", _QUERY_TOKEN_CACHE_CONTROL.encode())
_JSON_BYTES = _JSON.encode()
_REQUEST_ID_HEADER_BYTES = _REQUEST_ID_HEADER.encode()

#: Message types whose JSON is memoized (see
#: :class:`~hanafuda_referee.writers.proto_json.JsonWriter`): values that repeat from response to
#: response, a game's rule set (in every view) and finished rounds (in every view after them), the
#: time of events (the same for all the events of a move) and the seats (a seat's line changes only
#: when it plays). Only a cost matter: any type could be listed, or none.
_MEMOIZED_TYPES = (
    rules_pb2.Rules.DESCRIPTOR.full_name,
    game_pb2.RoundResult.DESCRIPTOR.full_name,
    timestamp_pb2.Timestamp.DESCRIPTOR.full_name,
    game_pb2.SeatInfo.DESCRIPTOR.full_name,
)

# Streams' cleanup tasks: held here so they are not garbage-collected before they finish.
_cleanups: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class _Settings:
    max_request_bytes: int
    cors_origins: tuple[str, ...]
    keepalive_seconds: float
    first_item_seconds: float
    trusted_proxies: TrustedProxies


def _settings(config: object | None) -> _Settings:
    """The transport's settings from any config object (missing attributes take defaults)."""
    origins = getattr(config, "cors_origins", None) or ()
    return _Settings(
        max_request_bytes=int(getattr(config, "max_request_bytes", DEFAULT_MAX_REQUEST_BYTES)),
        cors_origins=tuple(str(origin) for origin in origins),
        keepalive_seconds=float(
            getattr(config, "sse_keepalive_seconds", _DEFAULT_KEEPALIVE_SECONDS)
        ),
        first_item_seconds=float(
            getattr(config, "sse_first_item_seconds", _DEFAULT_FIRST_ITEM_SECONDS)
        ),
        trusted_proxies=TrustedProxies.parse(getattr(config, "trusted_proxies", None) or ()),
    )


def create_app(referee: object, config: object | None = None) -> Litestar:
    """The HTTP app serving ``referee``.

    ``config`` is read for ``max_request_bytes`` (default 64 KiB), ``cors_origins`` (allowed
    browser origins; none by default, which turns CORS off), ``api_key`` (only for the OpenAPI
    document to say the server has one: the referee itself checks ``Caller.api_key`` on the
    methods that need it), ``table`` (serve the browser table at ``/``; default on),
    ``trusted_proxies`` (the proxies whose ``X-Forwarded-For`` names the client: see
    :mod:`~hanafuda_referee.calls.forwarding`; none by default), and, mostly
    for tests,
    ``sse_keepalive_seconds`` (default 15) and ``sse_first_item_seconds`` (default 1).
    """
    settings = _settings(config)
    service = service_pb2.DESCRIPTOR.services_by_name[SERVICE_NAME]
    bindings = service_bindings(service)
    writer = JsonWriter(memoized=_MEMOIZED_TYPES)
    handlers: list[HTTPRouteHandler] = [
        _rpc_handler(binding, referee, settings, writer) for binding in bindings
    ]
    document = build_openapi(
        service, bindings, api_key_configured=bool(getattr(config, "api_key", None))
    )
    handlers.extend(_operations_handlers(referee, _dump(document)))
    if getattr(config, "table", True):
        handlers.extend(table_handlers())
    cors = (
        CORSConfig(
            allow_origins=list(settings.cors_origins),
            # The verbs the routes use, as the bindings give them: a preflight should not
            # promise methods no route serves.
            allow_methods=[
                HttpMethod(verb)
                for verb in sorted({binding.verb.upper() for binding in bindings} | {"OPTIONS"})
            ],
            allow_headers=list(_CORS_HEADERS),
            expose_headers=[_REQUEST_ID_HEADER],
        )
        if settings.cors_origins
        else None
    )
    return Litestar(
        route_handlers=handlers,
        # The document is generated from the proto descriptors; Litestar's own would describe
        # the generic handlers, not the API.
        openapi_config=None,
        cors_config=cors,
        exception_handlers={Exception: _on_exception},
        before_send=[_echo_request_id],
        # The body limit is enforced by the RPC handlers, which answer REQUEST_TOO_LARGE (400)
        # as the contract says, rather than Litestar's 413.
        request_max_body_size=None,
        debug=False,
        # Logging belongs to the process (the service configures it once); Litestar's default
        # would install its own root handler. The transport logs what it must by itself.
        logging_config=None,
    )


def _dump_text(document: object) -> str:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def _dump(document: object) -> bytes:
    return _dump_text(document).encode()


def _json_response(payload: object, status_code: int = 200) -> Response[bytes]:
    return Response(content=_dump(payload), media_type=_JSON, status_code=status_code)


# Request ids ---------------------------------------------------------------------------------


def request_id_of(scope: Scope) -> str:
    """The request's id: the client's ``x-request-id`` when it is a plain short token, else a
    generated one; the same for the whole request (handler, logs, response header)."""
    state = cast(MutableMapping[str, Any], scope)
    existing = state.get(_REQUEST_ID_SCOPE_KEY)
    if isinstance(existing, str):
        return existing
    request_id = ""
    for name, value in scope.get("headers", ()):
        if name.lower() == _REQUEST_ID_HEADER_BYTES:
            request_id = value.decode("latin-1").strip()
            break
    if not _REQUEST_ID_PATTERN.fullmatch(request_id):
        request_id = new_request_id()
    state[_REQUEST_ID_SCOPE_KEY] = request_id
    return request_id


async def _echo_request_id(message: Message, scope: Scope) -> None:
    """Adds ``x-request-id`` to every HTTP response, errors and unknown routes included (a
    ``before_send`` hook runs for those; a route middleware would not)."""
    if message["type"] != "http.response.start":
        return
    headers = message.get("headers", ())
    for name, _ in headers:
        if name.lower() == _REQUEST_ID_HEADER_BYTES:
            return
    message["headers"] = [*headers, (_REQUEST_ID_HEADER_BYTES, request_id_of(scope).encode())]


# Errors ----------------------------------------------------------------------------------------


def _on_exception(request: Request[Any, Any, Any], error: Exception) -> Response[bytes]:
    """Every error as an AIP-193 body: ``ApiError`` with its own status and reason, Litestar's
    HTTP errors with their status, anything else as 500 with no detail of what went wrong."""
    headers: dict[str, str] = {}
    if isinstance(error, ApiError):
        status, body = error.http_status, error_body(error)
        if RETRY_AFTER in error.metadata:
            headers = {"retry-after": error.metadata[RETRY_AFTER]}
    elif isinstance(error, HTTPException) and error.status_code < 500:
        status = error.status_code
        headers = {str(k): str(v) for k, v in (error.headers or {}).items()}
        if status == 413:
            too_large = ApiError("REQUEST_TOO_LARGE", "the request body is too large")
            status, body = too_large.http_status, error_body(too_large)
        elif isinstance(error, NotFoundException):
            body = transport_error_body(
                404, f"no route for {request.method} {_shown_path(request)}"
            )
        elif isinstance(error, MethodNotAllowedException):
            body = transport_error_body(
                405, f"{request.method} is not allowed on {_shown_path(request)}"
            )
        else:
            body = transport_error_body(status, str(error.detail))
    elif isinstance(error, HTTPException) and error.status_code in (501, 503):
        status, body = error.status_code, transport_error_body(error.status_code, error.detail)
    elif isinstance(error, ClientGone):
        # Nobody is left to read it (uvicorn drops it); not a failure of the service.
        status, body = 400, transport_error_body(400, str(error))
    else:
        _log.error(
            "unhandled error in %s %s (request %s)",
            request.method,
            request.url.path,
            request_id_of(request.scope),
            exc_info=error,
        )
        status, body = 500, transport_error_body(500, "internal error")
    return Response(content=_dump(body), media_type=_JSON, status_code=status, headers=headers)


def _shown_path(request: Request[Any, Any, Any]) -> str:
    """The request path for an error message, cut short: it is the client's input."""
    path = request.url.path
    return path if len(path) <= 200 else path[:200] + "…"


# Requests --------------------------------------------------------------------------------------


#: The request headers the RPC handlers read.
_READ_HEADERS = frozenset(
    {
        b"authorization",
        b"x-api-key",
        b"content-length",
        b"content-type",
        b"traceparent",
        b"x-forwarded-for",
    }
)


def _headers(scope: Scope) -> dict[bytes, str]:
    """The value of each header of :data:`_READ_HEADERS`, by lower-case name, decoded as
    Litestar decodes headers (latin-1); read straight from the ASGI scope, which is cheaper
    than building Litestar's multi-dict of every header. A credential sent twice is refused
    (:func:`~hanafuda_referee.calls.caller.sent_twice`), as over gRPC."""
    found: dict[bytes, str] = {}
    for name, value in scope.get("headers", ()):
        name = name.lower()
        if name in _READ_HEADERS:
            if name == b"x-forwarded-for" and name in found:
                # Several are one list, in order (RFC 9110, 5.3).
                found[name] += ", " + value.decode("latin-1")
                continue
            if name in found and name in (b"content-type", b"traceparent"):
                # Two media types: neither is taken for JSON. Two trace parents: W3C Trace
                # Context has the request start a trace of its own.
                found[name] = ""
                continue
            if name in found and name != b"content-length":
                raise sent_twice(name.decode())
            found[name] = value.decode("latin-1")
    return found


def _caller(
    scope: Scope,
    headers: dict[bytes, str],
    query_token: str | None = None,
    proxies: TrustedProxies = NO_PROXIES,
) -> Caller:
    """Who calls: the bearer token (or ``query_token``, the route's ``access_token``), the API
    key, the request id and the client's address (its peer's, or what a trusted proxy among
    ``proxies`` says of it). The transport checks only their form; which method needs which
    credential is the referee's business."""
    token = query_token
    authorization = headers.get(b"authorization")
    if authorization is not None and query_token is not None:
        # RFC 6750 allows one way per request: two tokens that might differ are not guessed at.
        raise ApiError(
            "INVALID_ARGUMENT",
            f"send the player token in the Authorization header or in {QUERY_TOKEN_PARAMETER}, "
            "not both",
        )
    if authorization is not None:
        token = bearer_token(authorization)
    client = scope.get("client")
    return Caller(
        token=token,
        api_key=headers.get(b"x-api-key"),
        request_id=request_id_of(scope),
        transport="http",
        address=_client_address(client[0] if client else "", headers, proxies),
        trace_parent=headers.get(b"traceparent", ""),
    )


def _client_address(peer: str, headers: dict[bytes, str], proxies: TrustedProxies) -> str:
    forwarded = headers.get(b"x-forwarded-for")
    if forwarded is None or not proxies:
        return peer
    return proxies.client_address(peer, (forwarded,))


def _too_large(limit: int) -> ApiError:
    return ApiError(
        "REQUEST_TOO_LARGE",
        f"the request body exceeds {limit} bytes",
        {"max_request_bytes": str(limit)},
    )


def _is_json(media_type: str) -> bool:
    """Whether a ``Content-Type`` value declares JSON (parameters such as a charset aside).

    >>> _is_json("application/json"), _is_json("Application/JSON; charset=utf-8")
    (True, True)
    >>> _is_json("text/plain"), _is_json("application/x-www-form-urlencoded"), _is_json("")
    (False, False, False)
    """
    return media_type.partition(";")[0].strip().lower() == "application/json"


def _unsupported_media_type(media_type: str | None) -> ApiError:
    """The refusal of a body not declared as JSON: a cross-site page can send ``text/plain``
    or a form without asking the browser's permission (a "simple" request), never JSON."""
    sent = "no Content-Type" if media_type is None else f"Content-Type {media_type!r}"
    return ApiError(
        "UNSUPPORTED_MEDIA_TYPE", f"the request body must be application/json, not {sent}"
    )


async def _read_body(request: Request[Any, Any, Any], declared: str | None, limit: int) -> bytes:
    """The request body, refused with REQUEST_TOO_LARGE as soon as it exceeds ``limit``: from
    the Content-Length (``declared``) alone when there is one, else while it streams in, never
    buffered whole."""
    if declared is not None:
        try:
            length = int(declared)
        except ValueError:
            raise ApiError("INVALID_ARGUMENT", "Content-Length is not a number") from None
        if length > limit:
            raise _too_large(limit)
    # Straight from the ASGI channel, as Litestar's ``request.stream()`` reads it (the handlers
    # take no body parameter, so nothing has read it before), without an async generator and a
    # yield per chunk: the body is on every move's path.
    receive = request.receive
    chunks: list[bytes] = []
    size = 0
    while True:
        event = await receive()
        if event["type"] == "http.disconnect":
            raise ClientGone("the client closed the connection before its request was whole")
        if event["type"] != "http.request":
            continue
        chunk = event.get("body", b"")
        if chunk:
            size += len(chunk)
            if size > limit:
                raise _too_large(limit)
            chunks.append(chunk)
        if not event.get("more_body", False):
            break
    request.is_connected = False
    return b"".join(chunks)


def _split_query_token(
    binding: HttpBinding, query: list[tuple[str, str]]
) -> tuple[list[tuple[str, str]], str | None]:
    """The query without ``access_token``, and the token it carried (None when absent).

    Refused on a route that does not take it (rather than ignored, which would silently serve
    a spectator) and when repeated or empty. No message repeats the value.
    """
    values = [value for name, value in query if name == QUERY_TOKEN_PARAMETER]
    if not values:
        return query, None
    if not takes_query_token(binding.method.name, binding.verb):
        raise ApiError(
            "INVALID_ARGUMENT",
            f"{QUERY_TOKEN_PARAMETER} is only taken by the GET routes of a game; "
            "send the token as 'Authorization: Bearer <token>'",
            {"parameter": QUERY_TOKEN_PARAMETER},
        )
    if len(values) > 1:
        raise ApiError(
            "INVALID_ARGUMENT",
            f"{QUERY_TOKEN_PARAMETER} is given more than once",
            {"parameter": QUERY_TOKEN_PARAMETER},
        )
    token = values[0].strip()
    if not token:
        raise ApiError("BAD_TOKEN", f"{QUERY_TOKEN_PARAMETER} is empty")
    return [(name, value) for name, value in query if name != QUERY_TOKEN_PARAMETER], token


def _query(request: Request[Any, Any, Any]) -> list[tuple[str, str]]:
    raw = request.scope.get("query_string", b"").decode("latin-1")
    if not raw:
        return []  # most requests: no need to go through parse_qsl
    try:
        return parse_qsl(raw, keep_blank_values=True, errors="strict", max_num_fields=256)
    except (UnicodeDecodeError, ValueError):
        raise ApiError("INVALID_ARGUMENT", "the query string does not decode") from None


class _JsonAnswer:
    """A 200 answer of JSON text, as the ASGI app an RPC handler returns: its headers written
    once, as ASGI wants them, where Litestar's ``ASGIResponse`` builds a header multi-dict and
    encodes it again on every request (a twentieth of a move's time in the HTTP layer). The
    request id header is there already, so :func:`_echo_request_id` leaves it be."""

    __slots__ = ("_body", "_headers")

    def __init__(self, body: bytes, request_id: str, token_in_query: bool) -> None:
        self._body = body
        self._headers = [
            (b"content-type", _JSON_BYTES),
            (b"content-length", str(len(body)).encode()),
            (_REQUEST_ID_HEADER_BYTES, request_id.encode("latin-1")),
        ]
        if token_in_query:
            self._headers.append(_QUERY_TOKEN_HEADER)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self._headers})
        await send({"type": "http.response.body", "body": self._body, "more_body": False})


def _method_of(referee: object, binding: HttpBinding) -> Callable[..., Any]:
    call = getattr(referee, binding.method.name, None)
    if not callable(call):
        raise HTTPException(status_code=501, detail=f"{binding.method.name} is not implemented")
    return cast(Callable[..., Any], call)


def _rpc_handler(
    binding: HttpBinding, referee: object, settings: _Settings, writer: JsonWriter
) -> HTTPRouteHandler:
    """The Litestar handler of one binding: the path, verb and a generic body."""

    method_name = binding.method.name
    streaming = binding.streaming

    async def bind(request: Request[Any, Any, Any]) -> tuple[ProtoMessage, Caller, bool]:
        """The request message, the caller, and whether the token came in the query.

        A request refused here never reaches the referee, which writes the canonical line and
        counts the request; it is logged and counted here instead, as the gRPC transport does
        with what its deserializer refuses.
        """
        started = time.perf_counter()
        try:
            query, query_token = _split_query_token(binding, _query(request))
            headers = _headers(request.scope)
            caller = _caller(request.scope, headers, query_token, settings.trusted_proxies)
            body = b""
            if binding.body:
                media_type = headers.get(b"content-type")
                if media_type is not None and not _is_json(media_type):
                    raise _unsupported_media_type(media_type)
                body = await _read_body(
                    request, headers.get(b"content-length"), settings.max_request_bytes
                )
                if body and media_type is None:
                    raise _unsupported_media_type(None)
            message = bind_request(binding, path_params=request.path_params, query=query, body=body)
            if streaming:
                _resume_from_last_event_id(request, message)
        except (ApiError, ClientGone):
            # The caller itself may be what was refused: the line names the request alone.
            anonymous = Caller(
                request_id=request_id_of(request.scope),
                transport="http",
                trace_parent=request.headers.get("traceparent", ""),
            )
            async with observe(method_name, anonymous, started):
                raise
        return message, caller, query_token is not None

    # A method whose answer can be written as JSON without its message (see
    # Referee.SubmitMoveReply) is called that way; the others return the message.
    replying = None if binding.response_body else reply_method(referee, binding.method.name)

    async def unary(request: Request[Any, Any, Any]) -> ASGIApp:
        message, caller, token_in_query = await bind(request)
        if replying is not None:
            text = (await replying(message, caller)).written(JSON)
        else:
            result = await _method_of(referee, binding)(message, caller)
            if not isinstance(result, binding.response_class):
                raise TypeError(
                    f"{binding.method.name} returned {type(result).__name__}, "
                    f"not {binding.response_class.__name__}"
                )
            text = (
                writer.field(result, binding.response_body)
                if binding.response_body
                else writer.message(result)
            )
        # An ASGI app (the annotation tells Litestar to pass it through): a Response would be
        # converted into one on every request.
        return _JsonAnswer(text.encode(), caller.request_id, token_in_query)

    # The watchers of a game share their items (see games.WatchCursor): the frame written for
    # one is kept for the others, found by the item's identity.
    frames: IdentityCache[ProtoMessage, bytes] = IdentityCache(_SHARED_FRAMES)

    async def stream(request: Request[Any, Any, Any]) -> Response[Any]:
        message, caller, token_in_query = await bind(request)
        response = await _open_stream(
            _method_of(referee, binding)(message, caller), settings, writer, frames
        )
        if token_in_query:
            response.headers["cache-control"] = _QUERY_TOKEN_CACHE_CONTROL
        return response

    handler = stream if binding.streaming else unary
    handler.__name__ = handler.__qualname__ = f"rpc_{binding.operation_id}"
    return HTTPRouteHandler(
        path=binding.litestar_path,
        http_method=HttpMethod(binding.verb),
        status_code=200,
        name=f"rpc:{binding.operation_id}",
    )(handler)


# Server-Sent Events ----------------------------------------------------------------------------


def _resume_from_last_event_id(request: Request[Any, Any, Any], message: ProtoMessage) -> None:
    """Maps ``Last-Event-ID`` onto the resume field. It wins over the query parameter: an
    EventSource reconnects to the same URL (its original ``fromVersion`` included) and says in
    this header how far it actually got."""
    header = request.headers.get("last-event-id", "").strip()
    if not header or RESUME_FIELD not in message.DESCRIPTOR.fields_by_name:
        return
    # ASCII digits only (str.isdigit also takes "²", which int() refuses), and a version the
    # field can hold (2**64 - 1 has 20 digits; int() refuses thousands).
    if not (header.isascii() and header.isdigit()) or len(header) > 20 or int(header) >= 2**64:
        raise ApiError(
            "INVALID_ARGUMENT", "Last-Event-ID must be a version number", {"header": header[:32]}
        )
    setattr(message, RESUME_FIELD, int(header))


async def _open_stream(
    items: object,
    settings: _Settings,
    writer: JsonWriter,
    frames: IdentityCache[ProtoMessage, bytes],
) -> Response[Any]:
    """The SSE response over the referee's stream, or the error its first item raised;
    ``frames``: the frames written so far, by item."""
    if inspect.isawaitable(items):
        items = await items
    iterator = aiter(cast(AsyncIterator[ProtoMessage], items))
    pending: asyncio.Future[ProtoMessage] = asyncio.ensure_future(anext(iterator))
    try:
        await asyncio.wait({pending}, timeout=settings.first_item_seconds)
    except BaseException:
        # Cancelled (the client left) before the response started.
        _close_later(pending, iterator)
        raise
    if pending.done() and not pending.cancelled():
        error = pending.exception()
        if error is not None and not isinstance(error, StopAsyncIteration):
            # Raised before any byte is sent: a plain HTTP error response.
            _close_later(pending, iterator)
            raise error
    return Stream(
        _sse(iterator, pending, settings, writer, frames),
        media_type="text/event-stream",
        status_code=200,
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )


async def _sse(
    iterator: AsyncIterator[ProtoMessage],
    pending: asyncio.Future[ProtoMessage],
    settings: _Settings,
    writer: JsonWriter,
    frames: IdentityCache[ProtoMessage, bytes],
) -> AsyncIterator[bytes]:
    """SSE frames: one event per stream item, a comment when the stream is quiet, an ``end``
    event when the referee's stream ends, an ``error`` event (then the end) when it fails.

    The client going away cancels this generator (Litestar listens for the disconnect); the
    referee's stream is then closed in a task of its own, which that cancellation cannot
    interrupt.
    """
    try:
        while True:
            done, _ = await asyncio.wait({pending}, timeout=settings.keepalive_seconds)
            if not done:
                yield b": keep-alive\n\n"
                continue
            try:
                item = pending.result()
            except StopAsyncIteration:
                yield b"event: end\ndata: {}\n\n"
                return
            except ApiError as error:
                yield _sse_frame(_dump_text(error_body(error)), event="error")
                return
            except Exception:
                _log.exception("a stream failed")
                yield _sse_frame(
                    _dump_text(transport_error_body(500, "internal error")), event="error"
                )
                return
            frame = frames.get(item)
            if frame is None:
                frame = frames.put(item, _sse_frame(writer.message(item), event_id=_event_id(item)))
            yield frame
            pending = asyncio.ensure_future(anext(iterator))
    finally:
        _close_later(pending, iterator)


def _event_id(item: ProtoMessage) -> str | None:
    if EVENT_ID_FIELD not in item.DESCRIPTOR.fields_by_name:
        return None
    return str(getattr(item, EVENT_ID_FIELD))


def _sse_frame(data: str, *, event: str | None = None, event_id: str | None = None) -> bytes:
    """One SSE event of compact JSON ``data``, which holds no raw newline: a single line."""
    lines = []
    if event is not None:
        lines.append(f"event: {event}")
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append("data: " + data)
    return ("\n".join(lines) + "\n\n").encode()


def _close_later(pending: asyncio.Future[ProtoMessage], iterator: AsyncIterator[Any]) -> None:
    """Cancels the pending item and closes the referee's stream, in a task of its own."""
    if not pending.done():
        pending.cancel()

    async def close() -> None:
        # The outcome of an abandoned item is irrelevant; only the generator's cleanup matters.
        with contextlib.suppress(BaseException):
            await pending
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:
                _log.exception("closing a stream failed")

    task = asyncio.get_running_loop().create_task(close())
    _cleanups.add(task)
    task.add_done_callback(_cleanups.discard)


# Operations ------------------------------------------------------------------------------------


def _operations_handlers(referee: object, document: bytes) -> list[HTTPRouteHandler]:
    """``/healthz``, ``/readyz``, ``/metrics`` and ``/openapi.json``."""

    @get("/healthz", name="healthz")
    async def healthz() -> Response[bytes]:
        return _json_response({"status": "ok"})

    @get("/readyz", name="readyz")
    async def readyz() -> Response[bytes]:
        ready: Callable[[], object] | None = getattr(referee, "ready", None)
        if ready is not None:
            try:
                result = ready()
                if inspect.isawaitable(result):
                    result = await cast(Awaitable[object], result)
            except Exception:
                _log.exception("readiness check failed")
                result = False
            if result is False:
                raise ApiError("UNAVAILABLE", "the service is not ready")
        return _json_response({"status": "ready"})

    @get("/metrics", name="metrics")
    async def metrics() -> Response[bytes]:
        # This process's metrics, or every worker's added up (see observability.metrics).
        content, media_type = render_metrics()
        return Response(content=content, media_type=media_type, status_code=200)

    @get("/openapi.json", name="openapi")
    async def openapi() -> Response[bytes]:
        return Response(content=document, media_type=_JSON, status_code=200)

    return [healthz, readyz, metrics, openapi]
