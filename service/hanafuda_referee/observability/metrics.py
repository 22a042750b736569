"""Prometheus metrics of the service, in the default registry (the HTTP side serves them).

Label values are bounded sets (method names, two transports, a few outcomes, the reasons of the
contract), never ids, so the series count stays small whatever the traffic.

The two series every request feeds (``hanafuda_requests``, ``hanafuda_request_duration_seconds``)
are kept by :class:`RequestMetrics`, which exposes them exactly as a prometheus_client ``Counter``
and ``Histogram`` would, for a fifth of the cost per request.
"""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    generate_latest,
)
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

__all__ = [
    "ACTIVE_GAMES",
    "HTTP_OVERSIZED_HEADS",
    "HTTP_REQUEST_TIMEOUTS",
    "LATENCY_BUCKETS",
    "REJECTIONS",
    "REQUESTS",
    "WATCHERS",
    "RequestMetrics",
    "record_request",
    "render",
]

#: The upper bounds of the latency histogram's buckets, in seconds (``+Inf`` is implied).
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)
_BOUNDS = (*LATENCY_BUCKETS, float("inf"))
# The ``le`` labels, spelled as prometheus_client spells them.
_LE: tuple[str, ...] = tuple(
    floatToGoString(bound)  # type: ignore[no-untyped-call]
    for bound in _BOUNDS
)
# prometheus_client's own switch for the ``_created`` series, read as it reads it.
_CREATED = os.environ.get("PROMETHEUS_DISABLE_CREATED_SERIES", "False").lower() not in (
    "true",
    "1",
    "t",
)


class _Count:
    __slots__ = ("created", "value")

    def __init__(self) -> None:
        self.value = 0.0
        self.created = time.time()


class _Latency:
    __slots__ = ("buckets", "created", "total")

    def __init__(self) -> None:
        self.buckets = [0.0] * len(_BOUNDS)  # per bucket, not cumulative
        self.total = 0.0
        self.created = time.time()


class RequestMetrics(Collector):
    """``hanafuda_requests`` (a counter by method, transport and outcome: ok, rejected, error,
    cancelled) and ``hanafuda_request_duration_seconds`` (a histogram by method and transport).

    A prometheus_client ``Counter`` and ``Histogram`` would expose the same samples, but take a
    lock per value and check their arguments on every request; here a request adds to plain
    floats. They are recorded from the event loop's thread only, so need no lock; a scrape
    copies the series before it reads them.
    """

    def __init__(self, registry: CollectorRegistry | None = REGISTRY) -> None:
        self._counts: dict[tuple[str, str, str], _Count] = {}
        self._latencies: dict[tuple[str, str], _Latency] = {}
        # The two series of each (method, transport, outcome), found with one look-up.
        self._series: dict[tuple[str, str, str], tuple[_Count, _Latency]] = {}
        if registry is not None:
            registry.register(self)

    def record(self, method: str, transport: str, outcome: str, seconds: float) -> None:
        """Count one finished request that took ``seconds``."""
        key = (method, transport, outcome)
        series = self._series.get(key)
        if series is None:
            series = self._series[key] = self._add(key)
        count, latency = series
        count.value += 1.0
        latency.total += seconds
        # The first bucket whose bound is at least ``seconds``: Histogram.observe's bucket.
        latency.buckets[bisect_left(_BOUNDS, seconds)] += 1.0

    def _add(self, key: tuple[str, str, str]) -> tuple[_Count, _Latency]:
        count = self._counts[key] = _Count()
        latency = self._latencies.get(key[:2])
        if latency is None:
            latency = self._latencies[key[:2]] = _Latency()
        return count, latency

    def describe(self) -> Iterator[Metric]:
        yield _requests_family()
        yield _latency_family()

    def collect(self) -> Iterator[Metric]:
        requests = _requests_family()
        for labels, count in list(self._counts.items()):
            requests.add_metric(labels, count.value, created=count.created if _CREATED else None)
        yield requests
        latency = _latency_family()
        for (method, transport), series in list(self._latencies.items()):
            buckets = list(zip(_LE, accumulate(series.buckets), strict=True))
            latency.add_metric((method, transport), buckets, series.total)
            if _CREATED:
                series_labels = {"method": method, "transport": transport}
                latency.add_sample(f"{latency.name}_created", series_labels, series.created)
        yield latency


def _requests_family() -> CounterMetricFamily:
    return CounterMetricFamily(
        "hanafuda_requests",
        "Requests served, by method, transport and outcome (ok, rejected, error, cancelled).",
        labels=("method", "transport", "outcome"),
    )


def _latency_family() -> HistogramMetricFamily:
    return HistogramMetricFamily(
        "hanafuda_request_duration_seconds",
        "Time to serve a request (a WatchGame stream: its whole life), by method and transport.",
        labels=("method", "transport"),
    )


REQUESTS = RequestMetrics()
REJECTIONS = Counter(
    "hanafuda_rejections",
    "Requests refused, by reason (the hanafuda.v1.Reason name).",
    ["reason"],
)
ACTIVE_GAMES = Gauge(
    "hanafuda_active_games",
    "Games held in the store (sampled; approximate on Redis).",
)
WATCHERS = Gauge(
    "hanafuda_watchers",
    "WatchGame streams (gRPC and Server-Sent Events) this process follows now.",
)
HTTP_REQUEST_TIMEOUTS = Counter(
    "hanafuda_http_request_timeouts",
    "HTTP connections closed because a request did not arrive whole in time.",
)
HTTP_OVERSIZED_HEADS = Counter(
    "hanafuda_http_oversized_heads",
    "HTTP connections closed because a request's head (request line and headers) was too long.",
)


def record_request(method: str, transport: str, outcome: str, reason: str, seconds: float) -> None:
    """Count one finished request."""
    REQUESTS.record(method, transport, outcome, seconds)
    if outcome == "rejected" and reason:
        REJECTIONS.labels(reason).inc()


def render() -> tuple[bytes, str]:
    """The metrics in the Prometheus text format, and its content type (for ``/metrics``)."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
