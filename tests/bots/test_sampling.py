"""The expert's worlds are consistent with everything the seat's view shows: a sampled state gives
back the very view it was sampled from, holds every card once, and keeps the cards a declared
teyaku showed in their owner's hand."""

from __future__ import annotations

import random

from hanafuda_referee.bots import hachihachi_expert, koikoi_expert
from hanafuda_referee.hachihachi.game import HachiHachiState
from hanafuda_referee.hachihachi.view import view as hachihachi_view
from hanafuda_referee.koikoi.game import KoiKoiState
from hanafuda_referee.koikoi.view import view as koikoi_view
from tests.bots.positions import hachihachi_positions, koikoi_positions


def _koikoi_cards(state: KoiKoiState) -> list[int]:
    masks = [*state.hands, state.field, *state.captured]
    cards = [c for mask in masks for c in range(1, 49) if (mask >> c) & 1]
    cards += state.stock[state.stock_pos :]
    return cards + ([state.drawn] if state.drawn else [])


def _hachihachi_cards(state: HachiHachiState) -> list[int]:
    masks = [*state.hands, state.field, *state.captured, state.aside]
    cards = [c for mask in masks for c in range(1, 49) if (mask >> c) & 1]
    cards += state.stock[state.stock_pos :]
    return cards + ([state.drawn] if state.drawn else [])


def test_a_koikoi_world_shows_the_seat_its_own_view() -> None:
    rng = random.Random(1)
    for state in koikoi_positions(300, seed=21):
        seat = state.turn
        seen = koikoi_view(state, seat)
        world = koikoi_expert.sample_state(seen, rng)
        assert koikoi_view(world, seat) == seen._replace(results=())
        cards = _koikoi_cards(world)
        assert len(cards) == 48 and set(cards) == set(range(1, 49))


def test_koikoi_worlds_vary_the_hidden_cards() -> None:
    rng = random.Random(2)
    state = next(koikoi_positions(1, seed=22))
    seen = koikoi_view(state, state.turn)
    hands = {koikoi_expert.sample_state(seen, rng).hands[1 - state.turn] for _ in range(20)}
    assert len(hands) > 15


def test_a_hachihachi_world_shows_the_seat_its_own_view() -> None:
    rng = random.Random(3)
    shown = 0
    for state in hachihachi_positions(300, seed=23):
        seat = state.turn
        seen = hachihachi_view(state, seat)
        world = hachihachi_expert.sample_state(seen, rng)
        assert hachihachi_view(world, seat) == seen._replace(results=())
        cards = _hachihachi_cards(world)
        assert len(cards) == 48 and set(cards) == set(range(1, 49))
        for other, teyaku in enumerate(world.teyaku):
            if teyaku is not None and other != seat:
                kept = state.hands[other] & teyaku.exposed
                assert world.hands[other] & kept == kept
                shown += bool(kept)
    assert shown  # some positions had a teyaku's cards still in hand
