"""Resignation in both engines (PLAY.md): in every phase, by any seat, with the codecs keeping it.

Seeded random games are played to every reachable state kind; at each state every seat resigns
in turn (the state is a value, so each try starts from the same position).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from hanafuda_referee.errors import MoveRejected, Reason
from hanafuda_referee.hachihachi import codec as hachi_codec
from hanafuda_referee.hachihachi import game as hachi
from hanafuda_referee.hachihachi.events import GameEnded as HachiEnded
from hanafuda_referee.hachihachi.events import Resigned as HachiResigned
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.koikoi import codec as koikoi_codec
from hanafuda_referee.koikoi import game as koikoi
from hanafuda_referee.koikoi.events import GameEnded, Resigned
from hanafuda_referee.koikoi.rules import PRESETS, KoiKoiRules
from hanafuda_referee.moves import RESIGN, Move, MoveKind


def _states(engine: Any, state: Any, rng: random.Random) -> list[Any]:
    states = [state]
    while state.phase is not engine.Phase.OVER:
        state, _ = engine.apply(state, state.turn, rng.choice(engine.legal_moves(state)))
        states.append(state)
    return states


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_koikoi_resignation_in_every_state_of_a_game(preset: str) -> None:
    start, _ = koikoi.new_game(KoiKoiRules.from_preset(preset, {"rounds": 2}), seed=3)
    phases = set()
    for state in _states(koikoi, start, random.Random(preset))[:-1]:
        phases.add(state.phase)
        for seat in (0, 1):
            over, events = koikoi.apply(state, seat, RESIGN)
            assert events == (Resigned(seat), GameEnded(state.scores, 1 - seat, seat))
            assert over.phase is koikoi.Phase.OVER and over.winner == 1 - seat
            assert over.scores == state.scores and over.results == state.results
            assert koikoi.legal_moves(over) == []
            assert koikoi_codec.decode(koikoi_codec.encode(over)) == over
            with pytest.raises(MoveRejected) as refused:
                koikoi.apply(over, 1 - seat, RESIGN)
            assert refused.value.reason is Reason.GAME_OVER
        assert RESIGN not in koikoi.legal_moves(state)
    assert phases >= {koikoi.Phase.PLAY, koikoi.Phase.DECISION}


def test_koikoi_resignation_wins_for_the_other_seat_whatever_the_scores() -> None:
    state, _ = koikoi.new_game(KoiKoiRules(), seed=1, first_dealer=0)
    behind = state._replace(scores=(0, 40))
    over, _ = koikoi.apply(behind, 0, RESIGN)
    assert over.winner == 1
    over, _ = koikoi.apply(behind, 1, RESIGN)
    assert over.winner == 0  # ahead by 40, and still the loser


def test_a_resignation_takes_no_card_and_no_seat_outside_the_game() -> None:
    state, _ = koikoi.new_game(KoiKoiRules(), seed=1)
    for bad, reason in (
        ((0, Move(MoveKind.RESIGN, 1)), Reason.MALFORMED_MOVE),
        ((1, Move(MoveKind.RESIGN, 0, 2)), Reason.MALFORMED_MOVE),
        ((2, RESIGN), Reason.UNKNOWN_SEAT),
    ):
        with pytest.raises(MoveRejected) as refused:
            koikoi.apply(state, *bad)
        assert refused.value.reason is reason
    hachi_state, _ = hachi.new_game(HachiHachiRules(), seed=1, participants=3)
    with pytest.raises(MoveRejected) as refused:
        hachi.apply(hachi_state, 3, RESIGN)
    assert refused.value.reason is Reason.UNKNOWN_SEAT


@pytest.mark.parametrize("participants", [3, 4, 6])
def test_hachihachi_resignation_takes_back_the_round_in_progress(participants: int) -> None:
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": 3})
    start, _ = hachi.new_game(rules, seed=participants, participants=participants)
    phases = set()
    for state in _states(hachi, start, random.Random(participants))[:-1]:
        phases.add(state.phase)
        round_start = state.results[-1] if state.results else None
        for seat in range(participants):
            over, events = hachi.apply(state, seat, RESIGN)
            assert over.phase is hachi.Phase.OVER and over.resigned == seat
            assert over.results == state.results
            # The balances of the finished rounds: the last round end's, or nothing paid yet.
            expected = [0] * participants
            if round_start is not None:
                for p in (p for r in state.results for p in r.payments):
                    expected[p.payer] -= p.amount
                    expected[p.payee] += p.amount
            assert list(over.balances) == expected
            assert events == (
                HachiResigned(seat),
                HachiEnded(over.balances, hachi._best(over.balances), seat),
            )
            assert hachi_codec.decode(hachi_codec.encode(over)) == over
        assert RESIGN not in hachi.legal_moves(state)
    assert hachi.Phase.PLAY in phases
    if participants > 3:
        assert hachi.Phase.DROP in phases


def test_states_without_a_resignation_keep_their_bytes() -> None:
    """The resignation is an optional last field: a state without one encodes as before."""
    state, _ = koikoi.new_game(KoiKoiRules(), seed=2)
    over, _ = koikoi.apply(state, 0, RESIGN)
    assert koikoi_codec.encode(over).startswith(koikoi_codec.encode(over._replace(resigned=-1)))
    assert (
        len(koikoi_codec.encode(over)) == len(koikoi_codec.encode(over._replace(resigned=-1))) + 1
    )
