"""The expert's advice on one decision: the move it takes and what it thinks of every legal move
(a hint; a review prices a played move by it).

:func:`advise` runs the very search the ``expert`` level decides by (the same view, seed and
budget give the same move as :func:`.levels.decide`), and keeps what the search found on the
way: each legal move's mean outcome in points over the worlds it was played in. Like every bot,
it reads the seat's view only.

Points: Koi-Koi's are the round's points won or lost; Hachi-Hachi's, the seat's balance change
over the rest of the round, which the search counts in half points, are given in points.

>>> from hanafuda_referee.bots import Level, decide
>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> from hanafuda_referee.koikoi.view import view
>>> state, _ = new_game(KoiKoiRules(), seed=7, first_dealer=0)
>>> seen = view(state, 0)
>>> advice = advise(seen, seed=1, budget=Budget(playouts=200))
>>> advice.move == decide(seen, Level.EXPERT, seed=1, budget=Budget(playouts=200))
True
>>> advice.candidates[0].move == advice.move, len(advice.candidates) == len(seen.legal_moves)
(True, True)
"""

from __future__ import annotations

from typing import NamedTuple

from hanafuda_referee.bots import hachihachi_expert, koikoi_expert
from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.bots.levels import decision_rng
from hanafuda_referee.hachihachi.view import HachiHachiView
from hanafuda_referee.koikoi.view import KoiKoiView
from hanafuda_referee.moves import Move

__all__ = ["Advice", "Candidate", "advise"]


class Candidate(NamedTuple):
    """One legal move as the search saw it: its mean outcome in points, over ``samples`` worlds
    (0: an outcome known without sampling, as a stop's)."""

    move: Move
    mean_points: float
    samples: int


class Advice(NamedTuple):
    """The expert's move and every legal move's estimate, the expert's move first, then the
    best mean first."""

    move: Move
    candidates: tuple[Candidate, ...]

    def candidate(self, move: Move) -> Candidate | None:
        """The estimate of ``move`` (None: not a legal move of the decision)."""
        return next((c for c in self.candidates if c.move == move), None)


def advise(view: KoiKoiView | HachiHachiView, seed: int, *, budget: Budget | None = None) -> Advice:
    """The ``expert``'s advice from the seat's ``view`` (see the module docstring). A decision
    with one legal move is searched too, for its estimate. Raises ``ValueError`` when the view
    has no legal move."""
    moves = view.legal_moves
    if not moves:
        raise ValueError("the view has no legal move: there is no decision to take")
    rng = decision_rng(view, seed)
    budget = budget or Budget()
    if isinstance(view, KoiKoiView):
        found, unit = koikoi_expert.estimate(view, rng, budget), 1.0
    else:
        found, unit = hachihachi_expert.estimate(view, rng, budget), 0.5
    candidates = tuple(
        Candidate(moves[i], found.means[i] * unit, found.samples[i]) for i in found.ranked()
    )
    return Advice(moves[found.best], candidates)
