"""Structured logs: ONE canonical line per request, shared by both transports.

A transport (or, failing that, the referee itself) wraps each call in :func:`observe`; the code
that learns the game and the seat tells it with :func:`annotate`. When the call ends, one line is
written with the request id, method, transport, game, seat, outcome, reason and latency, and the
request metrics (:mod:`.metrics`) are recorded. Nothing else about a request is logged: never a
token, a hand or the stock, and not even error messages (reasons are enough to branch on, and a
message is free text).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import structlog

from hanafuda_referee.api import metrics
from hanafuda_referee.api.caller import Caller
from hanafuda_referee.api.errors import ApiError

__all__ = ["RequestRecord", "annotate", "configure_logging", "current", "logger", "observe"]

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


@asynccontextmanager
async def observe(method: str, caller: Caller) -> AsyncIterator[RequestRecord]:
    """Serve one request: on exit, write its canonical line and record its metrics.

    Exceptions pass through unchanged; an :class:`ApiError` counts as a rejection with its
    reason, a cancelled call as ``cancelled``, anything else as an ``error``.
    """
    record = RequestRecord(method, caller.transport or "unknown", caller.request_id)
    token = _current.set(record)
    try:
        yield record
    except ApiError as error:
        record.outcome, record.reason = "rejected", error.reason
        raise
    except (asyncio.CancelledError, GeneratorExit):
        record.outcome = "cancelled"
        raise
    except Exception:
        record.outcome, record.reason = "error", "INTERNAL"
        logger.exception("request failed", method=method, request_id=caller.request_id)
        raise
    finally:
        # A stream may be resumed in another context than the one it started in; the record
        # then simply stays in that context, which ends with the stream.
        with contextlib.suppress(ValueError):
            _current.reset(token)
        _finish(record)


def _finish(record: RequestRecord) -> None:
    elapsed = time.perf_counter() - record.started
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
    metrics.record_request(record.method, record.transport, record.outcome, record.reason, elapsed)


def configure_logging(log_format: str = "json", level: str = "INFO") -> None:
    """Set up structlog: JSON lines (``json``) or readable lines (``console``) on stdout."""
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=False)
        if log_format == "console"
        else structlog.processors.JSONRenderer(serializer=_json_line)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
        ),
        # Writes each line and flushes it, as a print would, with less work per line.
        logger_factory=structlog.WriteLoggerFactory(sys.stdout),
        # Configured once, at start-up: each call need not look the configuration up again.
        cache_logger_on_first_use=True,
    )


# The encoder json.dumps(line, default=...) would build for every line (JSONRenderer's default
# serializer), built once: the same text.
_LINE_ENCODER = json.JSONEncoder(default=structlog.processors._json_fallback_handler)


def _json_line(event: Any, **_: Any) -> str:
    return _LINE_ENCODER.encode(event)
