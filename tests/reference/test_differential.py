"""The engines against independent readings of the spec (:mod:`tests.reference`).

Each game test plays one random game in both: the same deals, the same first dealer, and at every
step the same move, chosen at random among the legal ones. Every step must agree on who acts and
on what, on the legal moves, on the scores or balances, and on every finished round. The options
and deals are drawn to reach the rare paths too: deal checks, teyaku hands, yaku overrides, drops.
Whole games seldom meet a rare option on the cards it acts on, so Koi-Koi's scoring and hand
checks are also compared directly, over many more rule sets and capture piles.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

import pytest

from hanafuda_referee.cards import MONTH_MASKS, Card, Kind, cards_of, mask_of
from hanafuda_referee.dealing import Deal
from hanafuda_referee.hachihachi import game as hachihachi
from hanafuda_referee.hachihachi.events import RoundEnded, TeyakuDeclared
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.koikoi import game as koikoi
from hanafuda_referee.koikoi.game import classify_hand
from hanafuda_referee.koikoi.rules import ENUM_OPTIONS, PRESETS, YAKU_IDS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import score_stop, yaku_points
from hanafuda_referee.moves import Move, MoveKind
from tests.reference.hachihachi import HachiHachiGame
from tests.reference.koikoi import Deal as KoiKoiDeal
from tests.reference.koikoi import KoiKoiGame, Rules, has_four, has_four_pairs

#: A move as the references spell it: ("play", card, target or None), ("choose", target), ...
RefMove = tuple[Any, ...]

_SIMPLE = {
    MoveKind.KOIKOI: ("koikoi",),
    MoveKind.STOP: ("stop",),
    MoveKind.SAGE: ("sage",),
    MoveKind.SHOBU: ("shobu",),
    MoveKind.JOIN: ("join",),
    MoveKind.DROP: ("drop",),
}


def spelled(move: Move) -> RefMove:
    """A move of the engine as the references spell it."""
    if move.kind is MoveKind.PLAY:
        return ("play", Card(move.card).code, Card(move.target).code if move.target else None)
    if move.kind is MoveKind.CHOOSE_TARGET:
        return ("choose", Card(move.target).code)
    return _SIMPLE[move.kind]


def codes(cards: Sequence[int]) -> list[str]:
    return [Card(c).code for c in cards]


def month_cards(month: int) -> list[int]:
    return [int(c) for c in cards_of(MONTH_MASKS[month])]


def same_moves(engine_moves: Sequence[Move], reference_moves: Sequence[RefMove]) -> None:
    assert sorted(map(spelled, engine_moves), key=repr) == sorted(
        map(tuple, reference_moves), key=repr
    )


# --- Koi-Koi ---------------------------------------------------------------------------------

_KOIKOI_PHASES = {
    koikoi.Phase.PLAY: "play",
    koikoi.Phase.DRAWN_TARGET: "choose",
    koikoi.Phase.DECISION: "decide",
}
#: The engine's round outcomes in the reference's words (the others are spelled alike).
_KOIKOI_OUTCOMES = {"teyaku": "deal-check-win"}
#: The on/off options: the rule set's fields whose values are booleans.
_BOOL_OPTIONS = tuple(
    f.name
    for f in dataclasses.fields(KoiKoiRules)
    if type(getattr(PRESETS["fudawiki"], f.name)) is bool
)


def koikoi_overrides(
    rng: random.Random, as_preset: float = 0.5, yaku: int = 3, yaku_share: float = 0.4
) -> dict[str, Any]:
    """A share ``as_preset`` of the games on a preset as it is, the others with a few options
    changed and, a share ``yaku_share`` of them, the settings of ``yaku`` yaku overridden."""
    overrides: dict[str, Any] = {}
    if rng.random() < as_preset:
        return overrides
    for name, values in ENUM_OPTIONS.items():
        if name != "first_dealer" and rng.random() < 0.3:
            overrides[name] = rng.choice(values)
    for name in _BOOL_OPTIONS:
        if rng.random() < 0.25:
            overrides[name] = rng.random() < 0.5
    numbers: tuple[tuple[str, list[int]], ...] = (
        ("seven_or_more", [0, 5, 7, 10]),
        ("koikoi_limit", [0, 1, 2]),
        ("starting_points", [0, 10, 30]),
        ("target_score", [0, 20, 50]),
        ("teyaku_points", [0, 4, 6]),
        ("dealer_points", [0, 1, 3]),
        ("rounds", [1, 2, 3, 6]),
    )
    for name, numbers_allowed in numbers:
        if rng.random() < 0.25:
            overrides[name] = rng.choice(numbers_allowed)
    if rng.random() < yaku_share:
        settings: dict[str, dict[str, Any]] = {}
        for yaku_id in rng.sample(YAKU_IDS, yaku):
            setting: dict[str, Any] = {}
            if rng.random() < 0.5:
                setting["points"] = rng.choice([0, 2, 5, 7, 12])
            if rng.random() < 0.3:
                setting["points_after_koikoi"] = rng.choice([0, 3, 9])
            if rng.random() < 0.5:
                setting["extra"] = rng.random() < 0.5
            if rng.random() < 0.4:
                setting["enabled"] = rng.random() < 0.7
            settings[yaku_id] = setting
        overrides["yaku"] = settings
    return overrides


def koikoi_deal(rng: random.Random) -> Deal:
    """A shuffled deal; one in seven is made to fire a deal check (a four or four pairs of
    months, in a hand or on the field), and some of those are near misses (4 + 2 + 2)."""
    deck = list(range(1, 49))
    rng.shuffle(deck)
    special = rng.random()
    if special < 0.14:
        months = rng.sample(range(1, 13), 4)
        if special < 0.04:
            chosen = month_cards(months[0]) + rng.sample(month_cards(months[1]), 2)
            chosen += rng.sample(month_cards(months[2]), 2)
        elif special < 0.09:
            chosen = [c for m in months for c in rng.sample(month_cards(m), 2)]
        else:
            chosen = month_cards(months[0]) + rng.sample(deck, 8)
            chosen = list(dict.fromkeys(chosen))[:8]
        rest = [c for c in deck if c not in chosen]
        # The chosen eight go to a hand, or to the field.
        deck = chosen + rest if rng.random() < 0.6 else rest[:16] + chosen + rest[16:]
    hands = [deck[0:8], deck[8:16]]
    rng.shuffle(hands)
    return Deal(tuple(map(tuple, hands)), tuple(deck[16:24]), tuple(deck[24:]))


def reference_deal(deal: Deal) -> KoiKoiDeal:
    return {
        "hands": [codes(hand) for hand in deal.hands],
        "field": codes(deal.field),
        "stock": codes(deal.stock),
    }


def same_koikoi_rounds(rules: KoiKoiRules, state: koikoi.KoiKoiState, game: KoiKoiGame) -> None:
    assert len(state.results) == len(game.rounds)
    for result, theirs in zip(state.results, game.rounds, strict=True):
        breakdown = koikoi.result_breakdown(rules, result)
        mine = {
            "round": result.round,
            "dealer": result.dealer,
            "outcome": _KOIKOI_OUTCOMES.get(result.outcome, result.outcome),
            "winner": None if result.winner < 0 else result.winner,
            "points": result.points,
            "base": breakdown.base if breakdown else None,
            "yaku": [(y.id, y.points) for y in breakdown.yaku] if breakdown else [],
        }
        assert mine == {
            "round": theirs["round"],
            "dealer": theirs["dealer"],
            "outcome": theirs["outcome"],
            "winner": theirs["winner"],
            "points": theirs["points"],
            "base": theirs["base"],
            "yaku": [tuple(y) for y in theirs["yaku"]],
        }


@pytest.mark.parametrize("seed", range(150))
def test_koikoi_games_agree_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    preset = rng.choice(list(PRESETS))
    overrides = koikoi_overrides(rng)
    rules = KoiKoiRules.from_preset(preset, overrides)
    deals = [koikoi_deal(rng) for _ in range(60)]
    first = rng.randrange(2)
    state, _ = koikoi.new_game(rules, seed, deals, first)
    game = KoiKoiGame(preset, overrides, [reference_deal(d) for d in deals], first)
    while True:
        phase = state.phase
        pending = None if phase is koikoi.Phase.OVER else (state.turn, _KOIKOI_PHASES[phase])
        assert game.pending() == pending
        assert list(game.totals) == list(state.scores)
        same_koikoi_rounds(rules, state, game)
        if phase is koikoi.Phase.OVER:
            assert game.winner == (None if state.winner < 0 else state.winner)
            return
        moves = koikoi.legal_moves(state)
        same_moves(moves, game.legal_moves())
        move = rng.choice(moves)
        state, _ = koikoi.apply(state, state.turn, move)
        game.apply(spelled(move))


def biased_cards(rng: random.Random) -> list[int]:
    """A capture pile that often forms yaku: for each kind, half the time, any number of its
    cards; then up to five cards of any kind."""
    by_kind = [[int(c) for c in Card if c.kind is kind] for kind in Kind]
    cards: set[int] = set()
    for pool in by_kind:
        if rng.random() < 0.5:
            cards.update(rng.sample(pool, rng.randrange(len(pool) + 1)))
    cards.update(rng.sample(range(1, 49), rng.randrange(6)))
    return sorted(cards)


@pytest.mark.parametrize("seed", range(80))
def test_koikoi_scores_agree_with_the_reference(seed: int) -> None:
    # Many more rule sets and piles than whole games reach: every option and yaku override,
    # the rare light yaku, the extra cards, the multipliers with any number of calls.
    rng = random.Random(seed)
    preset = rng.choice(list(PRESETS))
    overrides = koikoi_overrides(rng, as_preset=0.2, yaku=len(YAKU_IDS), yaku_share=0.8)
    rules = KoiKoiRules.from_preset(preset, overrides)
    theirs = Rules(preset, overrides)
    for _ in range(100):
        mine, other = biased_cards(rng), biased_cards(rng)
        other = [c for c in other if c not in mine]
        calls, other_calls, month = rng.randrange(5), rng.randrange(5), rng.randrange(1, 13)
        opponent_points = yaku_points(rules, mask_of(other), month, other_calls)
        score = score_stop(rules, mask_of(mine), month, calls, other_calls, opponent_points)
        expected = theirs.score(codes(mine), calls, codes(other), other_calls, month)
        assert (score.total, score.base, [(y.id, y.points) for y in score.yaku]) == (
            expected.points,
            expected.base,
            expected.yaku,
        )


@pytest.mark.parametrize("seed", range(10))
def test_koikoi_hand_checks_agree_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(300):
        hand = koikoi_deal(rng).hands[0]
        found = classify_hand(mask_of(hand))
        assert ("hand_four" in found, "hand_pairs" in found) == (
            has_four(codes(hand)),
            has_four_pairs(codes(hand)),
        )


# --- Hachi-Hachi -----------------------------------------------------------------------------

_HACHIHACHI_PHASES = {
    hachihachi.Phase.DROP: "join-or-drop",
    hachihachi.Phase.PLAY: "play",
    hachihachi.Phase.DRAWN_TARGET: "choose",
    hachihachi.Phase.DECISION: "shobu-or-sage",
}
_PLAINS = [c for c in Card if c.kind is Kind.PLAIN]


def hachihachi_deal(rng: random.Random, participants: int) -> Deal:
    """A shuffled deal; one in four gives a hand few months (teyaku), one in ten mostly plains,
    and a few put four cards of a month on the field (a redeal)."""
    deck = list(range(1, 49))
    rng.shuffle(deck)
    special = rng.random()
    n = 7 * participants
    if special < 0.25:
        months = rng.sample(range(1, 13), rng.choice([2, 3, 4]))
        pool = [c for m in months for c in month_cards(m)]
        hand = rng.sample(pool, 7)
        deck = hand + [c for c in deck if c not in hand]
    elif special < 0.35:
        hand = [int(c) for c in rng.sample(_PLAINS, rng.choice([5, 6, 7]))]
        deck = hand + [c for c in deck if c not in hand]
    elif special < 0.38:
        four = month_cards(rng.randrange(1, 13))
        rest = [c for c in deck if c not in four]
        deck = rest[:n] + four + rest[n:]
    hands = [deck[7 * i : 7 * i + 7] for i in range(participants)]
    rng.shuffle(hands)
    return Deal(tuple(map(tuple, hands)), tuple(deck[n : n + 6]), tuple(deck[n + 6 :]))


def chosen(rng: random.Random, moves: list[Move], sage: float, drop: float) -> Move:
    """A random legal move; sage and drop at the game's own rates, so that some games sage
    (or drop) often and others seldom."""
    kinds = [m.kind for m in moves]
    if MoveKind.SAGE in kinds:
        return moves[kinds.index(MoveKind.SAGE if rng.random() < sage else MoveKind.SHOBU)]
    if MoveKind.DROP in kinds:
        return moves[kinds.index(MoveKind.DROP if rng.random() < drop else MoveKind.JOIN)]
    return rng.choice(moves)


@pytest.mark.parametrize("seed", range(150))
def test_hachihachi_games_agree_with_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    participants = rng.choice([3, 3, 4, 5, 6])
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": rng.choice([1, 2, 3, 12])})
    deals = [hachihachi_deal(rng, participants) for _ in range(40)]
    first = rng.randrange(participants)
    sage, drop = rng.random(), rng.random()

    # The engine's game first: the stock after drops is shuffled from its seed, and the
    # reference is handed each deal's as the engine made it.
    state, events = hachihachi.new_game(rules, seed, participants, deals, first)
    after_drops: dict[int, tuple[int, ...]] = {}
    steps = []
    teyaku: list[dict[int, tuple[str, int]]] = []
    round_teyaku: dict[int, tuple[str, int]] = {}
    while True:
        for event in events:
            if isinstance(event, TeyakuDeclared):
                round_teyaku[event.seat] = (str(event.teyaku.id), event.teyaku.value)
            elif isinstance(event, RoundEnded):
                teyaku.append(round_teyaku)
                round_teyaku = {}
        if state.phase is hachihachi.Phase.OVER:
            break
        moves = hachihachi.legal_moves(state)
        move = chosen(rng, moves, sage, drop)
        pending = (state.turn, _HACHIHACHI_PHASES[state.phase])
        dropping = state.phase is hachihachi.Phase.DROP
        state, events = hachihachi.apply(state, state.turn, move)
        if dropping and state.phase is not hachihachi.Phase.DROP and state.players:
            after_drops[state.deals_made - 1] = state.stock[state.stock_pos :]
        steps.append((pending, moves, move, state.balances, len(state.results)))

    game = HachiHachiGame(
        participants,
        {"rounds": rules.rounds},
        [
            {
                "hands": [codes(hand) for hand in deal.hands],
                "field": codes(deal.field),
                "stock": codes(deal.stock),
                "stock_after_drops": codes(after_drops[i]) if i in after_drops else None,
            }
            for i, deal in enumerate(deals)
        ],
        first,
    )
    for pending, moves, move, balances, rounds in steps:
        assert game.pending() == pending
        same_moves(moves, game.legal_moves())
        game.apply(spelled(move))
        assert list(game.balances) == list(balances)
        assert len(game.rounds) == rounds
    assert game.pending() is None and game.over
    for result, theirs, declared in zip(state.results, game.rounds, teyaku, strict=True):
        assert (
            result.dealer,
            result.multiplier,
            list(result.players),
            result.outcome,
            result.winner,
        ) == (
            theirs["dealer"],
            theirs["multiplier"],
            list(theirs["players"]),
            theirs["ended_by"],
            theirs["winner"],
        )
        assert declared == {seat: tuple(t) for seat, t in theirs["teyaku"].items()}
        if result.outcome == "count":
            assert dict(zip(result.players, result.counts, strict=True)) == theirs["counts"]
    best = max(state.balances)
    winner = state.balances.index(best) if state.balances.count(best) == 1 else None
    assert game.winner == winner
