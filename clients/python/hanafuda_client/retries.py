"""When a call is tried again: :class:`RetryPolicy`.

Only ``UNAVAILABLE`` is retried (the server or the network failed to answer, whatever the call
did), and only calls that are safe to repeat: reads, and writes that carry a request id, which
the referee answers once and repeats the answer of.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

import grpc

__all__ = ["RetryPolicy"]


@dataclass(frozen=True)
class RetryPolicy:
    """At most ``attempts`` tries of a call, the waits between them growing from
    ``initial_backoff`` seconds by ``multiplier`` up to ``max_backoff``, each shortened by a
    random part of up to ``jitter`` of itself (so that clients cut off together do not come back
    together). ``RetryPolicy(attempts=1)`` never retries.

    >>> list(RetryPolicy(attempts=4, initial_backoff=0.1, jitter=0).backoffs())
    [0.1, 0.2, 0.4]
    """

    attempts: int = 5
    initial_backoff: float = 0.1
    multiplier: float = 2.0
    max_backoff: float = 2.0
    jitter: float = 0.2

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be at least 1")
        if self.initial_backoff < 0 or self.max_backoff < 0 or self.multiplier < 1:
            raise ValueError("backoffs must not shrink below 0")
        if not 0 <= self.jitter <= 1:
            raise ValueError("jitter is a fraction between 0 and 1")

    def backoffs(self) -> Iterator[float]:
        """The waits before the second, third, ... tries (``attempts - 1`` of them)."""
        wait = self.initial_backoff
        for _ in range(self.attempts - 1):
            bounded = min(wait, self.max_backoff)
            yield bounded * (1 - self.jitter * random.random())
            wait *= self.multiplier

    @staticmethod
    def retryable(code: grpc.StatusCode) -> bool:
        """Whether a call that failed with ``code`` may be tried again."""
        return code == grpc.StatusCode.UNAVAILABLE
