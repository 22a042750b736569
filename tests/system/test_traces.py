"""Traces leave a real referee process by OTLP: ``--otlp-endpoint`` names a collector (here a
gRPC ``TraceService`` of the test's own), and the spans of the requests made reach it, with
their request ids and the service's resource, by the time the process has stopped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue

from .conftest import redis_env
from .processes import RefereeProcess


class _Collector(trace_service_pb2_grpc.TraceServiceServicer):
    """A collector that keeps every export it is sent."""

    def __init__(self) -> None:
        self.exports: list[trace_service_pb2.ExportTraceServiceRequest] = []
        self._lock = threading.Lock()

    def Export(  # noqa: N802 - the service's method name
        self, request: trace_service_pb2.ExportTraceServiceRequest, context: Any
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        with self._lock:
            self.exports.append(request)
        return trace_service_pb2.ExportTraceServiceResponse()


@pytest.fixture
def collector() -> Iterator[tuple[_Collector, int]]:
    kept = _Collector()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(  # type: ignore[no-untyped-call]
        kept, server
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield kept, port
    server.stop(0)


def _value(value: AnyValue) -> Any:
    return getattr(value, value.WhichOneof("value") or "string_value")


def _attributes(pairs: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for pair in pairs:
        assert isinstance(pair, KeyValue)
        found[pair.key] = _value(pair.value)
    return found


@pytest.mark.parametrize("workers", [1, 2])
def test_the_spans_of_a_process_reach_its_collector(
    tmp_path: Path, key_prefix: str, collector: tuple[_Collector, int], workers: int
) -> None:
    kept, port = collector
    process = RefereeProcess(
        tmp_path,
        env=redis_env(key_prefix),
        flags=["--otlp-endpoint", f"http://127.0.0.1:{port}", "--workers", str(workers)],
    )
    with process:
        for n in range(6):  # new connections: with workers, they reach both at random
            answer = httpx.get(
                f"{process.http_url}/v1/rules/presets", headers={"x-request-id": f"presets-{n}"}
            )
            assert answer.status_code == 200
        listening = [r for r in process.log_records() if r.get("event") == "grpc listening"]
        assert all(line["tracing"] for line in listening)
        assert process.stop() == 0

    spans: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {}
    for export in kept.exports:
        for resource_spans in export.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope in resource_spans.scope_spans:
                for span in scope.spans:
                    attributes = _attributes(span.attributes)
                    spans[attributes["hanafuda.request_id"]] = (resource, attributes, span.name)
    assert sorted(spans) == [f"presets-{n}" for n in range(6)]
    for resource, attributes, name in spans.values():
        assert name == "GET /v1/rules/presets"
        assert attributes["http.response.status_code"] == 200
        assert resource["service.name"] == "hanafuda-referee"
        assert resource["process.pid"] > 0
        if workers > 1:
            assert resource["hanafuda.worker"] in range(workers)
        else:
            assert "hanafuda.worker" not in resource
