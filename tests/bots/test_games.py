"""Whole games between bots, through the engines: every preset of Koi-Koi with every pairing of
levels, Hachi-Hachi with 3 to 6 participants of mixed levels; each bot sees only its seat's view
and every decision it takes is accepted. The expert plays on a tiny budget: these tests are about
the games ending, not about strength (``tests/benchmarks/bots.py`` measures that)."""

from __future__ import annotations

import itertools

import pytest

from hanafuda_referee.bots import Budget, Level, decide
from hanafuda_referee.hachihachi import game as hachihachi
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.view import view as hachihachi_view
from hanafuda_referee.koikoi import game as koikoi
from hanafuda_referee.koikoi.rules import PRESETS, KoiKoiRules
from hanafuda_referee.koikoi.view import view as koikoi_view

TINY = Budget(playouts=6)
PAIRINGS = list(itertools.product(Level, repeat=2))


@pytest.mark.parametrize(("index", "preset"), list(enumerate(PRESETS)))
def test_koikoi_games_between_bots_end(index: int, preset: str) -> None:
    rules = KoiKoiRules.from_preset(preset)
    for game in range(2):
        levels = PAIRINGS[(2 * index + game) % len(PAIRINGS)]
        state, _ = koikoi.new_game(rules, seed=100 * index + game, first_dealer=game)
        decisions = 0
        while state.phase is not koikoi.Phase.OVER:
            seat = state.turn
            move = decide(koikoi_view(state, seat), levels[seat], seed=game, budget=TINY)
            state, _ = koikoi.apply(state, seat, move)
            decisions += 1
        assert state.round >= 1 and decisions > 0
        assert len(state.results) == state.round


@pytest.mark.parametrize("participants", [3, 4, 5, 6])
def test_hachihachi_games_between_bots_end(participants: int) -> None:
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": 6})
    levels = [list(Level)[(participants + s) % 3] for s in range(participants)]
    state, _ = hachihachi.new_game(rules, seed=participants, participants=participants)
    while state.phase is not hachihachi.Phase.OVER:
        seat = state.turn
        move = decide(hachihachi_view(state, seat), levels[seat], seed=seat, budget=TINY)
        state, _ = hachihachi.apply(state, seat, move)
    assert len(state.results) == 6
    assert sum(state.balances) == 0
