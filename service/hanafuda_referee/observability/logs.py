"""Structured logs: ONE canonical line per request, shared by both transports.

A transport (or, failing that, the referee itself) wraps each call in :func:`observe`; the code
that learns the game and the seat tells it with :func:`annotate`. When the call ends, one line is
written with the request id, method, transport, game, seat, outcome, reason and latency, and the
request metrics (:mod:`.metrics`) are recorded. Nothing else about a request is logged: never a
token, a hand or the stock, and not even error messages (reasons are enough to branch on, and a
message is free text).

The line is written on every request, so with JSON output (:func:`configure_logging`) it skips
structlog's processor chain and is rendered directly, as the chain would render it, byte for byte
(:class:`_CanonicalLine`). It holds the request's own fields only: structlog's bound context
variables, which the chain would merge in, are not added (the service binds none).

A worker of several (``--workers``) adds ``"worker": <its index>`` to each of its lines, and its
lines leave in writes of at most :data:`select.PIPE_BUF` bytes, each of whole lines: the workers
share one standard output, and the system keeps a write that small whole on a pipe, so the
lines of two workers never cut into each other.

When tracing is on (:mod:`.tracing`), :func:`observe` also opens the request's span, and closes
it with the outcome the line says; otherwise it costs a test of one variable.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import logging
import select
import sys
import threading
import time
from contextlib import AbstractAsyncContextManager
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from datetime import UTC, datetime
from json.encoder import encode_basestring_ascii
from types import TracebackType
from typing import Any, Protocol, TextIO, cast

import structlog

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.observability import metrics, tracing

__all__ = [
    "ClientGone",
    "RequestRecord",
    "annotate",
    "configure_logging",
    "current",
    "logger",
    "observe",
]

logger = structlog.get_logger("hanafuda_referee")


@dataclass(slots=True)
class RequestRecord:
    """What the canonical line of one request says; filled in while the request runs."""

    method: str
    transport: str
    request_id: str
    game: str = ""
    seat: int | None = None
    outcome: str = "ok"
    reason: str = ""
    started: float = field(default_factory=time.perf_counter)


_current: ContextVar[RequestRecord | None] = ContextVar("hanafuda_request", default=None)


def current() -> RequestRecord | None:
    """The record of the request being served, or None outside :func:`observe`."""
    return _current.get()


def annotate(*, game: str | None = None, seat: int | None = None) -> None:
    """Add the game id and the caller's seat to the current request's line (no-op outside)."""
    record = _current.get()
    if record is None:
        return
    if game is not None:
        record.game = game
    if seat is not None:
        record.seat = seat


class ClientGone(Exception):
    """The client went away before its request had arrived whole: the request is
    ``cancelled``, as a call the client cancels is, and no failure of the service."""


def observe(
    method: str, caller: Caller, started: float | None = None
) -> AbstractAsyncContextManager[RequestRecord]:
    """Serve one request: on exit, write its canonical line and record its metrics.

    Exceptions pass through unchanged; an :class:`ApiError` counts as a rejection with its
    reason, a cancelled call (or :class:`ClientGone`) as ``cancelled``, anything else as an
    ``error``. The latency runs from ``started`` (a ``time.perf_counter()``), by default from
    now.
    """
    record = RequestRecord(method, caller.transport or "unknown", caller.request_id)
    if started is not None:
        record.started = started
    return _Observation(record, caller)


class _Observation:
    """The context manager :func:`observe` returns: a plain class, as entering and leaving an
    ``asynccontextmanager`` (a generator driven through ``asend``/``athrow``) costs several
    times more, on every request."""

    __slots__ = ("_caller", "_record", "_span", "_token")

    def __init__(self, record: RequestRecord, caller: Caller) -> None:
        self._record = record
        self._caller = caller
        self._token: Token[RequestRecord | None] | None = None
        self._span: tracing.RequestSpan | None = None

    async def __aenter__(self) -> RequestRecord:
        self._token = _current.set(self._record)
        if tracing.tracer is not None:
            record = self._record
            self._span = tracing.RequestSpan(
                tracing.tracer,
                record.method,
                record.transport,
                record.request_id,
                self._caller.trace_parent,
                record.started,
            )
        return self._record

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        record = self._record
        if error is not None:
            if isinstance(error, ApiError):
                record.outcome, record.reason = "rejected", error.reason
            elif isinstance(error, (asyncio.CancelledError, GeneratorExit, ClientGone)):
                record.outcome = "cancelled"
            elif isinstance(error, Exception):
                record.outcome, record.reason = "error", "INTERNAL"
                logger.exception(
                    "request failed",
                    method=record.method,
                    request_id=record.request_id,
                    exc_info=error,
                )
        if self._token is not None:
            # Not contextlib.suppress: that is a context manager more on every request.
            try:  # noqa: SIM105
                _current.reset(self._token)
            except ValueError:
                # A stream may be resumed in another context than the one it started in; the
                # record then simply stays in that context, which ends with the stream.
                pass
        if self._span is not None:
            self._span.end(record.outcome, record.reason, record.game, record.seat, error)
        _finish(record)


def _finish(record: RequestRecord) -> None:
    elapsed = time.perf_counter() - record.started
    line = _line
    if line is None or not line.write(record, elapsed):
        _log(record, elapsed)
    metrics.record_request(record.method, record.transport, record.outcome, record.reason, elapsed)


def _log(record: RequestRecord, elapsed: float) -> None:
    """Log the canonical line through structlog's configured chain."""
    fields: dict[str, Any] = {
        "request_id": record.request_id,
        "method": record.method,
        "transport": record.transport,
        "outcome": record.outcome,
        "latency_ms": round(elapsed * 1000, 3),
    }
    if record.game:
        fields["game"] = record.game
    fields["seat"] = "spectator" if record.seat is None else record.seat
    if record.reason:
        fields["reason"] = record.reason
    logger.info("request", **fields)


class _Stream(Protocol):
    """Where log lines go: a text file, or the :class:`_LineBuffer` in front of one."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class _LineBuffer:
    """The service's log stream: lines are kept until :meth:`flush`, which writes them all in
    one call, then flushes the stream.

    Both writers share it, so their lines keep their order: structlog's chain (its logger writes
    and flushes every line) and the canonical line (:class:`_CanonicalLine`, flushed once per
    turn of the event loop). Without it, an unbuffered stdout (``PYTHONUNBUFFERED``, as a
    container runs the service) would make each line a system call of its own.
    """

    # (structlog keeps a lock per file, by a weak reference.)
    __slots__ = ("__weakref__", "_largest", "_lock", "_pending", "_stream")

    def __init__(self, stream: TextIO, largest_write: int | None = None) -> None:
        self._stream = stream
        self._pending: list[str] = []
        # Lines may come from other threads than the loop's (gRPC's, a library's).
        self._lock = threading.Lock()
        #: The most characters one write may take (whole lines, a longer line alone), or None.
        #: (Characters are bytes in JSON lines, which are ASCII.)
        self._largest = largest_write

    def write(self, text: str) -> int:
        with self._lock:
            self._pending.append(text)
        return len(text)

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
            if pending and self._largest is not None:
                self._write_in_parts(pending, self._largest)
            elif pending:
                self._stream.write("".join(pending))
            self._stream.flush()

    def _write_in_parts(self, pending: list[str], largest: int) -> None:
        """Writes ``pending`` in parts of whole lines of at most ``largest`` characters each
        (a longer line alone), each flushed: one system call each."""
        part: list[str] = []
        size = 0
        for text in pending:
            if part and size + len(text) > largest:
                self._stream.write("".join(part))
                self._stream.flush()
                part, size = [], 0
            part.append(text)
            size += len(text)
        self._stream.write("".join(part))


class _CanonicalLine:
    """The canonical line rendered as the JSON chain of :func:`configure_logging` renders it
    (the same keys in the same order, the same encoding, the same timestamp), written to the
    same stream, for a fraction of the cost: the chain copies the fields into a dict, runs five
    processors and formats a timezone-aware datetime, on every request.

    It stands in for the chain only while structlog's configuration is still the one it was
    built with: :meth:`write` returns False (the caller then logs through the chain) once
    anything changed it, e.g. ``structlog.testing.capture_logs``, which edits the processor
    list in place.
    """

    __slots__ = (
        "_chain",
        "_expected",
        "_factory",
        "_flush_scheduled",
        "_second",
        "_stream",
        "_tail",
        "_wrapper",
    )

    def __init__(
        self,
        chain: list[Any],
        wrapper: type,
        factory: Any,
        stream: _Stream,
        worker: int | None = None,
    ) -> None:
        self._chain = chain
        self._expected = list(chain)
        self._wrapper = wrapper
        self._factory = factory
        self._stream = stream
        self._flush_scheduled = False
        # What follows the timestamp: the worker's index (as _WorkerField adds it), the end.
        self._tail = "}\n" if worker is None else f', "worker": {worker:d}}}\n'
        # The second last written and its date and time of day, in one attribute: a reader
        # never sees one of them updated without the other.
        self._second: tuple[int, str] = (-1, "")

    def write(self, record: RequestRecord, elapsed: float) -> bool:
        """Write ``record``'s line; False (and nothing written) if the chain must do it."""
        config = structlog.get_config()
        if (
            config["processors"] is not self._chain
            or self._chain != self._expected
            or config["wrapper_class"] is not self._wrapper
            or config["logger_factory"] is not self._factory
        ):
            return False
        seat, game, reason = record.seat, record.game, record.reason
        self._stream.write(
            f'{{"request_id": {encode_basestring_ascii(record.request_id)}'
            f', "method": {encode_basestring_ascii(record.method)}'
            f', "transport": {encode_basestring_ascii(record.transport)}'
            f', "outcome": {encode_basestring_ascii(record.outcome)}'
            f', "latency_ms": {_millis(elapsed)}'
            f"{_GAME + encode_basestring_ascii(game) if game else ''}"
            f"{_SPECTATOR if seat is None else f'{_SEAT}{seat:d}'}"
            f"{_REASON + encode_basestring_ascii(reason) if reason else ''}"
            f', "event": "request", "level": "info"'
            f', "timestamp": "{self.timestamp(time.time_ns())}"{self._tail}'
        )
        self._flush_soon()
        return True

    def _flush_soon(self) -> None:
        """Flush the stream once the event loop has run the callbacks ready now: with a
        :class:`_LineBuffer` for the stream, the lines of the requests served in one turn of
        the loop go out in one write, not one each. Outside a loop, at once."""
        if self._flush_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._stream.flush()
            return
        self._flush_scheduled = True
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_scheduled = False
        self._stream.flush()

    def timestamp(self, ns: int) -> str:
        """What ``TimeStamper(fmt="iso", utc=True)`` writes at ``ns`` nanoseconds since the epoch:
        ``datetime.now(UTC).isoformat()`` with ``Z`` for ``+00:00``, so microseconds truncated
        as ``datetime.now`` truncates them, and left out when zero as ``isoformat`` leaves them
        out. The date and the time of day are formatted once per second."""
        second, micros = divmod(ns // 1000, 1_000_000)
        cached, prefix = self._second
        if second != cached:
            prefix = datetime.fromtimestamp(second, UTC).replace(tzinfo=None).isoformat()
            self._second = (second, prefix)
        return f"{prefix}.{micros:06d}Z" if micros else f"{prefix}Z"


# The optional parts of the canonical line, ready to be followed by their value.
_GAME = ', "game": '
_SEAT = ', "seat": '
_SPECTATOR = ', "seat": "spectator"'
_REASON = ', "reason": '


def _millis(seconds: float) -> str:
    """``seconds`` in milliseconds as the JSON of ``round(seconds * 1000, 3)``, twice as fast.

    The ``.3f`` format rounds as ``round`` does (both take the correctly rounded decimal);
    that decimal has at most 15 significant digits below 10**12, so ``repr`` of the rounded
    float is the same digits, less trailing zeros (keeping one after the point).
    """
    millis = seconds * 1000
    if not -1e12 < millis < 1e12:  # NaN, infinities and exponents: as the encoder writes them
        return _LINE_ENCODER.encode(round(millis, 3))
    text = f"{millis:.3f}"
    if text[-1] != "0":
        return text
    text = text.rstrip("0")
    return text + "0" if text[-1] == "." else text


#: Set by :func:`configure_logging` when canonical lines are written as JSON.
_line: _CanonicalLine | None = None


class _WorkerField:
    """A processor that adds the worker's index (``worker``) to every line."""

    def __init__(self, worker: int) -> None:
        self._worker = worker

    def __call__(self, logger: Any, name: str, event: dict[str, Any]) -> dict[str, Any]:
        event["worker"] = self._worker
        return event


def configure_logging(
    log_format: str = "json", level: str = "INFO", *, worker: int | None = None
) -> None:
    """Set up structlog: JSON lines (``json``) or readable lines (``console``) on stdout.

    The standard library's log records (uvicorn's, grpc's, asyncio's, redis-py's, the HTTP app's
    own error lines) are written the same way, to the same stream, with their ``logger`` name:
    those of ``WARNING`` and above, or of ``level`` if that is higher. ``worker``: the index of
    this worker of several, named on each line (see the module docstring)."""
    global _line, _stream
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=False)
        if log_format == "console"
        else structlog.processors.JSONRenderer(serializer=_json_line)
    )
    # The worker's index after the timestamp: where the canonical line writes it.
    named = [] if worker is None else [_WorkerField(worker)]
    chain: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        *named,
        structlog.processors.format_exc_info,
        renderer,
    ]
    threshold = logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
    wrapper = structlog.make_filtering_bound_logger(threshold)
    # Writes each line and flushes it, as a print would, with less work per line; through the
    # buffer the canonical lines go through, so that the two keep their order.
    stream = _LineBuffer(sys.stdout, None if worker is None else _ATOMIC_WRITE)
    # (A file for the factory: it only writes and flushes.)
    factory = structlog.WriteLoggerFactory(cast(TextIO, stream))
    structlog.configure(
        processors=chain,
        wrapper_class=wrapper,
        logger_factory=factory,
        # Configured once, at start-up: each call need not look the configuration up again.
        cache_logger_on_first_use=True,
    )
    json_lines = log_format != "console" and threshold <= logging.INFO
    _line = _CanonicalLine(chain, wrapper, factory, stream, worker) if json_lines else None
    _stream = stream
    _route_standard_logging(renderer, stream, max(threshold, logging.WARNING), named)


#: The most bytes the system writes to a pipe in one piece (POSIX guarantees at least 512).
_ATOMIC_WRITE: int = getattr(select, "PIPE_BUF", 512)

#: The name of the handler :func:`configure_logging` puts on the root logger (to replace it).
_STANDARD_HANDLER = "hanafuda_referee"


def _route_standard_logging(
    renderer: Any, stream: _LineBuffer, level: int, named: list[Any]
) -> None:
    """Render the standard library's records with ``renderer`` onto ``stream``: without it,
    they would go to stderr as bare text (Python's last-resort handler), beside the JSON
    lines."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if handler.get_name() == _STANDARD_HANDLER:
            root.removeHandler(handler)
    handler = logging.StreamHandler(cast(TextIO, stream))
    handler.set_name(_STANDARD_HANDLER)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.add_logger_name,
                # A record's `extra` fields become keys of its line.
                structlog.stdlib.ExtraAdder(),
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                *named,
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    root.addHandler(handler)
    root.setLevel(level)


#: The log stream :func:`configure_logging` set up last: flushed at exit, when the event loop
#: may have stopped before the flush it was given ran.
_stream: _LineBuffer | None = None


@atexit.register
def _flush_at_exit() -> None:
    if _stream is not None:
        with contextlib.suppress(ValueError, OSError):  # stdout already closed
            _stream.flush()


# The encoder json.dumps(line, default=...) would build for every line (JSONRenderer's default
# serializer), built once: the same text.
_LINE_ENCODER = json.JSONEncoder(default=structlog.processors._json_fallback_handler)


def _json_line(event: Any, **_: Any) -> str:
    return _LINE_ENCODER.encode(event)
