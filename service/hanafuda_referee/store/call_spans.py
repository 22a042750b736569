"""What the Redis store asks of a tracer: a span per Redis call, if the tracer wants one.

The store knows nothing of OpenTelemetry: the service gives a :class:`~.redis_store.RedisStore`
an object of this shape (``observability.tracing.RedisCalls``) when tracing is on
(:meth:`~.redis_store.RedisStore.trace_calls`), and none otherwise, when a call costs one test
more.
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["CallSpan", "CallSpans"]


class CallSpan(Protocol):
    """The span of one Redis call, started."""

    def end(self, error: BaseException | None) -> None:
        """End it; ``error``: what the call failed with (or was cancelled by), if anything."""
        ...


class CallSpans(Protocol):
    """Starts the span of a Redis call."""

    def start(self, operation: str, command: str, *, pipelined: bool = False) -> CallSpan | None:
        """The span of a call of the store's ``operation`` (``commit``, ``load``...) that sends
        ``command`` (``EVALSHA``, ``LINDEX``...), in a pipeline with other calls or not; None
        when the call is not to be traced (outside a request)."""
        ...
