"""Every level's decisions: legal, reproducible, and blind to what the seat cannot see.

The hidden-information test (PLAY.md, "Built-in bots") deals the cards the seat cannot see again
(the other hands, the hands put aside, the stock still to draw, the seed of the later deals),
checks that the seat's view is unchanged, and asks each level for its decision in both states with
the same seed: it must be the same. Over a few hundred positions of both games, every phase.
"""

from __future__ import annotations

import random

import pytest

from hanafuda_referee.bots import Budget, Level, decide
from hanafuda_referee.hachihachi import view as hachihachi_view
from hanafuda_referee.koikoi import view as koikoi_view
from tests.bots.positions import (
    hachihachi_hidden_reshuffled,
    hachihachi_positions,
    koikoi_hidden_reshuffled,
    koikoi_positions,
)

#: A small expert budget keeps the tests fast; the search is the same at any budget.
SMALL = Budget(playouts=24)


@pytest.mark.parametrize("level", list(Level))
def test_koikoi_decisions_ignore_what_the_seat_cannot_see(level: Level) -> None:
    rng = random.Random(11)
    phases = set()
    for state in koikoi_positions(120, seed=1):
        seat = state.turn
        other = koikoi_hidden_reshuffled(state, seat, rng)
        assert other != state
        seen = koikoi_view.view(state, seat)
        assert koikoi_view.view(other, seat) == seen
        seed = rng.getrandbits(32)
        move = decide(seen, level, seed, budget=SMALL)
        assert move in seen.legal_moves
        assert decide(koikoi_view.view(other, seat), level, seed, budget=SMALL) == move
        phases.add(seen.phase)
    assert len(phases) == 3  # play, target choice, koi-koi decision


@pytest.mark.parametrize("level", list(Level))
def test_hachihachi_decisions_ignore_what_the_seat_cannot_see(level: Level) -> None:
    rng = random.Random(12)
    phases = set()
    for state in hachihachi_positions(120, seed=2):
        seat = state.turn
        other = hachihachi_hidden_reshuffled(state, seat, rng)
        seen = hachihachi_view.view(state, seat)
        assert hachihachi_view.view(other, seat) == seen
        seed = rng.getrandbits(32)
        move = decide(seen, level, seed, budget=SMALL)
        assert move in seen.legal_moves
        assert decide(hachihachi_view.view(other, seat), level, seed, budget=SMALL) == move
        phases.add(seen.phase)
    assert len(phases) == 4  # drop, play, target choice, sage decision


def test_the_reshuffles_change_hidden_cards() -> None:
    """The states compared above differ where the seat cannot look (else the test proves
    nothing)."""
    rng = random.Random(13)
    changed = 0
    for state in koikoi_positions(40, seed=3):
        other = koikoi_hidden_reshuffled(state, state.turn, rng)
        changed += other.hands[1 - state.turn] != state.hands[1 - state.turn]
    assert changed > 30
    changed = 0
    for hh in hachihachi_positions(40, seed=4):
        reshuffled = hachihachi_hidden_reshuffled(hh, hh.turn, rng)
        changed += reshuffled.hands != hh.hands
    assert changed > 30


@pytest.mark.parametrize("level", list(Level))
def test_same_view_and_seed_same_decision_and_seeds_matter(level: Level) -> None:
    moves_by_seed: dict[int, list[object]] = {}
    for state in koikoi_positions(30, seed=5):
        seen = koikoi_view.view(state, state.turn)
        for seed in (1, 2):
            first = decide(seen, level, seed, budget=SMALL)
            assert decide(seen, level, seed, budget=SMALL) == first
            moves_by_seed.setdefault(seed, []).append(first)
    if level is Level.RANDOM:
        assert moves_by_seed[1] != moves_by_seed[2]


def test_a_view_without_a_decision_is_refused() -> None:
    state = next(koikoi_positions(1, seed=6))
    seen = koikoi_view.view(state, 1 - state.turn)
    with pytest.raises(ValueError, match="no legal move"):
        decide(seen, Level.GREEDY, 0)


def test_a_level_may_be_named_by_its_string() -> None:
    state = next(koikoi_positions(1, seed=7))
    seen = koikoi_view.view(state, state.turn)
    assert decide(seen, Level("greedy"), 3) == decide(seen, Level.GREEDY, 3)
    assert Level.EXPERT.value == "expert"
