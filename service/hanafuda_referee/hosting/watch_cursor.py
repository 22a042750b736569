"""Where a ``WatchGame`` stream (or a request waiting for its turn) stands in a game's log
(:class:`WatchCursor`), and the steps the watchers of a process share (:class:`WatchSteps`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from hanafuda.v1 import service_pb2

from hanafuda_referee.hosting.loaded import LoadedGame
from hanafuda_referee.hosting.replies import event_messages
from hanafuda_referee.hosting.stored import LogHeader, state_after
from hanafuda_referee.hosting.turns import (
    ClockState,
)
from hanafuda_referee.store import (
    VersionedEvents,
)
from hanafuda_referee.writers.forms import MESSAGE

#: The key of one step of a watched game: the game's id and its first token hash (ids may
#: come back after a game expires, the random tokens do not), the store version of the entry,
#: and the seat watching (-1: a spectator).
_StepKey = tuple[str, bytes, int, int]


class WatchSteps:
    """What each log entry of a watched game leads to, kept for the game's other watchers in
    this process: the state after it and the item it shows a seat (or a spectator). A commit
    wakes every watcher of its game at once, and each would otherwise apply the same move and
    build the same view; the most recent ``size`` steps are kept, least recently used first
    out. States are immutable values and items are never changed once built, so watchers share
    them."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._steps: OrderedDict[_StepKey, tuple[Any, service_pb2.WatchGameResponse | None]] = (
            OrderedDict()
        )

    def get(self, key: _StepKey) -> tuple[Any, service_pb2.WatchGameResponse | None] | None:
        step = self._steps.get(key)
        if step is not None:
            self._steps.move_to_end(key)
        return step

    def put(self, key: _StepKey, state: Any, item: service_pb2.WatchGameResponse | None) -> None:
        if self._size <= 0:
            return
        self._steps[key] = (state, item)
        self._steps.move_to_end(key)
        while len(self._steps) > self._size:
            self._steps.popitem(last=False)


class WatchCursor:
    """Where a ``WatchGame`` stream stands: the state reached by the log entries read so far
    (:meth:`advance`), and what the stream shows. The stream itself, an async generator, lives
    in :mod:`.watching`.
    ``steps``: where the watchers of a process share the steps they read (none: not shared)."""

    def __init__(
        self,
        game: LoadedGame,
        seat: int | None,
        state: Any,
        after: int,
        first_shown: int,
        first: service_pb2.WatchGameResponse | None = None,
        over: bool = False,
        steps: WatchSteps | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        #: The state after the last entry read (None before the creation's entry).
        self.state = state
        #: The store version the log is read after.
        self.after = after
        #: The first store version whose entry is shown (the ones before only rebuild the state).
        self.first_shown = first_shown
        #: The stream's first item when it starts from the current view, else None.
        self.first = first
        #: Whether the game is over at :attr:`state`: the stream ends.
        self.over = over
        #: The clocks at :attr:`state` (None: none, or not known yet).
        self.clock: ClockState | None = game.clock if state is game.state else None
        self._steps = steps
        self._game_key = (game.game_id, game.meta.token_hashes[0])

    def advance(self, entry: VersionedEvents) -> service_pb2.WatchGameResponse | None:
        """Read the next log entry: the item it shows the caller, or None before the resume
        point."""
        game = self.game
        adapter = game.adapter
        shown = entry.version >= self.first_shown
        key = (*self._game_key, entry.version, -1 if self.seat is None else self.seat)
        step = None if self._steps is None else self._steps.get(key)
        if step is None:
            header = LogHeader.decode(entry.events[0])
            self.state = state_after(adapter, self.state, header)
            self.clock = header.clock
            item = None
        else:
            self.state, item = step
        if shown and item is None:
            extra = game.extra(MESSAGE, self.state, self.clock)
            item = service_pb2.WatchGameResponse(
                events=event_messages(game, self.state, entry.version, entry.events, self.seat),
                view=adapter.view(self.state, self.seat, game.info, entry.version + 1, extra),
                version=entry.version + 1,
            )
        if self._steps is not None and (step is None or step[1] is not item):
            self._steps.put(key, self.state, item)
        self.over = adapter.is_over(self.state)
        return item if shown else None
