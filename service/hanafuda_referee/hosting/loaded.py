"""A hosted game as this process last read it (:class:`LoadedGame`), and the process's cache of
them (:class:`GameCache`), which saves a store read per move when a process serves a game's
moves in turn.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Final, TypeVar

from hanafuda_referee.hosting.adapter import GameAdapter, GameInfo
from hanafuda_referee.hosting.stored import SNAPSHOT_EVERY
from hanafuda_referee.hosting.tokens import (
    GameMeta,
)
from hanafuda_referee.hosting.turns import (
    ClockState,
    bot_to_act,
    clock_view,
)
from hanafuda_referee.writers.forms import Form

W = TypeVar("W")


class LoadedGame:
    """A game as last seen by this process (immutable, see :class:`LogHeader`)."""

    __slots__ = ("adapter", "clock", "event_count", "game_id", "info", "meta", "state", "version")

    def __init__(
        self,
        game_id: str,
        version: int,
        state: Any,
        event_count: int,
        meta: GameMeta,
        adapter: GameAdapter[Any],
        info: GameInfo | None = None,
        clock: ClockState | None = None,
    ) -> None:
        self.game_id: Final = game_id
        #: The store's version (the contract's minus one).
        self.version: Final = version
        self.state: Final[Any] = state
        self.event_count: Final = event_count
        self.meta: Final = meta
        self.adapter: Final = adapter
        #: The game id and the players, as the adapter takes them: made when this process
        #: first sees the game (``info`` not given) and passed on from version to version by
        #: :meth:`at` (an answer hands it to the adapter several times).
        self.info: Final = GameInfo(game_id, meta.players) if info is None else info
        #: Where the turn clocks stand (None: the game has none).
        self.clock: Final = clock

    def at(
        self, version: int, state: Any, event_count: int, clock: ClockState | None = None
    ) -> LoadedGame:
        """This game at store ``version``, where it holds ``state`` after ``event_count``
        events and ``clock`` (its id, meta, adapter and info stay)."""
        return LoadedGame(
            self.game_id, version, state, event_count, self.meta, self.adapter, self.info, clock
        )

    def extra(
        self, form: Form[W], state: Any = None, clock: ClockState | None = None
    ) -> dict[str, object] | None:
        """The view fields of the hosting layer, written in ``form``: the clocks and the bot
        seats at ``state`` and ``clock`` (by default the game's own); None for a game with
        neither."""
        seats = self.meta.seats
        if seats.plain:
            return None
        if state is None:
            state, clock = self.state, self.clock
        values: dict[str, object] = {}
        if any(seats.bots):
            values["bots"] = [seats.bot(s) for s in range(self.adapter.seat_count(state))]
            thinking = bot_to_act(self.adapter, seats, state)
            if thinking is not None:
                values["bot_thinking_seat"] = thinking[0]
        if seats.clock is not None and clock is not None:
            values["clock"] = form.message(clock_view(self.adapter, seats, state, clock))
        return values

    @property
    def api_version(self) -> int:
        return self.version + 1


class GameCache:
    """The last game seen per game id, least recently used first out."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._games: OrderedDict[str, LoadedGame] = OrderedDict()

    def get(self, game_id: str) -> LoadedGame | None:
        game = self._games.get(game_id)
        if game is not None:
            self._games.move_to_end(game_id)
        return game

    def put(self, game: LoadedGame) -> None:
        if self._size <= 0:
            return
        known = self._games.get(game.game_id)
        # Never go back in time: a slow reader must not replace a newer state with an older one.
        if known is not None and known.version > game.version:
            return
        self._games[game.game_id] = game
        self._games.move_to_end(game.game_id)
        while len(self._games) > self._size:
            self._games.popitem(last=False)

    def drop(self, game_id: str) -> None:
        self._games.pop(game_id, None)


def snapshot(game: LoadedGame) -> bytes:
    """The engine state a commit's log entry carries when its version is a multiple of
    :data:`~.stored.SNAPSHOT_EVERY` (the state before the commit: a replay starts there), else
    none."""
    if (game.version + 1) % SNAPSHOT_EVERY:
        return b""
    state: bytes = game.adapter.encode_state(game.state)
    return state
