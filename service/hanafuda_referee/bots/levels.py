"""The three levels of bot and :func:`decide`, the one entry point of the library.

A decision is a function of the seat's view, the level and the seed (and, for ``expert``, of its
budget): the same view and seed give the same move, and nothing the seat cannot see goes in.
Every level draws its random numbers from one ``random.Random`` seeded from the seed and the
public position (:func:`decision_rng`), so a caller may pass one seed for every decision of a game
and still get fresh choices at each one.

>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> from hanafuda_referee.koikoi.view import view
>>> state, _ = new_game(KoiKoiRules(), seed=7, first_dealer=0)
>>> seen = view(state, 0)
>>> all(decide(seen, level, seed=1, budget=Budget(playouts=50)) in seen.legal_moves
...     for level in Level)
True
>>> decide(seen, Level.RANDOM, seed=1) == decide(seen, Level.RANDOM, seed=1)
True
"""

from __future__ import annotations

import enum
import random

from hanafuda_referee.bots import (
    hachihachi_expert,
    hachihachi_greedy,
    koikoi_expert,
    koikoi_greedy,
)
from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.hachihachi.view import HachiHachiView
from hanafuda_referee.koikoi.view import KoiKoiView
from hanafuda_referee.moves import Move

__all__ = ["Level", "decide", "decision_rng"]


class Level(enum.StrEnum):
    """How well a bot plays."""

    #: Uniform among the legal moves.
    RANDOM = "random"
    #: One look ahead: what a move takes, builds and leaves; simple risk rules for the rest.
    GREEDY = "greedy"
    #: Determinized Monte Carlo within a budget (:class:`~.budget.Budget`).
    EXPERT = "expert"


def decision_rng(view: KoiKoiView | HachiHachiView, seed: int) -> random.Random:
    """The random source of one decision: seeded from ``seed`` and the public position (round,
    phase, seat on turn, the seat's hand, the field, the stock's size, every seat's captures), so
    that successive decisions of a game differ even under one seed.

    A string seed is hashed with SHA-512 by ``random.Random``, the same in every process.
    """
    captured = ",".join(str(s.captured) for s in view.seats)
    key = (
        f"{seed}|{view.round}|{int(view.phase)}|{view.turn}|{view.hand}|{view.field}|"
        f"{view.stock_size}|{view.drawn}|{captured}"
    )
    return random.Random(key)


def decide(
    view: KoiKoiView | HachiHachiView,
    level: Level,
    seed: int,
    *,
    budget: Budget | None = None,
) -> Move:
    """The move ``level`` makes from ``view``: always one of ``view.legal_moves``.

    ``view`` is the seat's own view (``koikoi.view.view(state, seat)`` or
    ``hachihachi.view.view(state, seat)``) with a decision to take; ``budget`` bounds the
    ``expert``'s search (None: :class:`~.budget.Budget`'s defaults, about 50 ms). Raises
    ``ValueError`` when the view has no legal move (not this seat's turn, or the game is over).
    """
    level = Level(level)
    moves = view.legal_moves
    if not moves:
        raise ValueError("the view has no legal move: there is no decision to take")
    rng = decision_rng(view, seed)
    if level is Level.RANDOM or len(moves) == 1:
        return moves[rng.randrange(len(moves))]
    if isinstance(view, KoiKoiView):
        if level is Level.GREEDY:
            return koikoi_greedy.choose(view)
        return koikoi_expert.choose(view, rng, budget or Budget())
    if level is Level.GREEDY:
        return hachihachi_greedy.choose(view)
    return hachihachi_expert.choose(view, rng, budget or Budget())
