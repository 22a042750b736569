"""The expert's budget: play-outs by count, or the caller's clock; never a clock of its own."""

from __future__ import annotations

import pytest

from hanafuda_referee.bots import Budget, Level, decide
from hanafuda_referee.bots.search import best_move
from hanafuda_referee.koikoi.view import view as koikoi_view
from tests.bots.positions import hachihachi_positions, koikoi_positions


class Ticks:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return float(self.reads)


def test_a_budget_counts_play_outs() -> None:
    played: list[int] = []

    def outcome(world: int, i: int) -> float:
        played.append(i)
        return float(i == 2) + i / 10

    assert best_move(5, {}, lambda: 0, outcome, Budget(playouts=100)) == 2
    assert 80 <= len(played) <= 100
    # Sequential halving: the best candidates play the most.
    assert played.count(2) > played.count(0)


def test_a_wall_budget_stops_at_the_callers_deadline() -> None:
    clock = Ticks()
    worlds: list[int] = []

    def new_world() -> int:
        worlds.append(1)
        return 0

    best_move(4, {}, new_world, lambda w, i: 0.0, Budget.wall(clock, seconds=5))
    # Read every few worlds: far fewer worlds than the million play-outs allowed.
    assert clock.reads and len(worlds) < 100


def test_known_outcomes_need_no_world() -> None:
    def never() -> int:
        raise AssertionError("no world is needed")

    assert best_move(2, {0: 1.0, 1: 3.0}, never, lambda w, i: 0.0, Budget()) == 1


def test_a_decision_under_a_wall_budget_is_legal() -> None:
    for state in koikoi_positions(5, seed=61):
        seen = koikoi_view(state, state.turn)
        clock = Ticks()
        move = decide(seen, Level.EXPERT, 1, budget=Budget.wall(clock, seconds=8))
        assert move in seen.legal_moves
    from hanafuda_referee.hachihachi.view import view as hachihachi_view

    for hh in hachihachi_positions(5, seed=62):
        seen_hh = hachihachi_view(hh, hh.turn)
        move = decide(seen_hh, Level.EXPERT, 1, budget=Budget.wall(Ticks(), seconds=8))
        assert move in seen_hh.legal_moves


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Budget(playouts=0)
    with pytest.raises(ValueError, match="both a clock and seconds"):
        Budget(seconds=1.0)
