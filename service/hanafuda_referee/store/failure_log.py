"""The store's failures, said in the log without flooding it.

A request the store failed is logged as any refusal (``UNAVAILABLE``), without the cause: the
request line carries no messages. The cause is the operator's first question (Redis full, a
read-only replica, timeouts, a lost connection), so :class:`FailureLog` logs it apart, as
``game store failed`` with the operation and the error's class: at once for the first failure of
a kind, then at most once a period, saying how many there were meanwhile. Never the error's
message: a Redis reply quoted in it could hold a game's state.

>>> import logging, sys
>>> shown = logging.StreamHandler(sys.stdout)
>>> shown.setFormatter(logging.Formatter("%(message)s %(operation)s %(error)s %(more)s"))
>>> example = logging.getLogger("failure_log_example")
>>> example.propagate = False
>>> example.addHandler(shown)
>>> now = [0.0]
>>> log = FailureLog(example, period=10.0, clock=lambda: now[0])
>>> log.failed("commit", ConnectionError("gone"))
game store failed commit ConnectionError 0
>>> log.failed("commit", ConnectionError("still gone"))   # within the period: counted
>>> now[0] = 12.0
>>> log.failed("commit", ConnectionError("gone again"))
game store failed commit ConnectionError 1
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["FailureLog"]


class FailureLog:
    """Logs a failure of each kind (operation, error class) at most once per ``period`` seconds;
    the line's ``more`` counts the failures of that kind left unsaid since the last line."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        period: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._logger = logger
        self._period = period
        self._clock = clock
        #: (operation, error class) -> when its last line was written, failures since.
        self._kinds: dict[tuple[str, str], tuple[float, int]] = {}

    def failed(self, operation: str, error: BaseException) -> None:
        """Note one failure of ``operation``, ``error`` being what the client library raised."""
        kind = (operation, type(error).__name__)
        now = self._clock()
        said = self._kinds.get(kind)
        if said is not None and now - said[0] < self._period:
            self._kinds[kind] = (said[0], said[1] + 1)
            return
        self._kinds[kind] = (now, 0)
        more = 0 if said is None else said[1]
        self._logger.warning(
            "game store failed", extra={"operation": operation, "error": kind[1], "more": more}
        )
