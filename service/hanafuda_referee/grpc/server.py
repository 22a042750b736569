"""The gRPC transport: ``hanafuda.v1.RefereeService`` on a ``grpc.aio`` server.

Every RPC is delegated by name to the :class:`~hanafuda_referee.hosting.referee.Referee` method of
the same name (the handlers are built from the service descriptor, so a new RPC needs no code here).
Requests carry the player token in the metadata ``authorization: Bearer <token>``, the API key in
``x-api-key`` and an optional ``x-request-id`` for the logs.

Errors are rich: the status carries a ``google.rpc.Status`` (in the ``grpc-status-details-bin``
trailer) whose details hold one ``google.rpc.ErrorInfo`` with the reason, the service's domain
and the error's metadata; clients read it with ``grpc_status.rpc_status.from_call``. Unexpected
failures become ``INTERNAL`` with a fixed message, so no internal detail reaches a client.

Request size: a request message over ``max_request_bytes`` is refused with ``INVALID_ARGUMENT`` and
the reason ``REQUEST_TOO_LARGE`` (as on HTTP), and one that does not parse with ``BAD_ENCODING``.
Both are decided by the request deserializer, which sees the raw bytes before anything is parsed,
and raised inside the call's :func:`~hanafuda_referee.observability.logs.observe`, so they are
logged and counted like any refusal. grpc itself accepts messages up to :data:`HARD_CAP_FACTOR`
times the limit, so that those reach our check; anything larger is cut off by grpc with
``RESOURCE_EXHAUSTED`` (no ``ErrorInfo``), which bounds the memory a request can take.

The server also serves the standard health service (``grpc.health.v1.Health``) and server
reflection, as both ``grpc.reflection.v1`` and ``grpc.reflection.v1alpha`` (see
:func:`_enable_reflection`). Health: the overall status ``""`` is liveness (SERVING while the
process serves); the referee's service name is readiness, NOT_SERVING while the game store does
not answer (:meth:`GrpcServer.set_ready`, kept in step by the service), like ``/readyz`` on HTTP.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool
from google.protobuf.message import DecodeError, Message
from google.rpc import code_pb2, error_details_pb2, status_pb2  # type: ignore[import-untyped]
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped]
    reflection,
    reflection_pb2,
    reflection_pb2_grpc,
)
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import service_pb2

from hanafuda_referee.calls.caller import (
    CREDENTIAL_HEADERS,
    Caller,
    bearer_token,
    new_request_id,
    peer_host,
    sent_twice,
)
from hanafuda_referee.calls.errors import DOMAIN, RETRY_AFTER, ApiError
from hanafuda_referee.calls.forwarding import NO_PROXIES, TrustedProxies
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.observability.logs import logger, observe

__all__ = [
    "HARD_CAP_FACTOR",
    "IDLE_TIMEOUT",
    "REFLECTION_V1",
    "SERVICE_NAME",
    "GrpcServer",
    "caller_from_metadata",
    "error_status",
    "tls_credentials",
]

#: The full name of the referee's gRPC service.
SERVICE_NAME = "hanafuda.v1.RefereeService"
#: The full name of the stable server reflection service, served beside v1alpha's.
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
_SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]
#: Responses can be much larger than requests (a finished game's log holds every deal).
_MAX_SEND_BYTES = 64 * 1024 * 1024
#: Seconds the stop waits, past the grace, for the calls it cancelled to finish (see
#: :meth:`GrpcServer.stop`).
_CANCELLED_CALLS_WAIT = 3.0
#: grpc's own receive limit is this many times ``max_request_bytes``: a request over the limit
#: but under this cap reaches our deserializer and is refused with a proper reason; the cap still
#: keeps a huge request from being buffered whole.
HARD_CAP_FACTOR = 4
#: Seconds a connection may go without a call before the server closes it. Channels are meant
#: to live long, so far longer than HTTP's keep-alive (uvicorn's 5 s): a client that calls
#: every few minutes keeps its connection, one that went quiet reconnects at its next call.
IDLE_TIMEOUT = 300.0


def error_status(error: ApiError) -> status_pb2.Status:
    """The ``google.rpc.Status`` of a refusal: code, message and one ``ErrorInfo``, then a
    ``RetryInfo`` when the refusal says when to retry (as HTTP's ``Retry-After``)."""
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    details = [detail]
    if RETRY_AFTER in error.metadata:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.seconds = int(error.metadata[RETRY_AFTER])
        details.append(any_pb2.Any())
        details[-1].Pack(retry)
    return status_pb2.Status(code=error.grpc_code.value[0], message=error.message, details=details)


def _internal_status() -> status_pb2.Status:
    return status_pb2.Status(code=code_pb2.INTERNAL, message="internal error")


def caller_from_metadata(
    metadata: Any,
    transport: str = "grpc",
    address: str = "",
    proxies: TrustedProxies = NO_PROXIES,
) -> tuple[Caller, ApiError | None]:
    """The :class:`Caller` of a request's invocation metadata (pairs of key and value), and
    the refusal its credentials earn, read as HTTP reads its headers: ``authorization`` must be
    ``Bearer <token>`` (:func:`~hanafuda_referee.calls.caller.bearer_token`), and neither it nor
    ``x-api-key`` may come twice. ``address`` is the peer's; when the peer is one of the trusted
    ``proxies``, its ``x-forwarded-for`` names the client. With a refusal, the caller carries the
    request id alone (its line names no seat)."""
    credentials: dict[str, str] = {}
    forwarded: list[str] = []
    request_id = ""
    trace_parent: str | None = None
    refusal: ApiError | None = None
    for key, value in metadata or ():
        if isinstance(value, bytes):
            continue  # binary headers carry none of these
        if key in CREDENTIAL_HEADERS:
            if key in credentials and refusal is None:
                refusal = sent_twice(key)
            credentials[key] = value
        elif key == "x-request-id":
            request_id = value[:128]
        elif key == "x-forwarded-for":
            forwarded.append(value)
        elif key == "traceparent":
            # Sent twice: W3C Trace Context has the call start a trace of its own.
            trace_parent = value if trace_parent is None else ""
    request_id = request_id or new_request_id()
    parent = trace_parent or ""
    if forwarded and proxies:
        address = proxies.client_address(address, forwarded)
    authorization = credentials.get("authorization")
    token: str | None = None
    if refusal is None and authorization is not None:
        try:
            token = bearer_token(authorization)
        except ApiError as error:
            refusal = error
    if refusal is not None:
        refused = Caller(
            request_id=request_id, transport=transport, address=address, trace_parent=parent
        )
        return refused, refusal
    api_key = credentials.get("x-api-key")
    caller = Caller(
        token=token,
        api_key=api_key,
        request_id=request_id,
        transport=transport,
        address=address,
        trace_parent=parent,
    )
    return caller, None


@dataclass(frozen=True, slots=True)
class _Refused:
    """What the deserializer hands the handler in place of a request it would not parse."""

    error: ApiError


def _request_deserializer(
    request_type: type[Message], max_request_bytes: int
) -> Callable[[bytes], Message | _Refused]:
    """Parses a request, unless it is over the size limit or does not decode: then the handler
    gets the refusal to raise (a deserializer that raised would make grpc answer ``UNKNOWN``,
    outside our error model and our logs)."""

    def deserialize(raw: bytes) -> Message | _Refused:
        if len(raw) > max_request_bytes:
            return _Refused(
                ApiError(
                    "REQUEST_TOO_LARGE",
                    f"the request message exceeds {max_request_bytes} bytes",
                    {"max_request_bytes": str(max_request_bytes)},
                )
            )
        try:
            return request_type.FromString(raw)
        except DecodeError:
            return _Refused(
                ApiError("BAD_ENCODING", f"the request is not a valid {request_type.__name__}")
            )

    return deserialize


async def _abort(context: grpc.aio.ServicerContext[Any, Any], status: status_pb2.Status) -> None:
    await context.abort_with_status(rpc_status.to_status(status))


def _caller_of(
    request: Message | _Refused,
    context: grpc.aio.ServicerContext[Any, Any],
    proxies: TrustedProxies,
) -> tuple[Caller, ApiError | None]:
    """Who makes a call, and what refuses it before its method runs: its credentials, else a
    request the deserializer would not parse."""
    caller, refusal = caller_from_metadata(
        context.invocation_metadata(), address=peer_host(context.peer()), proxies=proxies
    )
    if refusal is None and isinstance(request, _Refused):
        refusal = request.error
    return caller, refusal


def _unary_handler(
    name: str, method: Callable[[Message, Caller], Awaitable[Message]], proxies: TrustedProxies
) -> Callable[[Message | _Refused, grpc.aio.ServicerContext[Any, Any]], Awaitable[Message]]:
    async def handle(
        request: Message | _Refused, context: grpc.aio.ServicerContext[Any, Any]
    ) -> Message:
        caller, refusal = _caller_of(request, context, proxies)
        try:
            async with observe(name, caller):
                if refusal is not None:
                    raise refusal
                assert not isinstance(request, _Refused)  # its error is the refusal
                return await method(request, caller)
        except ApiError as error:
            await _abort(context, error_status(error))
        except Exception:  # logged by observe(); the client learns nothing more
            await _abort(context, _internal_status())
        raise AssertionError("abort_with_status returns only by raising")

    return handle


def _stream_handler(
    name: str, method: Callable[[Message, Caller], AsyncIterator[Message]], proxies: TrustedProxies
) -> Callable[[Message | _Refused, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[Message]]:
    async def handle(
        request: Message | _Refused, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Message]:
        caller, refusal = _caller_of(request, context, proxies)
        try:
            async with observe(name, caller):
                if refusal is not None:
                    raise refusal
                assert not isinstance(request, _Refused)  # its error is the refusal
                async for item in method(request, caller):
                    yield item
        except ApiError as error:
            await _abort(context, error_status(error))
        except Exception:
            await _abort(context, _internal_status())

    return handle


def referee_handler(
    referee: Referee,
    *,
    max_request_bytes: int = 1024 * 1024,
    trusted_proxies: TrustedProxies = NO_PROXIES,
) -> grpc.GenericRpcHandler:
    """The generic handler of ``RefereeService``: each RPC calls the referee's method of the
    same name, with the request and response types of the service descriptor; a request over
    ``max_request_bytes`` is refused with ``REQUEST_TOO_LARGE`` before it is parsed. A call from
    one of ``trusted_proxies`` is its ``x-forwarded-for`` client's."""
    handlers: dict[str, grpc.RpcMethodHandler[Any, Any]] = {}
    for rpc in _SERVICE.methods:
        request_type: type[Message] = getattr(service_pb2, rpc.input_type.name)
        response_type: type[Message] = getattr(service_pb2, rpc.output_type.name)
        method = getattr(referee, rpc.name)
        if rpc.server_streaming:
            handlers[rpc.name] = grpc.unary_stream_rpc_method_handler(
                _stream_handler(rpc.name, method, trusted_proxies),
                request_deserializer=_request_deserializer(request_type, max_request_bytes),
                response_serializer=response_type.SerializeToString,
            )
        else:
            handlers[rpc.name] = grpc.unary_unary_rpc_method_handler(
                _unary_handler(rpc.name, method, trusted_proxies),
                request_deserializer=_request_deserializer(request_type, max_request_bytes),
                response_serializer=response_type.SerializeToString,
            )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)


def _reflection_v1_file() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto`` as v1alpha's file under v1's package: the same
    messages with the same fields and numbers, which is what v1 is."""
    alpha = descriptor_pb2.FileDescriptorProto.FromString(reflection_pb2.DESCRIPTOR.serialized_pb)
    old, new = ".grpc.reflection.v1alpha.", ".grpc.reflection.v1."
    alpha.name = "grpc/reflection/v1/reflection.proto"
    alpha.package = "grpc.reflection.v1"
    alpha.ClearField("options")
    for message in alpha.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name.removeprefix(old)
    for service in alpha.service:
        for method in service.method:
            method.input_type = new + method.input_type.removeprefix(old)
            method.output_type = new + method.output_type.removeprefix(old)
    return alpha


def _register_reflection_v1() -> None:
    """Add v1's file to the default descriptor pool (once), where reflection looks symbols up."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(REFLECTION_V1)
    except KeyError:
        pool.Add(_reflection_v1_file())


def _enable_reflection(service_names: Sequence[str], server: grpc.aio.Server) -> None:
    """Serve server reflection as both ``grpc.reflection.v1alpha`` and ``grpc.reflection.v1``,
    each listing ``service_names`` and the v1alpha reflection service.

    grpcio-reflection ships the v1alpha service alone. v1 is the same protocol under a new
    package: every message keeps its fields and their numbers, and a package never goes on the
    wire, so the library's own servicer answers v1 callers too once it is also routed at v1's
    method path. Current tools (grpcurl, Postman, buf curl) ask v1 first; older ones v1alpha.
    The library has no descriptor of v1's own file, so one is made from v1alpha's
    (:func:`_reflection_v1_file`): both services are listed, and both resolve, so a tool that
    describes every listed service (``grpcurl describe``) finds each one's file.
    """
    _register_reflection_v1()
    servicer = reflection.aio.ReflectionServicer(
        (*service_names, reflection.SERVICE_NAME, REFLECTION_V1)
    )
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    info = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": info}),)
    )


def tls_credentials(
    certificate: bytes, key: bytes, client_ca: bytes | None = None
) -> grpc.ServerCredentials:
    """The server's TLS credentials: its certificate chain and private key (PEM). With
    ``client_ca``, mutual TLS: a client must present a certificate that CA signed, or its
    connection is refused before any call."""
    return grpc.ssl_server_credentials(
        [(key, certificate)],
        root_certificates=client_ca,
        require_client_auth=client_ca is not None,
    )


class GrpcServer:
    """The gRPC server of a referee: RefereeService, health and reflection on one port.

    ``port`` 0 picks a free port (see :attr:`port` after :meth:`start`). A RefereeService
    request over ``max_request_bytes`` is refused with ``REQUEST_TOO_LARGE``. A client that has
    not opened its HTTP/2 session ``connect_timeout`` seconds after connecting is disconnected
    (0: grpc's default, 120 s). A connection with no call in flight for ``idle_timeout``
    seconds is closed (0: never).
    ``extra_handlers`` serve further services on the same port. ``credentials``: serve TLS
    with them (see :func:`tls_credentials`) instead of plain text. ``reuse_port``: bind with
    ``SO_REUSEPORT``, so that the workers of one service share the port (off, a port in use is
    refused). ``trusted_proxies``: the peers whose ``x-forwarded-for`` names their client.
    """

    def __init__(
        self,
        referee: Referee,
        *,
        host: str = "0.0.0.0",
        port: int = 50051,
        max_request_bytes: int = 1024 * 1024,
        connect_timeout: float = 0.0,
        idle_timeout: float = IDLE_TIMEOUT,
        extra_handlers: Sequence[grpc.GenericRpcHandler] = (),
        credentials: grpc.ServerCredentials | None = None,
        reuse_port: bool = False,
        trusted_proxies: TrustedProxies = NO_PROXIES,
    ) -> None:
        self._referee = referee
        # An IPv6 address in brackets, as gRPC reads a host and port: "::1:50051" is no port.
        self._address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self._credentials = credentials
        # A connection that has not opened its HTTP/2 session (the preface and SETTINGS)
        # within the timeout is closed; grpc's own default is 120 s.
        handshake = (
            [("grpc.server_handshake_timeout_ms", max(1, round(connect_timeout * 1000)))]
            if connect_timeout > 0
            else []
        )
        # A connection is otherwise held while it has no call for as long as its client likes:
        # grpc pings a peer only while calls are in flight, so even a dead one would stay.
        # Closing it sends GOAWAY, upon which a client's channel reconnects at its next call.
        idle = (
            [("grpc.max_connection_idle_ms", max(1, round(idle_timeout * 1000)))]
            if idle_timeout > 0
            else []
        )
        self._server = grpc.aio.server(
            options=[
                *handshake,
                *idle,
                # Our handler refuses what is over the limit (see HARD_CAP_FACTOR); grpc takes
                # a C int here.
                (
                    "grpc.max_receive_message_length",
                    min(max_request_bytes * HARD_CAP_FACTOR, 2**31 - 1),
                ),
                ("grpc.max_send_message_length", _MAX_SEND_BYTES),
                # Tell idle clients that the server is alive, and drop dead connections.
                ("grpc.keepalive_time_ms", 60_000),
                ("grpc.keepalive_timeout_ms", 20_000),
                # grpc binds with SO_REUSEPORT by default: a second process started on the same
                # port would then take half the calls, silently (on the in-process store, half
                # the games would seem to vanish). A port in use is refused at start instead,
                # unless the process is one of a service's workers, which share it.
                ("grpc.so_reuseport", 1 if reuse_port else 0),
            ]
        )
        self._server.add_generic_rpc_handlers(
            (
                referee_handler(
                    referee, max_request_bytes=max_request_bytes, trusted_proxies=trusted_proxies
                ),
                *extra_handlers,
            )
        )
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self._server)
        _enable_reflection(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name),
            self._server,
        )
        self.port = 0

    async def start(self) -> int:
        """Bind and start serving; returns the bound port. Raises OSError when the address
        cannot be bound (a port in use, even by another gRPC server)."""
        try:
            self.port = (
                self._server.add_insecure_port(self._address)
                if self._credentials is None
                else self._server.add_secure_port(self._address, self._credentials)
            )
        except RuntimeError as error:  # grpc's word for a failed bind
            raise OSError(f"cannot bind the gRPC server to {self._address}: {error}") from None
        if self.port == 0:
            raise OSError(f"cannot bind the gRPC server to {self._address}")
        await self._server.start()
        for service in ("", SERVICE_NAME):
            await self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    async def set_ready(self, ready: bool) -> None:
        """Report the referee's service as SERVING or NOT_SERVING (the store answers or not);
        the overall status ``""`` is left SERVING."""
        status = (
            health_pb2.HealthCheckResponse.SERVING
            if ready
            else health_pb2.HealthCheckResponse.NOT_SERVING
        )
        await self.health.set(SERVICE_NAME, status)

    async def stop(self, grace: float) -> None:
        """Stop gracefully: report NOT_SERVING, refuse new calls, give calls in flight up to
        ``grace`` seconds to finish, then cancel what is left.

        grpc's own stop waits, once it has cancelled the calls left at the grace's end, for
        every one of them to finish, with no bound: a stress of many stops with streams cut
        that way (tests/system/shutdown_stress.py) had it wait for ever about once in seven,
        until the supervisor killed the worker. It gets :data:`_CANCELLED_CALLS_WAIT` seconds
        for that; past them the server is left as it is (the process is ending), and said so.
        """
        await self.health.enter_graceful_shutdown()
        try:
            await asyncio.wait_for(self._server.stop(grace), grace + _CANCELLED_CALLS_WAIT)
        except TimeoutError:
            logger.warning(
                "grpc server did not stop in time: calls left behind",
                waited_s=grace + _CANCELLED_CALLS_WAIT,
            )

    async def wait(self) -> None:
        """Return once the server has stopped."""
        await self._server.wait_for_termination()
