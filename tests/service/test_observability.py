"""The canonical request line and the request metrics (``observability``, ``metrics``).

The line's JSON is pinned (keys, order, types, separators, timestamp format); the direct
rendering used for JSON output is checked byte for byte against structlog's processor chain,
and the request metrics against the prometheus_client Counter and Histogram they replace.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import math
import os
import re
import time
from collections.abc import AsyncGenerator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import pytest
import structlog
from hypothesis import example, given
from hypothesis import strategies as st
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics
from prometheus_client.parser import text_string_to_metric_families
from structlog.testing import capture_logs

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.observability import logs as observability
from hanafuda_referee.observability import metrics
from hanafuda_referee.observability.logs import (
    RequestRecord,
    annotate,
    configure_logging,
    current,
    observe,
)

SECRET = "tok-3f9a1c"
CALLER = Caller(token=SECRET, request_id="req-1", transport="http")
#: The timestamp structlog's ``TimeStamper(fmt="iso", utc=True)`` writes.
TIMESTAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z"


class Configure(Protocol):
    def __call__(self, log_format: str = "json", level: str = "INFO") -> io.StringIO: ...


@pytest.fixture
def configure(monkeypatch: pytest.MonkeyPatch) -> Iterator[Configure]:
    """:func:`configure_logging` with a string for stdout (returned); structlog's
    configuration and the root logger's handlers and level restored after the test."""
    configured, config = structlog.is_configured(), structlog.get_config()
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    # configure_logging caches the logger on its first use: a fresh one, for this test only.
    monkeypatch.setattr(observability, "logger", structlog.get_logger("hanafuda_referee"))
    monkeypatch.setattr(observability, "_line", None)

    def configure(log_format: str = "json", level: str = "INFO") -> io.StringIO:
        stream = io.StringIO()
        with contextlib.redirect_stdout(stream):
            configure_logging(log_format, level)
        return stream

    yield configure
    if configured:
        structlog.configure(**config)
    else:
        structlog.reset_defaults()


def written(stream: io.StringIO) -> list[str]:
    """The lines written so far, those the event loop has yet to flush included."""
    if observability._stream is not None:
        observability._stream.flush()
    return stream.getvalue().splitlines()


def stamped_at(line: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(line["timestamp"])


async def test_the_json_line_has_exactly_its_fields_in_order(configure: Configure) -> None:
    stdout = configure("json", "INFO")
    before = datetime.now(UTC)
    async with observe("SubmitMove", CALLER):
        annotate(game="G1", seat=1)
    with pytest.raises(ApiError):
        async with observe("GetGame", Caller(request_id="req-2", transport="grpc")):
            raise ApiError("BAD_TOKEN", f"the token {SECRET} is not a token of this game")
    after = datetime.now(UTC)

    ok, rejected = written(stdout)
    number = r"\d+\.\d{1,3}"
    assert re.fullmatch(
        r'\{"request_id": "req-1", "method": "SubmitMove", "transport": "http", '
        rf'"outcome": "ok", "latency_ms": {number}, "game": "G1", "seat": 1, '
        rf'"event": "request", "level": "info", "timestamp": "{TIMESTAMP}"\}}',
        ok,
    ), ok
    assert re.fullmatch(
        r'\{"request_id": "req-2", "method": "GetGame", "transport": "grpc", '
        rf'"outcome": "rejected", "latency_ms": {number}, "seat": "spectator", '
        rf'"reason": "BAD_TOKEN", "event": "request", "level": "info", '
        rf'"timestamp": "{TIMESTAMP}"\}}',
        rejected,
    ), rejected
    for line in map(json.loads, (ok, rejected)):
        assert type(line["latency_ms"]) is float and 0 <= line["latency_ms"] < 1000
        assert before <= stamped_at(line) <= after
    assert SECRET not in stdout.getvalue()


RECORDS = [
    RequestRecord("SubmitMove", "http", "req-1", game="G1", seat=0),
    RequestRecord("GetGame", "grpc", "", outcome="rejected", reason="BAD_TOKEN"),
    RequestRecord(
        "WatchGame", "unknown", 'q"\\ \u00e9\u2603\n\x00\U0001f3b4', game="G\u00e9", seat=3
    ),
    RequestRecord("CreateGame", "http", "r", outcome="error", reason="INTERNAL"),
]


@pytest.mark.parametrize("elapsed", [0.0, 0.0004996, 0.0012345, 0.0015, 1.5, 12.0, 4e6])
def test_the_direct_json_line_is_the_processor_chain_s_line(
    configure: Configure, elapsed: float
) -> None:
    stdout = configure("json", "INFO")
    line = observability._line
    assert line is not None
    for record in RECORDS:
        assert line.write(record, elapsed)
        observability._log(record, elapsed)  # through structlog's processors
    lines = written(stdout)
    assert len(lines) == 2 * len(RECORDS)
    for direct, chain in zip(lines[::2], lines[1::2], strict=True):
        # The same text up to the timestamp, which is the time of writing.
        direct_fields, _, direct_stamp = direct.rpartition(', "timestamp": ')
        chain_fields, _, chain_stamp = chain.rpartition(', "timestamp": ')
        assert direct_fields == chain_fields
        assert re.fullmatch(f'"{TIMESTAMP}"}}', direct_stamp)
        assert re.fullmatch(f'"{TIMESTAMP}"}}', chain_stamp)


class CountingStream(io.StringIO):
    """A stream that counts its flushes."""

    flushes = 0

    def flush(self) -> None:
        self.flushes += 1
        super().flush()


def counted_line(configure: Configure) -> tuple[observability._CanonicalLine, CountingStream]:
    """A direct line for the JSON configuration, written to a stream that counts flushes."""
    configure("json", "INFO")
    config = structlog.get_config()
    stream = CountingStream()
    chain, wrapper, factory = (
        config["processors"],
        config["wrapper_class"],
        config["logger_factory"],
    )
    return observability._CanonicalLine(chain, wrapper, factory, stream), stream


async def test_lines_of_one_turn_of_the_loop_are_flushed_once_after_it(
    configure: Configure,
) -> None:
    line, stream = counted_line(configure)
    for record in RECORDS:
        assert line.write(record, 0.001)
    assert stream.flushes == 0  # written, not flushed yet
    await asyncio.sleep(0)  # the loop turns: the flush it was given runs
    assert stream.flushes == 1
    assert len(written(stream)) == len(RECORDS)
    line.write(RECORDS[0], 0.001)  # a later turn gets a flush of its own
    await asyncio.sleep(0)
    assert stream.flushes == 2


class CountingWrites(io.StringIO):
    """A stream that counts the calls writing to it."""

    writes = 0

    def write(self, text: str, /) -> int:
        self.writes += 1
        return super().write(text)


async def test_lines_of_one_turn_of_the_loop_reach_the_stream_in_one_write(
    configure: Configure,
) -> None:
    configure("json", "INFO")
    config = structlog.get_config()
    stream = CountingWrites()
    line = observability._CanonicalLine(
        config["processors"],
        config["wrapper_class"],
        config["logger_factory"],
        observability._LineBuffer(stream),
    )
    for record in RECORDS:
        assert line.write(record, 0.001)
    assert stream.writes == 0
    await asyncio.sleep(0)
    assert stream.writes == 1
    assert len(stream.getvalue().splitlines()) == len(RECORDS)


async def test_a_line_of_the_chain_keeps_its_place_after_the_lines_waiting(
    configure: Configure,
) -> None:
    stdout = configure("json", "INFO")
    async with observe("SubmitMove", CALLER):
        pass
    assert stdout.getvalue() == ""  # waiting for the loop's turn
    observability.logger.warning("after the request")  # the chain writes and flushes
    events = [json.loads(line)["event"] for line in stdout.getvalue().splitlines()]
    assert events == ["request", "after the request"]


def test_outside_an_event_loop_each_line_is_flushed_at_once(configure: Configure) -> None:
    line, stream = counted_line(configure)
    line.write(RECORDS[0], 0.001)
    assert stream.flushes == 1
    assert len(written(stream)) == 1


def test_library_records_are_lines_of_the_same_format_from_warning_up(
    configure: Configure,
) -> None:
    stream = configure("json", "INFO")
    library = logging.getLogger("some.library")
    library.info("chatter")
    library.warning("disk %s nearly full", "/data", extra={"device": "sda"})
    try:
        raise ValueError("bad value")
    except ValueError:
        library.exception("it broke")
    lines = [json.loads(line) for line in written(stream)]
    assert [(line["event"], line["level"], line["logger"]) for line in lines] == [
        ("disk /data nearly full", "warning", "some.library"),
        ("it broke", "error", "some.library"),
    ]
    assert re.fullmatch(TIMESTAMP, lines[0]["timestamp"])
    assert lines[0]["device"] == "sda"  # a record's extra fields are keys of its line
    assert "ValueError: bad value" in lines[1]["exception"]


def test_library_records_follow_a_level_above_warning(configure: Configure) -> None:
    stream = configure("json", "ERROR")
    logging.getLogger("some.library").warning("dropped")
    logging.getLogger("some.library").error("kept")
    assert [json.loads(line)["event"] for line in written(stream)] == ["kept"]


def test_configuring_again_replaces_the_library_handler(configure: Configure) -> None:
    configure("json")
    stream = configure("console")
    logging.getLogger("some.library").warning("once")
    assert len(written(stream)) == 1 and "once" in written(stream)[0]


def test_timestamps_are_those_of_the_time_stamper() -> None:
    line = observability._CanonicalLine([], type, None, io.StringIO())
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    now = time.time_ns()
    second = now - now % 1_000_000_000
    # Within a second, across seconds, backwards (a clock step), whole seconds (no fraction),
    # and nanoseconds below a microsecond (truncated, as datetime.now truncates them).
    for ns in (now, second, second + 999, second + 1_000, now + 1_000_000_000, now - 5 * 10**9):
        expected = (epoch + timedelta(microseconds=ns // 1000)).isoformat()
        assert line.timestamp(ns) == expected.replace("+00:00", "Z")
    assert line.timestamp(0) == "1970-01-01T00:00:00Z"

    stamper = structlog.processors.TimeStamper(fmt="iso", utc=True)
    for _ in range(100):
        start = line.timestamp(time.time_ns())
        stamp = stamper(None, "info", {})["timestamp"]
        end = line.timestamp(time.time_ns())
        assert re.fullmatch(TIMESTAMP, stamp) and re.fullmatch(TIMESTAMP, start)
        assert datetime.fromisoformat(start) <= datetime.fromisoformat(stamp)
        assert datetime.fromisoformat(stamp) <= datetime.fromisoformat(end)


@given(st.floats(min_value=0, max_value=1e7) | st.integers(0, 10**9).map(lambda n: n / 10**6))
@example(0.0005)
@example(0.0000005)
@example(0.0012345)
@example(1e9)
@example(1e10)
@example(math.inf)
@example(math.nan)
@example(-0.0000001)
def test_latency_is_written_as_the_json_of_the_rounded_milliseconds(seconds: float) -> None:
    assert observability._millis(seconds) == json.dumps(round(seconds * 1000, 3))


async def test_captured_logs_still_get_the_line(configure: Configure) -> None:
    stdout = configure("json", "INFO")
    with capture_logs() as captured:
        async with observe("SubmitMove", CALLER):
            annotate(game="G1", seat=0)
    assert stdout.getvalue() == ""
    [entry] = captured
    assert entry.pop("latency_ms") >= 0
    assert entry == {
        "request_id": "req-1",
        "method": "SubmitMove",
        "transport": "http",
        "outcome": "ok",
        "game": "G1",
        "seat": 0,
        "event": "request",
        "log_level": "info",
    }
    # The capture over, lines go to stdout again.
    async with observe("GetGame", CALLER):
        pass
    [line] = written(stdout)
    assert json.loads(line)["method"] == "GetGame"


@pytest.mark.parametrize("change", ["stream", "processors", "level"])
async def test_the_direct_line_gives_way_to_a_new_configuration(
    configure: Configure, change: str
) -> None:
    stdout = configure("json", "INFO")
    elsewhere = io.StringIO()
    if change == "stream":
        structlog.configure(logger_factory=structlog.WriteLoggerFactory(elsewhere))
    elif change == "processors":
        chain = structlog.get_config()["processors"]
        sorted_json = structlog.processors.JSONRenderer(sort_keys=True)
        structlog.configure(processors=[*chain[:-1], sorted_json])
    else:
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    async with observe("SubmitMove", CALLER):
        pass
    lines = written(elsewhere if change == "stream" else stdout)
    if change == "level":
        assert lines == []
        return
    [line] = lines
    assert json.loads(line)["method"] == "SubmitMove"
    if change == "processors":
        assert line.startswith('{"event": "request", "latency_ms": ')
    else:
        assert stdout.getvalue() == ""


async def test_above_info_no_line_is_written_but_failures_are(configure: Configure) -> None:
    stdout = configure("json", "WARNING")
    async with observe("SubmitMove", CALLER):
        pass
    assert stdout.getvalue() == ""
    with pytest.raises(RuntimeError):
        async with observe("SubmitMove", CALLER):
            raise RuntimeError("boom")
    [line] = map(json.loads, written(stdout))
    assert (line["event"], line["level"], line["method"]) == (
        "request failed",
        "error",
        "SubmitMove",
    )
    assert "RuntimeError: boom" in line["exception"]


async def test_console_lines_are_structlog_s_console_lines(configure: Configure) -> None:
    stdout = configure("console", "INFO")
    async with observe("SubmitMove", CALLER):
        annotate(game="G1", seat=1)
    [line] = written(stdout)
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \[info     \] request +game=G1 "
        r"latency_ms=\d+\.\d+ method=SubmitMove outcome=ok request_id=req-1 seat=1 "
        r"transport=http",
        line,
    ), line


async def test_observe_tells_the_outcome_and_lets_exceptions_through() -> None:
    refused = ApiError("NOT_YOUR_TURN", "not your turn")
    with capture_logs() as logs:
        async with observe("GetGame", CALLER) as record:
            assert current() is record
            annotate(seat=1)
        assert current() is None
        annotate(game="ignored outside a request")
        with pytest.raises(ApiError) as raised:
            async with observe("SubmitMove", CALLER):
                raise refused
        assert raised.value is refused
        with pytest.raises(asyncio.CancelledError):
            async with observe("SubmitMove", CALLER):
                raise asyncio.CancelledError
        with pytest.raises(KeyError):
            async with observe("SubmitMove", Caller()):
                raise KeyError("secret")
    lines = [(line["event"], line.get("outcome"), line.get("reason")) for line in logs]
    assert lines == [
        ("request", "ok", None),
        ("request", "rejected", "NOT_YOUR_TURN"),
        ("request", "cancelled", None),
        ("request failed", None, None),
        ("request", "error", "INTERNAL"),
    ]
    assert logs[0]["seat"] == 1 and "game" not in logs[0]
    assert logs[4]["transport"] == "unknown" and logs[4]["seat"] == "spectator"
    assert isinstance(logs[3]["exc_info"], KeyError)


async def test_a_stream_closed_early_is_cancelled() -> None:
    async def stream() -> AsyncGenerator[int]:
        async with observe("WatchGame", CALLER):
            for item in range(3):
                yield item

    with capture_logs() as logs:
        items = stream()
        assert await anext(items) == 0
        await items.aclose()
    assert [(line["method"], line["outcome"]) for line in logs] == [("WatchGame", "cancelled")]


#: Requests as (method, transport, outcome, seconds), bucket bounds included.
OBSERVATIONS = [
    ("SubmitMove", "http", "ok", 0.0007),
    ("SubmitMove", "http", "ok", 0.0005),
    ("SubmitMove", "http", "rejected", 0.0),
    ("GetGame", "grpc", "ok", 10.0),
    ("GetGame", "grpc", "error", 10.5),
    ("SubmitMove", "grpc", "cancelled", 0.3),
    ("SubmitMove", "http", "ok", 2.5),
    ("WatchGame", "http", "ok", 123.456),
]


def reference_registry() -> tuple[CollectorRegistry, Counter, Histogram]:
    """The request metrics as they were defined with prometheus_client's own types."""
    registry = CollectorRegistry()
    counter = Counter(
        "hanafuda_requests",
        "Requests served, by method, transport and outcome (ok, rejected, error, cancelled).",
        ["method", "transport", "outcome"],
        registry=registry,
    )
    histogram = Histogram(
        "hanafuda_request_duration_seconds",
        "Time to serve a request (a WatchGame stream: its whole life), by method and transport.",
        ["method", "transport"],
        buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
        registry=registry,
    )
    return registry, counter, histogram


def created_masked(exposition: bytes) -> str:
    return re.sub(r"(_created(\{[^}]*\})?) \S+", r"\1 T", exposition.decode())


def without_created(exposition: bytes) -> str:
    return "".join(
        line for line in exposition.decode().splitlines(keepends=True) if "_created" not in line
    )


@pytest.mark.parametrize("generate", [generate_latest, generate_openmetrics])
def test_request_metrics_are_exposed_as_a_counter_and_a_histogram_would_be(
    monkeypatch: pytest.MonkeyPatch, generate: Any
) -> None:
    reference, counter, histogram = reference_registry()
    registry = CollectorRegistry()
    requests = metrics.RequestMetrics(registry)
    assert generate(registry) == generate(reference)  # no series yet
    for method, transport, outcome, seconds in OBSERVATIONS:
        counter.labels(method, transport, outcome).inc()
        histogram.labels(method, transport).observe(seconds)
        requests.record(method, transport, outcome, seconds)
    assert created_masked(generate(registry)) == created_masked(generate(reference))

    monkeypatch.setattr(metrics, "_CREATED", False)
    assert generate(registry).decode() == without_created(generate(reference))


def test_record_request_counts_in_the_default_registry() -> None:
    def sample(name: str, **labels: str) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    series = {"method": "ListPresets", "transport": "grpc"}
    before = (
        sample("hanafuda_requests_total", **series, outcome="rejected"),
        sample("hanafuda_request_duration_seconds_bucket", **series, le="0.0025"),
        sample("hanafuda_request_duration_seconds_bucket", **series, le="0.005"),
        sample("hanafuda_rejections_total", reason="BAD_ENCODING"),
    )
    metrics.record_request("ListPresets", "grpc", "rejected", "BAD_ENCODING", 0.003)
    after = (
        sample("hanafuda_requests_total", **series, outcome="rejected"),
        sample("hanafuda_request_duration_seconds_bucket", **series, le="0.0025"),
        sample("hanafuda_request_duration_seconds_bucket", **series, le="0.005"),
        sample("hanafuda_rejections_total", reason="BAD_ENCODING"),
    )
    assert [b - a for a, b in zip(before, after, strict=True)] == [1.0, 0.0, 1.0, 1.0]

    # A failure has a reason on its line, but is no refusal.
    internal = sample("hanafuda_rejections_total", reason="INTERNAL")
    metrics.record_request("ListPresets", "grpc", "error", "INTERNAL", 0.003)
    assert sample("hanafuda_rejections_total", reason="INTERNAL") == internal
    assert sample("hanafuda_requests_total", **series, outcome="error") >= 1.0


# Workers: their lines and their shared metrics ------------------------------------------------


def _samples(exposition: bytes) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
    """Every sample of a text exposition but the ``_created`` ones, as comparable values (sums
    added in another order differ in their last bits)."""
    return {
        (sample.name, tuple(sorted(sample.labels.items())), round(sample.value, 9))
        for family in text_string_to_metric_families(exposition.decode())
        for sample in family.samples
        if not sample.name.endswith("_created")
    }


def test_workers_request_metrics_add_up_as_one_counter_and_histogram_would(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    reference, counter, histogram = reference_registry()
    workers = []
    for pid in (101, 102, 103):  # three workers, each with its files (named by its pid)
        monkeypatch.setattr(os, "getpid", lambda pid=pid: pid)
        workers.append(metrics.RequestMetrics(None, shared_directory=str(tmp_path)))
    for n, (method, transport, outcome, seconds) in enumerate(OBSERVATIONS * 3):
        counter.labels(method, transport, outcome).inc()
        histogram.labels(method, transport).observe(seconds)
        workers[n % len(workers)].record(method, transport, outcome, seconds)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        f"{kind}_requests-{pid}.db" for kind in ("counter", "histogram") for pid in (101, 102, 103)
    )
    monkeypatch.setattr(metrics, "SHARED_DIRECTORY", str(tmp_path))
    merged, _ = metrics.render()
    assert _samples(merged) >= _samples(generate_latest(reference))
    # What is more: the library's own metrics of this directory, none of this process.
    names = {name for name, _, _ in _samples(merged) - _samples(generate_latest(reference))}
    assert not {name for name in names if name.startswith("hanafuda_request")}


def test_a_worker_s_direct_line_is_its_chain_s_line_with_its_index(
    configure: Configure,
) -> None:
    configure("json", "INFO")  # the fixture restores structlog and the root logger afterwards
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        configure_logging("json", "INFO", worker=3)
    line = observability._line
    assert line is not None
    for record in RECORDS:
        assert line.write(record, 0.0015)
        observability._log(record, 0.0015)
    lines = written(stdout)
    assert len(lines) == 2 * len(RECORDS)
    for direct, chain in zip(lines[::2], lines[1::2], strict=True):
        direct_fields, _, direct_tail = direct.rpartition(', "timestamp": ')
        chain_fields, _, chain_tail = chain.rpartition(', "timestamp": ')
        assert direct_fields == chain_fields
        assert re.fullmatch(f'"{TIMESTAMP}", "worker": 3}}', direct_tail), direct_tail
        assert re.fullmatch(f'"{TIMESTAMP}", "worker": 3}}', chain_tail), chain_tail
        assert json.loads(direct)["worker"] == 3


def test_a_worker_s_lines_leave_in_writes_of_whole_lines_no_larger_than_a_pipe_takes() -> None:
    stream = CountingWrites()
    buffer = observability._LineBuffer(stream, 100)
    lines = [f"{n:029d}\n" for n in range(10)] + ["x" * 149 + "\n", "last\n"]
    pieces: list[str] = []
    original = stream.write

    def write(text: str, /) -> int:
        pieces.append(text)
        return original(text)

    stream.write = write  # type: ignore[method-assign]
    for text in lines:
        buffer.write(text)
    buffer.flush()
    assert "".join(pieces) == "".join(lines)
    assert all(piece.endswith("\n") for piece in pieces)
    assert [len(piece) for piece in pieces] == [90, 90, 90, 30, 150, 5]
