"""The ``WatchGame`` stream of a hosted game: the current view (or the versions after a resume
point), then every new version, until the game ends or the caller goes away.

An async generator over :class:`~.games.WatchCursor`, which holds where the stream stands; the
generator only reads, waits and yields.

:class:`WatcherSlots` bounds how many streams a process follows at once. Watching needs no
token, and a stream holds a socket, its buffers and a task for as long as the client likes: with
no bound, a few thousand idle spectators would take the process's file descriptors, and with
them its Redis connections and every other client's requests.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Iterator

from hanafuda.v1 import service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.games import HostedGames, store_failures
from hanafuda_referee.observability import metrics

__all__ = ["WatcherSlots", "watch_game"]


class WatcherSlots:
    """The ``WatchGame`` streams a process follows (:attr:`open`) and the most it may follow at
    once (:attr:`limit`; 0: no limit). A stream over the limit is refused with ``UNAVAILABLE``
    (503), which tells a client to retry later, or on another replica.

    >>> slots = WatcherSlots(1)
    >>> with slots.slot():
    ...     slots.open
    1
    >>> with slots.slot(), slots.slot():
    ...     pass
    Traceback (most recent call last):
    ...
    hanafuda_referee.calls.errors.ApiError: too many watchers on this server; retry later
    >>> slots.open
    0
    """

    __slots__ = ("limit", "open")

    def __init__(self, limit: int = 0) -> None:
        if limit < 0:
            raise ValueError("a watcher limit cannot be negative")
        self.limit = limit
        self.open = 0

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one slot for the ``with`` block, or raise the refusal when none is free."""
        if self.limit and self.open >= self.limit:
            raise ApiError(
                "UNAVAILABLE",
                "too many watchers on this server; retry later",
                {"limit": "max_watchers"},
            )
        self.open += 1
        metrics.WATCHERS.inc()
        try:
            yield
        finally:
            self.open -= 1
            metrics.WATCHERS.dec()


async def watch_game(
    games: HostedGames, request: service_pb2.WatchGameRequest, caller: Caller
) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
    """``WatchGame`` on ``games``: see the contract. Refusals (an unknown game, a bad token, a
    resume point ahead of the game) come with the first item asked for."""
    cursor = await games.open_watch(request, caller)
    if cursor.first is not None:
        yield cursor.first
    if cursor.over:
        return
    with store_failures(cursor.game.game_id):
        entries = games.watch_entries(cursor)
        try:
            async for entry in entries:
                item = cursor.advance(entry)
                if item is not None:
                    yield item
                if cursor.over:
                    return
        finally:
            # Stop the store's watcher now rather than when it is garbage collected.
            close = getattr(entries, "aclose", None)
            if close is not None:
                await close()
