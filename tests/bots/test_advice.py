"""The expert's advice (a hint's and a review's search): the decision the expert bot takes, with
an estimate for every legal move, and blind to what the seat cannot see."""

from __future__ import annotations

import random

from hanafuda_referee.bots import Budget, Level, decide
from hanafuda_referee.bots.advice import advise
from hanafuda_referee.hachihachi import view as hachihachi_view
from hanafuda_referee.hachihachi.game import DROP_FEE_POINTS
from hanafuda_referee.koikoi import view as koikoi_view
from tests.bots.positions import (
    hachihachi_hidden_reshuffled,
    hachihachi_positions,
    koikoi_hidden_reshuffled,
    koikoi_positions,
)

SMALL = Budget(playouts=60)


def test_koikoi_advice_is_the_experts_decision_with_every_move_estimated() -> None:
    rng = random.Random(21)
    for state in koikoi_positions(80, seed=5):
        seen = koikoi_view.view(state, state.turn)
        seed = rng.getrandbits(32)
        advice = advise(seen, seed, budget=SMALL)
        assert advice.move == decide(seen, Level.EXPERT, seed, budget=SMALL)
        assert advice.candidates[0].move == advice.move
        assert sorted(map(str, (c.move for c in advice.candidates))) == sorted(
            map(str, seen.legal_moves)
        )
        assert all(c.samples > 0 or c.move.kind.name == "STOP" for c in advice.candidates)


def test_hachihachi_advice_is_the_experts_decision_in_points() -> None:
    rng = random.Random(22)
    drops = 0
    for state in hachihachi_positions(80, seed=6):
        seen = hachihachi_view.view(state, state.turn)
        seed = rng.getrandbits(32)
        advice = advise(seen, seed, budget=SMALL)
        assert advice.move == decide(seen, Level.EXPERT, seed, budget=SMALL)
        assert len(advice.candidates) == len(seen.legal_moves)
        for candidate in advice.candidates:
            if candidate.move.kind.name == "DROP":
                # A drop costs its fee, known without sampling: in points, not half points.
                assert candidate.samples == 0
                assert candidate.mean_points == -DROP_FEE_POINTS * seen.multiplier
                drops += 1
    assert drops


def test_advice_ignores_what_the_seat_cannot_see() -> None:
    rng = random.Random(23)
    for state in koikoi_positions(40, seed=7):
        seat = state.turn
        other = koikoi_hidden_reshuffled(state, seat, rng)
        seed = rng.getrandbits(32)
        assert advise(koikoi_view.view(state, seat), seed, budget=SMALL) == advise(
            koikoi_view.view(other, seat), seed, budget=SMALL
        )
    for hstate in hachihachi_positions(40, seed=8):
        seat = hstate.turn
        hother = hachihachi_hidden_reshuffled(hstate, seat, rng)
        seed = rng.getrandbits(32)
        assert advise(hachihachi_view.view(hstate, seat), seed, budget=SMALL) == advise(
            hachihachi_view.view(hother, seat), seed, budget=SMALL
        )
