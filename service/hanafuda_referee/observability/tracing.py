"""Traces: an OpenTelemetry span for every request on both transports, and a child span for each
Redis call the request makes, sent by OTLP to a collector.

Off unless an endpoint is configured (``--otlp-endpoint`` or the standard
``OTEL_EXPORTER_OTLP_ENDPOINT``): :data:`tracer` is then None, and the only cost on a request is
that test, in :func:`~.logs.observe` and in the store's calls. No span is made, no context is
kept, and the process's global tracer provider is never touched.

On (:func:`start`), the service has a tracer provider of its own (never the global one), whose
spans a batch processor hands to the OTLP exporter (over gRPC: grpcio is here already) in a
thread of its own; :func:`stop` sends what is left at shutdown. The OpenTelemetry SDK's standard
variables apply: ``OTEL_SERVICE_NAME`` (default ``hanafuda-referee``),
``OTEL_RESOURCE_ATTRIBUTES``, ``OTEL_TRACES_SAMPLER`` and ``OTEL_TRACES_SAMPLER_ARG``,
``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_EXPORTER_OTLP_CERTIFICATE``... An endpoint of
``http://`` is sent to in plain text, ``https://`` with TLS.

A request's span (:class:`RequestSpan`, kind SERVER) is named as the semantic conventions name
them: ``hanafuda.v1.RefereeService/SubmitMove`` over gRPC (``rpc.*`` attributes and
``rpc.grpc.status_code``), ``POST /v1/games/{game}/moves`` over HTTP (``http.request.method``,
``http.route``, ``http.response.status_code``; the route is the RPC's HTTP rule in the proto).
Either carries ``hanafuda.request_id`` (the request id of its log line), ``hanafuda.outcome``, and
where they are known ``hanafuda.game``, ``hanafuda.seat`` and ``hanafuda.reason``. Its status is
ERROR for a failure of the service (an ``error``, or a refusal that is the server's: HTTP 5xx,
gRPC ``UNAVAILABLE``...), with ``error.type``; a client's mistake leaves it unset. A request that
brings a W3C ``traceparent`` header (gRPC: metadata) continues that trace.

Each Redis call made while a request's span is open (:class:`RedisCalls`) is a child span (kind
CLIENT) named for the command and the store operation (``EVALSHA commit``, ``LINDEX load``), with
``db.system.name``, ``db.operation.name``, the server's address and, for a call sent in a
pipeline with others (the store's batches), ``hanafuda.redis.pipelined``; its time runs from the
call to its reply, the wait for the batch included. Calls outside requests (the readiness
checks, the active games gauge) make no span. Neither kind of span ever holds a token, a key's
content or an error's message.
"""

from __future__ import annotations

import os
import time
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Final

from google.api import annotations_pb2  # type: ignore[import-untyped]
from hanafuda.v1 import service_pb2
from opentelemetry.sdk.resources import OTELResourceDetector, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import (
    Span,
    SpanKind,
    Status,
    StatusCode,
    Tracer,
    set_span_in_context,
)
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from hanafuda_referee.calls.errors import ApiError

if TYPE_CHECKING:
    from opentelemetry.context import Context

__all__ = [
    "SERVICE",
    "RedisCalls",
    "RedisSpan",
    "RequestSpan",
    "start",
    "stop",
    "tracer",
]

#: The full name of the referee's gRPC service, as spans name it.
SERVICE: Final = "hanafuda.v1.RefereeService"
#: The name the service goes by when ``OTEL_SERVICE_NAME`` does not say.
_SERVICE_NAME = "hanafuda-referee"
_SCOPE = "hanafuda_referee"

#: The tracer of the service's spans, or None: tracing is off (see the module docstring).
tracer: Tracer | None = None
_provider: TracerProvider | None = None

#: The span of the request being served (None outside one, or with tracing off): the parent of
#: its Redis calls' spans.
_request_span: ContextVar[Span | None] = ContextVar("hanafuda_request_span", default=None)

_PROPAGATOR = TraceContextTextMapPropagator()

# gRPC codes whose server span is an error, as the semantic conventions list them.
_GRPC_SERVER_ERRORS = frozenset({2, 4, 12, 13, 14, 15})
_GRPC_CANCELLED = 1
_GRPC_INTERNAL = 13


def _http_routes() -> dict[str, tuple[str, str]]:
    """Each RPC's HTTP verb and route template, read from its ``google.api.http`` rule."""
    routes: dict[str, tuple[str, str]] = {}
    for method in service_pb2.DESCRIPTOR.services_by_name["RefereeService"].methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        rule = options.Extensions[annotations_pb2.http]
        pattern = rule.WhichOneof("pattern")
        if pattern in ("get", "put", "post", "delete", "patch"):
            routes[method.name] = (pattern.upper(), getattr(rule, pattern))
    return routes


_HTTP_ROUTES = _http_routes()


def start(
    endpoint: str | None = None,
    *,
    exporter: SpanExporter | None = None,
    worker: int | None = None,
) -> None:
    """Turn tracing on: spans go to the OTLP collector at ``endpoint``, or to ``exporter`` (a
    test's in-memory exporter). ``worker``: the index of this worker of several, a resource
    attribute (``hanafuda.worker``) beside the process id."""
    global tracer, _provider
    if exporter is None:
        if not endpoint:
            raise ValueError("tracing needs an OTLP endpoint or an exporter")
        # Imported here: only a process that sends traces loads the exporter and its protos.
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=endpoint)
    attributes: dict[str, str | int] = {"process.pid": os.getpid()}
    if worker is not None:
        attributes["hanafuda.worker"] = worker
    # The variables (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) win over the defaults here.
    resource = Resource({"service.name": _SERVICE_NAME, **attributes}).merge(
        OTELResourceDetector().detect()
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    _provider = provider
    tracer = provider.get_tracer(_SCOPE)


#: Milliseconds :func:`stop` gives the spans not sent yet to leave (a collector that does not
#: answer must not hold a shutdown much longer).
_FLUSH_MS = 5000


def stop() -> None:
    """Send the spans not sent yet (for :data:`_FLUSH_MS` at most) and turn tracing off (a no-op
    when it is off)."""
    global tracer, _provider
    provider, _provider, tracer = _provider, None, None
    if provider is not None:
        provider.force_flush(_FLUSH_MS)
        provider.shutdown()


class RequestSpan:
    """The span of one request: opened by :func:`~.logs.observe` when tracing is on, ended with
    the request's outcome (see the module docstring). ``started``: when the request began, a
    ``time.perf_counter()`` (default: now)."""

    __slots__ = ("_method", "_span", "_token", "_transport")

    def __init__(
        self,
        tracer: Tracer,
        method: str,
        transport: str,
        request_id: str,
        trace_parent: str,
        started: float | None = None,
    ) -> None:
        self._method = method
        self._transport = transport
        parent: Context | None = None
        if trace_parent:
            parent = _PROPAGATOR.extract({"traceparent": trace_parent})
        attributes: dict[str, str] = {"hanafuda.request_id": request_id}
        route = _HTTP_ROUTES.get(method) if transport == "http" else None
        if route is not None:
            name = f"{route[0]} {route[1]}"
            attributes["http.request.method"] = route[0]
            attributes["http.route"] = route[1]
        elif transport == "grpc":
            name = f"{SERVICE}/{method}"
            attributes["rpc.system"] = "grpc"
            attributes["rpc.service"] = SERVICE
            attributes["rpc.method"] = method
        else:
            name = method
        # From when the request began (its log line's latency too), where the transport says.
        start_time = None
        if started is not None:
            start_time = time.time_ns() - int((time.perf_counter() - started) * 1e9)
        self._span = tracer.start_span(
            name,
            context=parent,
            kind=SpanKind.SERVER,
            attributes=attributes,
            start_time=start_time,
        )
        self._token: Token[Span | None] | None = _request_span.set(self._span)

    def end(
        self,
        outcome: str,
        reason: str,
        game: str,
        seat: int | None,
        error: BaseException | None,
    ) -> None:
        """End the span with what the request's line says of it."""
        span = self._span
        if self._token is not None:
            try:  # noqa: SIM105 - as logs' record: a stream may end in another context
                _request_span.reset(self._token)
            except ValueError:
                pass
            self._token = None
        span.set_attribute("hanafuda.outcome", outcome)
        if game:
            span.set_attribute("hanafuda.game", game)
        if seat is not None:
            span.set_attribute("hanafuda.seat", seat)
        if reason:
            span.set_attribute("hanafuda.reason", reason)
        failed = self._status(outcome, error)
        if failed:
            kind = reason if isinstance(error, ApiError) else type(error).__name__
            span.set_attribute("error.type", kind)
            span.set_status(Status(StatusCode.ERROR))
        span.end()

    def _status(self, outcome: str, error: BaseException | None) -> bool:
        """Set the transport's status code; whether the request failed on the server's side."""
        span = self._span
        api_error = error if isinstance(error, ApiError) else None
        if self._transport == "http":
            if outcome == "cancelled":
                return False  # the client left: no status was sent
            status = 200 if outcome == "ok" else 500
            if api_error is not None and outcome == "rejected":
                status = api_error.http_status
            span.set_attribute("http.response.status_code", status)
            return status >= 500
        if self._transport == "grpc":
            code = 0
            if outcome == "cancelled":
                code = _GRPC_CANCELLED
            elif api_error is not None and outcome == "rejected":
                code = api_error.grpc_code.value[0]
            elif outcome != "ok":
                code = _GRPC_INTERNAL
            span.set_attribute("rpc.grpc.status_code", code)
            return code in _GRPC_SERVER_ERRORS
        return outcome == "error"


class RedisSpan:
    """The span of one Redis call (see :class:`RedisCalls`)."""

    __slots__ = ("_span",)

    def __init__(self, span: Span) -> None:
        self._span = span

    def end(self, error: BaseException | None) -> None:
        """End the span; ``error``: what the call failed with, if it did."""
        if error is not None:
            self._span.set_attribute("error.type", type(error).__name__)
            self._span.set_status(Status(StatusCode.ERROR))
        self._span.end()


class RedisCalls:
    """The spans of the store's Redis calls (the store's ``CallSpans``): a child of the
    request's span for each call made while one is open, none otherwise."""

    def __init__(self, tracer: Tracer, address: str | None = None, port: int | None = None) -> None:
        self._tracer = tracer
        self._attributes: dict[str, str | int] = {"db.system.name": "redis"}
        if address:
            self._attributes["server.address"] = address
        if port:
            self._attributes["server.port"] = port

    def start(self, operation: str, command: str, *, pipelined: bool = False) -> RedisSpan | None:
        """The span of a call of the store's ``operation`` that sends ``command`` (its name),
        or None outside a request."""
        parent = _request_span.get()
        if parent is None or not parent.is_recording():
            return None  # no request, or one its sampler left out
        attributes = {
            **self._attributes,
            "db.operation.name": command,
            "hanafuda.store.operation": operation,
        }
        if pipelined:
            attributes["hanafuda.redis.pipelined"] = True
        span = self._tracer.start_span(
            f"{command} {operation}",
            context=set_span_in_context(parent),
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        return RedisSpan(span)
