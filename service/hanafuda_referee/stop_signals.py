"""SIGTERM and SIGINT for the processes a supervisor starts (the serving workers of
``--workers``, the bot worker processes): held back until the new process can act on them.

A process is started with both signals blocked (:func:`held`, around the start: the mask is
inherited through fork and exec), and unblocks them (:func:`release`) once its handlers are in
place. A stop sent meanwhile, while it imports and opens its ports, then waits and is acted on
as a graceful stop, where it would otherwise kill the process outright with the default action
(exit code -15: its connections cut, its lines unwritten). The standard library starts its
resource tracker the same way. Where the platform has no signal masks, both do nothing.

>>> sorted(stop.name for stop in STOP_SIGNALS)
['SIGINT', 'SIGTERM']
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from multiprocessing import resource_tracker

__all__ = ["STOP_SIGNALS", "held", "release"]

#: The signals that stop a process gracefully.
STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT})


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Block the stop signals in this thread for the ``with`` block: a process started in it
    starts with them blocked. One sent to this process meanwhile comes at the block's end."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # Started first: multiprocessing starts its resource tracker with the first process it
    # spawns, and unblocks these very signals once it has (its own start is guarded the same
    # way), which would let the process started here start with them unblocked.
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def release() -> None:
    """Unblock the stop signals in this thread (once its handlers are installed): one that
    came while they were blocked is delivered now. Harmless where they were not blocked."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
