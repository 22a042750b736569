"""A bot seat's turn as the hosting layer sees it (PLAY.md, "Bots think off the request path").

A commit that hands the turn to a bot seat is answered at once and pushes the turn on the
store's bot queue: (game id, store version). A bot worker (:mod:`hanafuda_referee.botworkers`)
takes it and calls :meth:`~.games.HostedGames.play_bot_turn`, which loads the game, drops the
turn when the game is no longer at that version (another worker, or a retry, applied it; a
resignation ended the game), hands the worker a :class:`BotDecision` to decide (the seat's view,
never the hidden state), and commits the move through the same compare-and-set as a seat's
move, with a request id derived from the version (:func:`bot_request_id`): whichever worker or
retry gets there first applies the turn, once.

A turn whose push failed (the store hiccupped right after the commit) is not lost: the commit
entered the game in the store's index of deadlines first, :data:`BOT_STALL_MS` ahead, and the
sweeper pushes the turn again when a bot has been waiting that long (:meth:`~.games.HostedGames
.sweep`). A turn pushed twice is harmless: the second is dropped.

>>> bot_request_id(41)
'bot:41'
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal, NamedTuple

from hanafuda_referee.bots import Level

__all__ = ["BOT_STALL_MS", "BotDecision", "BotTurnResult", "bot_request_id"]

#: How long a bot seat may wait for its move before the sweeper pushes its turn again
#: (milliseconds): well above a worker's reclaim time, so that a turn merely waiting in a busy
#: queue is seldom pushed twice.
BOT_STALL_MS = 30_000


def bot_request_id(version: int) -> str:
    """The request id of the bot's move at store ``version`` of a game (the store keeps request
    ids per game): two workers deciding the same turn commit the same id. A seat's own ids are
    stored as ``<seat>:<id>``, so they never meet these."""
    return f"bot:{version}"


class BotDecision(NamedTuple):
    """What a bot worker decides from: the seat's engine view and the decision's seed and level
    (picklable, to be decided in another process)."""

    game_id: str
    #: The store version the decision is taken at.
    version: int
    seat: int
    level: Level
    #: ``koikoi.view.view(state, seat)`` or ``hachihachi.view.view(state, seat)``.
    view: Any
    #: :func:`~.turns.bot_seed` of the game, the decision's place in the log and the seat.
    seed: int
    #: The game kind, for the expert's budget.
    game: Literal["koikoi", "hachihachi"]


class BotTurnResult(Enum):
    """What became of a bot's turn."""

    #: This call committed the bot's move.
    PLAYED = "played"
    #: Nothing to do: the game moved on (the turn was applied already), is over, or is gone.
    DROPPED = "dropped"
