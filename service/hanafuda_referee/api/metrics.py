"""Prometheus metrics of the service, in the default registry (the HTTP side serves them).

Label values are bounded sets (method names, two transports, a few outcomes, the reasons of the
contract), never ids, so the series count stays small whatever the traffic.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

__all__ = [
    "ACTIVE_GAMES",
    "LATENCY",
    "REJECTIONS",
    "REQUESTS",
    "record_request",
    "render",
]

REQUESTS = Counter(
    "hanafuda_requests",
    "Requests served, by method, transport and outcome (ok, rejected, error, cancelled).",
    ["method", "transport", "outcome"],
)
LATENCY = Histogram(
    "hanafuda_request_duration_seconds",
    "Time to serve a request (a WatchGame stream: its whole life), by method and transport.",
    ["method", "transport"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
)
REJECTIONS = Counter(
    "hanafuda_rejections",
    "Requests refused, by reason (the hanafuda.v1.Reason name).",
    ["reason"],
)
ACTIVE_GAMES = Gauge(
    "hanafuda_active_games",
    "Games held in the store (sampled; approximate on Redis).",
)


# The labelled series of each (method, transport, outcome): looking a child up by its labels
# takes a lock and a few tuples, on every request; the label sets are few and bounded (see the
# module docstring), so each is looked up once.
_series: dict[tuple[str, str, str], tuple[Counter, Histogram]] = {}


def record_request(method: str, transport: str, outcome: str, reason: str, seconds: float) -> None:
    """Count one finished request."""
    key = (method, transport, outcome)
    series = _series.get(key)
    if series is None:
        series = _series[key] = (
            REQUESTS.labels(method, transport, outcome),
            LATENCY.labels(method, transport),
        )
    requests, latency = series
    requests.inc()
    latency.observe(seconds)
    if outcome == "rejected" and reason:
        REJECTIONS.labels(reason).inc()


def render() -> tuple[bytes, str]:
    """The metrics in the Prometheus text format, and its content type (for ``/metrics``)."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
