"""Positions for the bot tests: states reached by seeded random play under varied rules, and the
same states with the cards a seat cannot see dealt differently."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hanafuda_referee.hachihachi import game as hachihachi
from hanafuda_referee.hachihachi.game import HachiHachiState
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.koikoi import game as koikoi
from hanafuda_referee.koikoi.game import KoiKoiState
from hanafuda_referee.koikoi.rules import PRESETS, KoiKoiRules

#: Rule sets beside the presets that make the rarer rules frequent (wild lightning, refills).
KOIKOI_EDGES: list[dict[str, Any]] = [
    {"lightning_wild": "on", "refill_empty_field": True},
    {"lightning_wild": "before-november", "koikoi_limit": 2, "last_turn_koikoi": True},
]


def koikoi_rule_sets() -> list[KoiKoiRules]:
    """Every preset, and the edge rule sets on the default one, over two rounds."""
    sets = [KoiKoiRules.from_preset(name, {"rounds": 2}) for name in PRESETS]
    sets += [KoiKoiRules.from_preset("fudawiki", {"rounds": 2, **edge}) for edge in KOIKOI_EDGES]
    return sets


def koikoi_positions(count: int, seed: int) -> Iterator[KoiKoiState]:
    """``count`` states with a decision pending, from random games under every rule set."""
    rng = random.Random(seed)
    sets = koikoi_rule_sets()
    made = 0
    while made < count:
        rules = sets[rng.randrange(len(sets))]
        state, _ = koikoi.new_game(rules, seed=rng.getrandbits(32))
        while state.phase is not koikoi.Phase.OVER and made < count:
            moves = koikoi.legal_moves(state)
            if rng.random() < 0.15:
                made += 1
                yield state
            state, _ = koikoi.apply(state, state.turn, rng.choice(moves))


def hachihachi_positions(count: int, seed: int) -> Iterator[HachiHachiState]:
    """``count`` states with a decision pending, from random games of 3 to 6 participants."""
    rng = random.Random(seed)
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": 2})
    made = 0
    while made < count:
        participants = rng.randint(3, 6)
        state, _ = hachihachi.new_game(rules, seed=rng.getrandbits(32), participants=participants)
        while state.phase is not hachihachi.Phase.OVER and made < count:
            moves = hachihachi.legal_moves(state)
            if rng.random() < 0.15:
                made += 1
                yield state
            state, _ = hachihachi.apply(state, state.turn, rng.choice(moves))


def koikoi_hidden_reshuffled(state: KoiKoiState, seat: int, rng: random.Random) -> KoiKoiState:
    """``state`` with what ``seat`` cannot see dealt again: the other hand and the stock still to
    draw shuffled together, and another seed (the later deals)."""
    other = 1 - seat
    pool = _cards(state.hands[other]) + list(state.stock[state.stock_pos :])
    rng.shuffle(pool)
    size = state.hands[other].bit_count()
    hands = list(state.hands)
    hands[other] = _mask(pool[:size])
    return state._replace(
        hands=(hands[0], hands[1]),
        stock=state.stock[: state.stock_pos] + tuple(pool[size:]),
        seed=rng.getrandbits(32),
    )


def hachihachi_hidden_reshuffled(
    state: HachiHachiState, seat: int, rng: random.Random
) -> HachiHachiState:
    """``state`` with what ``seat`` cannot see dealt again: the other hands (less the cards a
    declared teyaku showed), the hands put aside by drops and the stock still to draw shuffled
    together, and another seed."""
    shown = [t.exposed if t is not None else 0 for t in state.teyaku]
    pool = list(state.stock[state.stock_pos :]) + _cards(state.aside)
    for other, hand in enumerate(state.hands):
        if other != seat:
            pool += _cards(hand & ~shown[other])
    rng.shuffle(pool)
    hands = list(state.hands)
    at = 0
    for other, hand in enumerate(state.hands):
        if other != seat:
            size = (hand & ~shown[other]).bit_count()
            hands[other] = (hand & shown[other]) | _mask(pool[at : at + size])
            at += size
    aside_size = state.aside.bit_count()
    aside = _mask(pool[at : at + aside_size])
    at += aside_size
    return state._replace(
        hands=tuple(hands),
        aside=aside,
        stock=state.stock[: state.stock_pos] + tuple(pool[at:]),
        seed=rng.getrandbits(32),
    )


def _cards(mask: int) -> list[int]:
    return [c for c in range(1, 49) if (mask >> c) & 1]


def _mask(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask
