"""Prometheus metrics of the service, in the default registry (the HTTP side serves them).

Label values are bounded sets (method names, two transports, a few outcomes, the reasons of the
contract), never ids, so the series count stays small whatever the traffic.

The two series every request feeds (``hanafuda_requests``, ``hanafuda_request_duration_seconds``)
are kept by :class:`RequestMetrics`, which exposes them exactly as a prometheus_client ``Counter``
and ``Histogram`` would, for a fifth of the cost per request.

Several worker processes (``--workers``, :mod:`hanafuda_referee.workers`) serve one ``/metrics``
that adds theirs up, whichever of them a scrape reaches: the supervisor gives every worker one
directory (``PROMETHEUS_MULTIPROC_DIR``, read when this module is imported), where
prometheus_client's multiprocess mode keeps each process's values in a memory-mapped file of its
own, and :func:`render` merges the files of every worker that ever ran, so counters keep what a
worker that died had counted. :class:`RequestMetrics` writes its series to such files too (in
the library's format, which its merging reads), as plain writes into the mapping. Gauges say
which way they add up: ``hanafuda_watchers`` sums the live workers' streams,
``hanafuda_active_games`` (the same count of the same store, sampled by each) is the latest
sample of a live worker. The process and platform collectors of one process are not served then.
"""

from __future__ import annotations

import os
import time
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

__all__ = [
    "ACTIVE_GAMES",
    "BOT_DECISIONS",
    "BOT_DECISION_SECONDS",
    "BOT_QUEUE_DEPTH",
    "BOT_QUEUE_OLDEST",
    "DEADLINE_SWEEP_LAG",
    "HTTP_OVERSIZED_HEADS",
    "HTTP_REQUEST_TIMEOUTS",
    "LATENCY_BUCKETS",
    "REJECTIONS",
    "REQUESTS",
    "SHARED_DIRECTORY",
    "WATCHERS",
    "RequestMetrics",
    "record_request",
    "render",
]

#: The directory the workers of one service share their metrics in (prometheus_client's
#: multiprocess mode, see the module docstring), or None for a process serving alone.
SHARED_DIRECTORY = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None

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


_REQUESTS_NAME = "hanafuda_requests"
_REQUESTS_HELP = (
    "Requests served, by method, transport and outcome (ok, rejected, error, cancelled)."
)
_LATENCY_NAME = "hanafuda_request_duration_seconds"
_LATENCY_HELP = (
    "Time to serve a request (a WatchGame stream: its whole life), by method and transport."
)


class _Count:
    __slots__ = ("created", "key", "value")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.value = 0.0
        self.created = time.time()
        #: The series' name in a shared file (see _SharedFiles).
        self.key = mmap_key(
            _REQUESTS_NAME,
            _REQUESTS_NAME + "_total",
            ["method", "transport", "outcome"],
            list(labels),
            _REQUESTS_HELP,
        )


class _Latency:
    __slots__ = ("bucket_keys", "buckets", "created", "total", "total_key")

    def __init__(self, labels: tuple[str, str]) -> None:
        self.buckets = [0.0] * len(_BOUNDS)  # per bucket, not cumulative
        self.total = 0.0
        self.created = time.time()
        names = ["method", "transport"]
        self.bucket_keys = [
            mmap_key(
                _LATENCY_NAME,
                _LATENCY_NAME + "_bucket",
                [*names, "le"],
                [*labels, le],
                _LATENCY_HELP,
            )
            for le in _LE
        ]
        self.total_key = mmap_key(
            _LATENCY_NAME, _LATENCY_NAME + "_sum", names, list(labels), _LATENCY_HELP
        )


class _SharedFiles:
    """This process's files of :class:`RequestMetrics` in the workers' shared directory, in
    prometheus_client's multiprocess format: per series its current value, which the library's
    merging adds up over the processes (buckets per bucket, not cumulative, as its own
    histograms keep them). The files are this process's alone (the pid is in their name), and
    written from the event loop's thread only."""

    __slots__ = ("counters", "histograms")

    def __init__(self, directory: str) -> None:
        pid = os.getpid()
        # The type comes first in a name, as the merging reads it; not the library's own names
        # (``counter_<pid>.db``), which its Counters of this process write.
        self.counters = MmapedDict(  # type: ignore[no-untyped-call]
            os.path.join(directory, f"counter_requests-{pid}.db")
        )
        self.histograms = MmapedDict(  # type: ignore[no-untyped-call]
            os.path.join(directory, f"histogram_requests-{pid}.db")
        )

    def add(self, count: _Count, latency: _Latency) -> None:
        """Write new series whole: every bucket of a histogram must be in the merged one, those
        no process has counted in yet too."""
        histograms: Any = self.histograms
        for key, value in zip(latency.bucket_keys, latency.buckets, strict=True):
            histograms.write_value(key, value, 0.0)
        histograms.write_value(latency.total_key, latency.total, 0.0)
        counters: Any = self.counters
        counters.write_value(count.key, count.value, 0.0)

    def write(self, count: _Count, latency: _Latency, bucket: int) -> None:
        counters: Any = self.counters  # the library's methods are not annotated
        histograms: Any = self.histograms
        counters.write_value(count.key, count.value, 0.0)
        histograms.write_value(latency.bucket_keys[bucket], latency.buckets[bucket], 0.0)
        histograms.write_value(latency.total_key, latency.total, 0.0)


class RequestMetrics(Collector):
    """``hanafuda_requests`` (a counter by method, transport and outcome: ok, rejected, error,
    cancelled) and ``hanafuda_request_duration_seconds`` (a histogram by method and transport).

    A prometheus_client ``Counter`` and ``Histogram`` would expose the same samples, but take a
    lock per value and check their arguments on every request; here a request adds to plain
    floats. They are recorded from the event loop's thread only, so need no lock; a scrape
    copies the series before it reads them. With ``shared_directory`` (the workers', see the
    module docstring) each request also writes its three values to this process's files there.
    """

    def __init__(
        self, registry: CollectorRegistry | None = REGISTRY, shared_directory: str | None = None
    ) -> None:
        self._counts: dict[tuple[str, str, str], _Count] = {}
        self._latencies: dict[tuple[str, str], _Latency] = {}
        # The two series of each (method, transport, outcome), found with one look-up.
        self._series: dict[tuple[str, str, str], tuple[_Count, _Latency]] = {}
        self._shared = None if shared_directory is None else _SharedFiles(shared_directory)
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
        bucket = bisect_left(_BOUNDS, seconds)
        latency.buckets[bucket] += 1.0
        if self._shared is not None:
            self._shared.write(count, latency, bucket)

    def _add(self, key: tuple[str, str, str]) -> tuple[_Count, _Latency]:
        count = self._counts[key] = _Count(key)
        latency = self._latencies.get(key[:2])
        if latency is None:
            latency = self._latencies[key[:2]] = _Latency(key[:2])
        if self._shared is not None:
            self._shared.add(count, latency)
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
        _REQUESTS_NAME, _REQUESTS_HELP, labels=("method", "transport", "outcome")
    )


def _latency_family() -> HistogramMetricFamily:
    return HistogramMetricFamily(_LATENCY_NAME, _LATENCY_HELP, labels=("method", "transport"))


REQUESTS = RequestMetrics(shared_directory=SHARED_DIRECTORY)
REJECTIONS = Counter(
    "hanafuda_rejections",
    "Requests refused, by reason (the hanafuda.v1.Reason name).",
    ["reason"],
)
ACTIVE_GAMES = Gauge(
    "hanafuda_active_games",
    "Games held in the store (sampled; approximate on Redis).",
    # Workers sample the same store: the latest sample of a live one.
    multiprocess_mode="livemostrecent",
)
WATCHERS = Gauge(
    "hanafuda_watchers",
    "WatchGame streams (gRPC and Server-Sent Events) this process follows now.",
    # Each worker follows streams of its own: the live workers' add up.
    multiprocess_mode="livesum",
)
BOT_QUEUE_DEPTH = Gauge(
    "hanafuda_bot_queue_depth",
    "Bot turns queued or being decided (sampled from the store's bot queue).",
    # Every process that samples it samples the same queue: the latest sample of a live one.
    multiprocess_mode="livemostrecent",
)
BOT_QUEUE_OLDEST = Gauge(
    "hanafuda_bot_queue_oldest_seconds",
    "Age of the oldest bot turn queued or being decided, 0 when the queue is empty (sampled).",
    multiprocess_mode="livemostrecent",
)
DEADLINE_SWEEP_LAG = Gauge(
    "hanafuda_deadline_sweep_lag_seconds",
    "How far the turn clocks' sweeper is behind: now less the oldest deadline due and not yet "
    "applied, 0 when none is (sampled after each sweep).",
    # Every replica's sweeper reads the same index: the worst of the live ones.
    multiprocess_mode="livemax",
)
BOT_DECISIONS = Counter(
    "hanafuda_bot_decisions",
    "Bot decisions taken by bot workers, by level (random, greedy, expert), and the advice they"
    " gave (hint, review).",
    ["level"],
)
BOT_DECISION_SECONDS = Histogram(
    "hanafuda_bot_decision_seconds",
    "Time one bot decision (or a hint, a review) took in a bot worker (the search alone), by"
    " level.",
    ["level"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0),
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
    """The metrics in the Prometheus text format, and its content type (for ``/metrics``): this
    process's, or with workers every worker's added up (see the module docstring)."""
    if SHARED_DIRECTORY is None:
        return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
    merged = CollectorRegistry()
    MultiProcessCollector(merged, SHARED_DIRECTORY)  # type: ignore[no-untyped-call]
    return generate_latest(merged), CONTENT_TYPE_LATEST
