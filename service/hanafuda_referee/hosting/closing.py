"""The server's shutdown as the requests that hold on see it: waits answer, streams end.

A ``WatchGame`` stream spends its life awaiting the store's next log entry. When the server
shuts down, :meth:`Closing.close` cancels each of those awaits, and the stream ends with
:func:`shutting_down` (``UNAVAILABLE``): the SSE ``error`` frame, or that gRPC status. Both are
a proper end of the response, unlike the reset a client would see if the server waited out its
grace and then cut the connection; and both tell the client what the SDKs do with them: resume
after the last version received, on another connection (another replica, or this one started
again). An ``end`` frame or an OK status would say the game is over, which it is not.

Cancelling only while a stream awaits costs a stream nothing per item (a set insertion), where
racing every item against an event would cost a task and a wait each.

>>> shutting_down().reason, shutting_down().metadata
('UNAVAILABLE', {'cause': 'shutdown'})
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from hanafuda_referee.calls.errors import ApiError

__all__ = ["Closing", "shutting_down"]

_T = TypeVar("_T")


def shutting_down() -> ApiError:
    """What a stream ends with when the server shuts down."""
    return ApiError(
        "UNAVAILABLE",
        "the server is shutting down; resume after the last version received",
        {"cause": "shutdown"},
    )


class Closing:
    """Set once, when the server shuts down; interrupts the awaits registered with it."""

    __slots__ = ("_cancelled", "_event", "_waiting")

    def __init__(self) -> None:
        self._event = asyncio.Event()
        #: The tasks awaiting in :meth:`interruptible` now.
        self._waiting: set[asyncio.Task[object]] = set()
        #: Those :meth:`close` cancelled, which have not yet seen it.
        self._cancelled: set[asyncio.Task[object]] = set()

    def is_set(self) -> bool:
        """Whether the server shuts down."""
        return self._event.is_set()

    async def wait(self) -> None:
        """Until the server shuts down."""
        await self._event.wait()

    def close(self) -> None:
        """The server shuts down: wake every :meth:`wait`, interrupt every
        :meth:`interruptible` await."""
        self._event.set()
        for task in self._waiting:
            if task.cancel(msg="the server is shutting down"):
                self._cancelled.add(task)

    async def interruptible(self, awaitable: Awaitable[_T]) -> _T:
        """``awaitable``'s result, awaited in this task, unless the server shuts down first
        (or had): then :func:`shutting_down` is raised, and ``awaitable`` was cancelled."""
        if self._event.is_set():
            if asyncio.iscoroutine(awaitable):
                awaitable.close()  # never awaited: say so to nobody
            raise shutting_down()
        task = asyncio.current_task()
        assert task is not None  # a coroutine awaiting runs in a task
        self._waiting.add(task)
        try:
            result = await awaitable
        except asyncio.CancelledError:
            if task not in self._cancelled:
                raise  # someone else's cancellation: the client left, say
            self._answer(task)
            raise shutting_down() from None
        finally:
            self._waiting.discard(task)
        if task in self._cancelled:  # cancelled as the result came: the stream ends all the same
            self._answer(task)
            raise shutting_down()
        return result

    def _answer(self, task: asyncio.Task[object]) -> None:
        """``task``'s cancellation by :meth:`close` is answered (by :func:`shutting_down`): the
        task goes on as if it had not come, so that its own timeouts still work."""
        self._cancelled.discard(task)
        task.uncancel()
