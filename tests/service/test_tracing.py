"""Traces: the service as it runs (both transports, a real Redis store), its spans caught by the
OpenTelemetry SDK's in-memory exporter.

One SERVER span per request, named for its route or method, with its request id, game, outcome
and status; the Redis calls it made as CLIENT spans under it, in its trace; a ``traceparent``
continued; and nothing at all when tracing is off.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format
from hanafuda.v1 import service_pb2, service_pb2_grpc
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from hanafuda_referee.config import Config
from hanafuda_referee.observability import tracing
from hanafuda_referee.serving import serve
from tests.store.servers import free_port

from .conftest import REDIS_URL, seeded_request

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


@asynccontextmanager
async def _service(
    prefix: str, exporter: InMemorySpanExporter | None
) -> AsyncIterator[tuple[httpx.AsyncClient, service_pb2_grpc.RefereeServiceStub]]:
    """The service on Redis under ``prefix``, sending its spans to ``exporter`` (None: tracing
    off), with an HTTP client and a gRPC stub; stopped on the way out (its spans then sent)."""
    config = Config(
        host="127.0.0.1",
        grpc_port=free_port(),
        http_port=free_port(),
        redis_url=REDIS_URL,
        key_prefix=prefix,
        allow_testing=True,
        create_rate=0,
        shutdown_grace=1,
    )
    stop = asyncio.Event()
    service = asyncio.create_task(serve(config, stop=stop, span_exporter=exporter))
    try:
        async with (
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{config.http_port}", timeout=10) as http,
            grpc.aio.insecure_channel(f"127.0.0.1:{config.grpc_port}") as channel,
        ):
            async with asyncio.timeout(30):
                while True:
                    assert not service.done(), "the service stopped"
                    try:
                        if (await http.get("/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.05)
            yield http, service_pb2_grpc.RefereeServiceStub(channel)
    finally:
        stop.set()
        await asyncio.wait_for(service, 30)


async def _play_a_little(
    http: httpx.AsyncClient, rpc: service_pb2_grpc.RefereeServiceStub, tag: str
) -> dict[str, Any]:
    """Requests over both transports, each with a request id ``<tag>-<name>``; what they were."""
    body = json_format.MessageToDict(seeded_request(11, rounds=1))
    created = await http.post("/v1/games", json=body, headers={"x-request-id": f"{tag}-create"})
    assert created.status_code == 200, created.text
    game, tokens = created.json()["game"], created.json()["playerTokens"]
    view = (await http.get(f"/v1/games/{game}")).json()["view"]
    seat = view["turn"]
    own = await http.get(
        f"/v1/games/{game}",
        headers={"authorization": f"Bearer {tokens[seat]}", "x-request-id": f"{tag}-view"},
    )
    legal = own.json()["view"]["legalMoves"]
    moved = await http.post(
        f"/v1/games/{game}/moves",
        json={"move": legal[0], "expectedVersion": own.json()["view"]["version"]},
        headers={"authorization": f"Bearer {tokens[seat]}", "x-request-id": f"{tag}-move"},
    )
    assert moved.status_code == 200, moved.text
    refused = await http.post(
        f"/v1/games/{game}/moves",
        json={"move": legal[0]},
        headers={"authorization": "Bearer not-a-token", "x-request-id": f"{tag}-refused"},
    )
    assert refused.status_code in (401, 403), refused.text
    get_game: Any = rpc.GetGame  # the stub's types are grpc's synchronous ones
    await get_game(
        service_pb2.GetGameRequest(game=game),
        metadata=(
            ("x-request-id", f"{tag}-grpc"),
            ("traceparent", f"00-{TRACE_ID}-{PARENT_ID}-01"),
        ),
    )
    return {"game": game, "refused": refused.status_code}


def _by_request(spans: tuple[ReadableSpan, ...]) -> dict[str, ReadableSpan]:
    found: dict[str, ReadableSpan] = {}
    for span in spans:
        if span.kind == SpanKind.SERVER:
            request_id = str((span.attributes or {})["hanafuda.request_id"])
            assert request_id not in found, f"two spans for {request_id}"
            found[request_id] = span
    return found


def _children(spans: tuple[ReadableSpan, ...], parent: ReadableSpan) -> list[ReadableSpan]:
    assert parent.context is not None
    return [
        span
        for span in spans
        if span.parent is not None and span.parent.span_id == parent.context.span_id
    ]


async def test_each_request_is_a_span_and_its_redis_calls_are_its_children(
    redis_prefix: str,
) -> None:
    exporter = InMemorySpanExporter()
    tag = uuid.uuid4().hex[:8]
    async with _service(redis_prefix, exporter) as (http, rpc):
        assert tracing.tracer is not None
        played = await _play_a_little(http, rpc, tag)
    assert tracing.tracer is None  # off again once the service stopped
    spans = exporter.get_finished_spans()
    requests = _by_request(spans)
    game = played["game"]

    create = requests[f"{tag}-create"]
    assert create.name == "POST /v1/games"
    assert create.attributes is not None
    assert create.attributes["http.route"] == "/v1/games"
    assert create.attributes["http.request.method"] == "POST"
    assert create.attributes["http.response.status_code"] == 200
    assert create.attributes["hanafuda.outcome"] == "ok"
    assert create.attributes["hanafuda.game"] == game
    assert create.status.status_code == StatusCode.UNSET

    move = requests[f"{tag}-move"]
    assert move.name == "POST /v1/games/{game}/moves"
    assert move.attributes is not None and move.attributes["hanafuda.game"] == game
    assert move.attributes["hanafuda.seat"] in (0, 1)
    # The move's Redis calls: its game's load and its commit, both under its span.
    calls = _children(spans, move)
    assert calls
    assert {span.kind for span in calls} == {SpanKind.CLIENT}
    assert move.context is not None
    for call in calls:
        assert call.context is not None and call.context.trace_id == move.context.trace_id
        assert call.attributes is not None and call.attributes["db.system.name"] == "redis"
        assert call.attributes["server.address"] == "127.0.0.1"
        # Sent in the store's batch: from the call to its reply.
        assert call.attributes["hanafuda.redis.pipelined"] is True
        assert move.start_time is not None and call.start_time is not None
        assert call.end_time is not None and move.end_time is not None
        assert move.start_time <= call.start_time <= call.end_time <= move.end_time
    assert "EVALSHA commit" in {call.name for call in calls}
    for call in calls:
        assert call.attributes is not None
        assert call.attributes["db.operation.name"] in ("EVALSHA", "LINDEX")

    # A creation's write: one script run.
    assert {span.name for span in _children(spans, create)} >= {"EVALSHA create"}

    refused = requests[f"{tag}-refused"]
    assert refused.attributes is not None
    assert refused.attributes["hanafuda.outcome"] == "rejected"
    assert refused.attributes["http.response.status_code"] == played["refused"]
    assert refused.attributes["hanafuda.reason"]
    assert refused.status.status_code == StatusCode.UNSET  # the client's mistake

    over_grpc = requests[f"{tag}-grpc"]
    assert over_grpc.name == "hanafuda.v1.RefereeService/GetGame"
    assert over_grpc.attributes is not None
    assert over_grpc.attributes["rpc.system"] == "grpc"
    assert over_grpc.attributes["rpc.method"] == "GetGame"
    assert over_grpc.attributes["rpc.grpc.status_code"] == 0
    # The trace the client's traceparent named, continued.
    assert over_grpc.context is not None and over_grpc.parent is not None
    assert format(over_grpc.context.trace_id, "032x") == TRACE_ID
    assert format(over_grpc.parent.span_id, "016x") == PARENT_ID

    # Every Redis span is a request's child: none for the readiness checks outside requests.
    server_ids = {span.context.span_id for span in requests.values() if span.context}
    for span in spans:
        if span.kind == SpanKind.CLIENT:
            assert span.parent is not None and span.parent.span_id in server_ids
    # No span holds a token.
    for span in spans:
        assert "Bearer" not in repr(dict(span.attributes or {}))


@contextmanager
def _global_exporter() -> Iterator[InMemorySpanExporter]:
    """An in-memory exporter behind the process's global tracer provider (set here once for
    the process), emptied before and after."""
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        yield exporter
    finally:
        exporter.shutdown()


async def test_nothing_is_traced_when_tracing_is_off(redis_prefix: str) -> None:
    with _global_exporter() as exporter:
        async with _service(redis_prefix, None) as (http, rpc):
            assert tracing.tracer is None
            await _play_a_little(http, rpc, "off")
        assert exporter.get_finished_spans() == ()
        # The exporter works: a span of the global provider's reaches it.
        with trace.get_tracer("test").start_as_current_span("probe"):
            pass
        assert [span.name for span in exporter.get_finished_spans()] == ["probe"]


def test_a_sampler_that_drops_a_request_drops_its_redis_calls_too() -> None:
    exporter = InMemorySpanExporter()
    tracing.start(exporter=exporter)
    try:
        assert tracing.tracer is not None
        calls = tracing.RedisCalls(tracing.tracer)
        assert calls.start("load", "LINDEX") is None  # outside any request
        dropped = tracing.RequestSpan(
            tracing.tracer, "GetGame", "grpc", "r1", f"00-{TRACE_ID}-{PARENT_ID}-00"
        )
        assert calls.start("load", "LINDEX") is None  # the parent says: not sampled
        dropped.end("ok", "", "", None, None)
    finally:
        tracing.stop()
    assert exporter.get_finished_spans() == ()


@pytest.mark.parametrize(
    ("transport", "outcome", "error", "code", "failed"),
    [
        ("http", "error", RuntimeError("x"), 500, True),
        ("grpc", "error", RuntimeError("x"), 13, True),
        ("grpc", "cancelled", None, 1, False),
    ],
)
def test_a_failure_of_the_service_is_an_error_span(
    transport: str, outcome: str, error: BaseException | None, code: int, failed: bool
) -> None:
    exporter = InMemorySpanExporter()
    tracing.start(exporter=exporter)
    try:
        assert tracing.tracer is not None
        span = tracing.RequestSpan(tracing.tracer, "GetGame", transport, "r2", "")
        span.end(outcome, "INTERNAL" if error else "", "g1", None, error)
    finally:
        tracing.stop()
    (finished,) = exporter.get_finished_spans()
    assert finished.attributes is not None
    key = "http.response.status_code" if transport == "http" else "rpc.grpc.status_code"
    assert finished.attributes[key] == code
    assert (finished.status.status_code == StatusCode.ERROR) is failed
    if failed:
        assert finished.attributes["error.type"] == "RuntimeError"
