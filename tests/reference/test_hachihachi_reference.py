"""The Hachi-Hachi reference checked on its own, before it is trusted as an oracle: each teyaku and
its precedence, the multiplier and its carry-over, sage and overtaking, the ladders, the card
count, the drop phase, and whole random games. Amounts are in half points, as in the module."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import cast

import pytest

from tests.reference.deck import ALL_CARDS, KIND, MONTH
from tests.reference.hachihachi import (
    DEKIYAKU_ORDER,
    TEYAKU_TABLE,
    Deal,
    HachiHachiGame,
    RoundRecord,
    count_transfers,
    dekiyaku_held,
    teyaku_of,
)

# Fields of each multiplier, with no month that a hand could complete into a dekiyaku early.
SMALL_FIELD = [
    "plum-plain-1",
    "iris-plain-1",
    "maple-plain-1",
    "clover-plain-1",
    "peony-plain-1",
    "wisteria-plain-1",
]
BIG_FIELD = [
    "pine-crane",
    "plum-plain-1",
    "iris-plain-1",
    "maple-plain-1",
    "clover-plain-1",
    "peony-plain-1",
]


# --- helpers -------------------------------------------------------------------------------------


def build_deal(
    n: int,
    hands: Mapping[int, Sequence[str]] | None = None,
    field: Sequence[str] = (),
    stock_top: Sequence[str] = (),
    fill: Sequence[str] = (),
    rng: random.Random | None = None,
) -> Deal:
    """A deal with the given cards in place; the others come from ``fill``, then from the rest of
    the deck (shuffled by ``rng`` when given, otherwise in deck order), hands first, then the field,
    then the stock after ``stock_top``."""
    placed = {k: list(v) for k, v in (hands or {}).items()}
    table = list(field)
    used = [c for h in placed.values() for c in h] + table + list(stock_top)
    assert len(used) == len(set(used)), used
    rest = [c for c in ALL_CARDS if c not in used and c not in fill]
    if rng is not None:
        rng.shuffle(rest)
    pool = [c for c in fill if c not in used] + rest
    full_hands = []
    for s in range(n):
        h = placed.get(s, [])
        while len(h) < 7:
            h.append(pool.pop(0))
        full_hands.append(h)
    while len(table) < 6:
        table.append(pool.pop(0))
    stock = list(stock_top) + pool
    assert len(stock) == 48 - 7 * n - 6
    return {"hands": full_hands, "field": table, "stock": stock, "stock_after_drops": None}


def random_deal(n: int, rng: random.Random) -> Deal:
    cards = list(ALL_CARDS)
    rng.shuffle(cards)
    return {
        "hands": [cards[7 * i : 7 * i + 7] for i in range(n)],
        "field": cards[7 * n : 7 * n + 6],
        "stock": cards[7 * n + 6 :],
        "stock_after_drops": None,
    }


def turn(game: HachiHachiGame, seat: int, card: str, choose: str | None = None) -> None:
    """``seat`` plays ``card`` (on its first target when it has two) and, if the draw matches two
    field cards, takes ``choose`` or else the first of them."""
    assert game.pending() == (seat, "play"), (game.pending(), seat)
    moves = [m for m in game.legal_moves() if m[1] == card]
    assert moves, (card, game.hands[seat])
    game.apply(moves[0])
    if game.pending() == (seat, "choose"):
        game.apply(game.legal_moves()[0] if choose is None else ("choose", choose))


def turn_any(game: HachiHachiGame, seat: int) -> None:
    """``seat`` makes his first legal play, and the first choice for the draw if asked."""
    assert game.pending() == (seat, "play"), (game.pending(), seat)
    game.apply(game.legal_moves()[0])
    if game.pending() == (seat, "choose"):
        game.apply(game.legal_moves()[0])


def drive(game: HachiHachiGame, rng: random.Random | None = None) -> None:
    """Play to the end with random moves (from ``rng``) or the first legal ones, checking that
    the balances stay zero-sum."""
    steps = 0
    while not game.over:
        moves = game.legal_moves()
        assert moves and game.pending() is not None
        game.apply(rng.choice(moves) if rng is not None else moves[0])
        assert sum(game.balances) == 0
        steps += 1
        assert steps < 100_000


def cards(text: str) -> list[str]:
    """The cards of a space-separated list of codes, in order; fails on an unknown or repeated
    code, so that a hand written in a test has the cards it looks like."""
    out = text.split()
    assert all(c in MONTH for c in out) and len(set(out)) == len(out), text
    return out


def deltas(game: HachiHachiGame, start: Sequence[int]) -> list[int]:
    return [b - s for b, s in zip(game.balances, start, strict=True)]


def split_deck(spec: Sequence[tuple[int, int, int, int]]) -> list[list[str]]:
    """The whole deck split into one pile per ``(lights, animals, ribbons, plains)`` entry."""
    kinds = ("light", "animal", "ribbon", "plain")
    pools = {k: [c for c in ALL_CARDS if KIND[c] == k] for k in kinds}
    piles = []
    for numbers in spec:
        pile: list[str] = []
        for kind, count in zip(kinds, numbers, strict=True):
            pile += pools[kind][:count]
            pools[kind] = pools[kind][count:]
        piles.append(pile)
    assert not any(pools.values())
    return piles


def count_with_captures(
    piles: Sequence[Sequence[str]], field: Sequence[str], dealer: int = 0
) -> tuple[HachiHachiGame, list[int]]:
    """A 3-player, one-round game brought straight to its card count with ``piles`` as the
    captures, by emptying the hands, field and stock and calling the count; returns the game and
    what the count moved."""
    game = HachiHachiGame(3, {"rounds": 1}, [build_deal(3, None, field)], dealer)
    start = list(game.balances)
    for seat in range(3):
        game.hands[seat] = []
        game.captured[seat] = list(piles[seat])
    game.field = []
    game.stock = []
    game._end_by_count()
    return game, deltas(game, start)


# --- the deck ------------------------------------------------------------------------------------


def test_the_deck_has_48_distinct_cards_of_12_months() -> None:
    assert len(ALL_CARDS) == 48 and len(set(ALL_CARDS)) == 48
    assert Counter(MONTH.values()) == dict.fromkeys(range(1, 13), 4)


# --- teyaku --------------------------------------------------------------------------------------

# Six plains of six different months.
SIX_PLAINS = [
    "plum-plain-1",
    "cherry-plain-1",
    "susuki-plain-1",
    "chrysanthemum-plain-1",
    "maple-plain-1",
    "paulownia-plain-1",
]
OTHERS = ["pine-crane", "plum-warbler", "susuki-moon", "maple-deer"]

EACH_TEYAKU = [
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 plum-warbler cherry-curtain susuki-moon maple-deer"
        ),
        ("triplet", 10),
        id="triplet",
    ),
    pytest.param(
        ["wisteria-cuckoo", "wisteria-ribbon", "wisteria-plain-1", *OTHERS],
        ("special-triplet", 15),
        id="special-triplet-april",
    ),
    pytest.param(
        ["iris-bridge", "iris-ribbon", "iris-plain-1", *OTHERS],
        ("special-triplet", 15),
        id="special-triplet-may",
    ),
    pytest.param(
        ["clover-boar", "clover-ribbon", "clover-plain-1", *OTHERS],
        ("special-triplet", 15),
        id="special-triplet-july",
    ),
    pytest.param(
        ["paulownia-yellow", "paulownia-plain-1", "paulownia-plain-2", *OTHERS],
        ("special-triplet", 15),
        id="special-triplet-december-plains",
    ),
    pytest.param(
        ["paulownia-phoenix", "paulownia-plain-1", "paulownia-plain-2", *OTHERS],
        ("triplet", 10),
        id="december-triplet-with-the-phoenix-is-ordinary",
    ),
    pytest.param(["pine-ribbon", "plum-ribbon", *SIX_PLAINS[1:]], ("red", 15), id="red"),
    pytest.param(
        cards(
            "pine-ribbon plum-ribbon cherry-ribbon wisteria-ribbon iris-ribbon "
            "peony-ribbon clover-ribbon"
        ),
        ("red", 15),
        id="seven-ribbons-are-red",
    ),
    pytest.param(["pine-ribbon", *SIX_PLAINS], ("lone-ribbon", 20), id="lone-ribbon"),
    pytest.param(["wisteria-cuckoo", *SIX_PLAINS], ("lone-animal", 20), id="lone-animal"),
    pytest.param(
        ["chrysanthemum-sake", "pine-plain-1", *SIX_PLAINS[:3], *SIX_PLAINS[4:]],
        ("lone-animal", 20),
        id="the-sake-cup-is-only-an-animal",
    ),
    pytest.param(["pine-crane", *SIX_PLAINS], ("lone-light", 20), id="lone-light"),
    pytest.param(
        cards(
            "pine-crane pine-ribbon plum-warbler plum-ribbon cherry-curtain "
            "cherry-ribbon susuki-moon"
        ),
        ("three-pairs", 20),
        id="three-pairs",
    ),
    pytest.param(["pine-plain-1", *SIX_PLAINS], ("empty-nest", 25), id="empty-nest"),
    pytest.param(["willow-rainman", *SIX_PLAINS], ("empty-nest", 25), id="the-rain-man-is-a-plain"),
    pytest.param(["willow-swallow", *SIX_PLAINS], ("empty-nest", 25), id="willow-swallow"),
    pytest.param(["willow-ribbon", *SIX_PLAINS], ("empty-nest", 25), id="willow-ribbon"),
    pytest.param(
        ["willow-ribbon", "pine-ribbon", *SIX_PLAINS[1:]],
        ("lone-ribbon", 20),
        id="willow-ribbon-with-a-ribbon",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 pine-plain-2 plum-warbler "
            "cherry-curtain susuki-moon"
        ),
        ("four-of-a-kind", 30),
        id="four-of-a-kind",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 plum-warbler plum-ribbon "
            "cherry-curtain cherry-ribbon"
        ),
        ("haneken", 30),
        id="haneken",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 pine-plain-2 plum-warbler "
            "plum-ribbon cherry-curtain"
        ),
        ("one-two-four", 35),
        id="one-two-four",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 pine-plain-2 plum-warbler plum-ribbon plum-plain-1"
        ),
        ("four-three", 50),
        id="four-three",
    ),
]

PRECEDENCE = [
    pytest.param(
        cards(
            "pine-plain-1 pine-plain-2 plum-plain-1 plum-plain-2 cherry-plain-1 "
            "cherry-plain-2 susuki-plain-1"
        ),
        ("empty-nest", 25),
        id="empty-nest-25-beats-three-pairs-20",
    ),
    pytest.param(
        cards(
            "pine-ribbon pine-plain-1 plum-plain-1 plum-plain-2 cherry-plain-1 "
            "cherry-plain-2 susuki-plain-1"
        ),
        ("lone-ribbon", 20),
        id="lone-ribbon-before-three-pairs-at-20",
    ),
    pytest.param(
        cards(
            "pine-crane pine-plain-1 plum-plain-1 plum-plain-2 cherry-plain-1 "
            "cherry-plain-2 susuki-plain-1"
        ),
        ("lone-light", 20),
        id="lone-light-before-three-pairs-at-20",
    ),
    pytest.param(
        cards(
            "plum-warbler plum-plain-1 pine-plain-1 pine-plain-2 cherry-plain-1 "
            "cherry-plain-2 susuki-plain-1"
        ),
        ("lone-animal", 20),
        id="lone-animal-before-three-pairs-at-20",
    ),
    pytest.param(
        cards(
            "wisteria-ribbon wisteria-plain-1 wisteria-plain-2 pine-ribbon "
            "plum-plain-1 cherry-plain-1 susuki-plain-1"
        ),
        ("special-triplet", 15),
        id="special-triplet-before-red-at-15",
    ),
    pytest.param(
        cards(
            "pine-ribbon pine-plain-1 pine-plain-2 plum-ribbon cherry-plain-1 "
            "susuki-plain-1 maple-plain-1"
        ),
        ("red", 15),
        id="red-15-beats-triplet-10",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 plum-warbler plum-ribbon plum-plain-1 susuki-moon"
        ),
        ("triplet", 10),
        id="two-triplets-are-one-triplet",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 iris-bridge iris-ribbon iris-plain-1 susuki-moon"
        ),
        ("special-triplet", 15),
        id="two-triplets-one-of-may",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon pine-plain-1 paulownia-yellow paulownia-plain-1 "
            "paulownia-plain-2 susuki-moon"
        ),
        ("special-triplet", 15),
        id="two-triplets-one-the-december-plains",
    ),
    pytest.param(
        cards(
            "willow-rainman willow-swallow willow-ribbon paulownia-yellow "
            "paulownia-plain-1 paulownia-plain-2 pine-plain-1"
        ),
        ("empty-nest", 25),
        id="empty-nest-25-beats-two-plain-triplets-15",
    ),
    pytest.param(
        cards(
            "willow-rainman willow-swallow willow-ribbon willow-lightning "
            "pine-plain-1 plum-plain-1 cherry-plain-1"
        ),
        ("four-of-a-kind", 30),
        id="four-willows-30-beat-empty-nest-25",
    ),
    pytest.param(
        cards(
            "paulownia-yellow paulownia-plain-1 paulownia-plain-2 pine-plain-1 "
            "pine-plain-2 plum-plain-1 plum-plain-2"
        ),
        ("haneken", 30),
        id="haneken-30-beats-empty-nest-25",
    ),
]

NO_TEYAKU = [
    pytest.param(["pine-ribbon", "plum-warbler", *SIX_PLAINS[1:]], id="ribbon-and-animal"),
    pytest.param(["pine-crane", "plum-warbler", *SIX_PLAINS[1:]], id="light-and-animal"),
    pytest.param(
        cards(
            "pine-crane plum-warbler cherry-curtain wisteria-cuckoo iris-bridge "
            "peony-butterflies clover-boar"
        ),
        id="seven-months",
    ),
    pytest.param(
        cards(
            "pine-crane pine-ribbon plum-warbler plum-ribbon cherry-curtain "
            "wisteria-cuckoo iris-bridge"
        ),
        id="two-pairs",
    ),
]


@pytest.mark.parametrize(("hand", "expected"), EACH_TEYAKU)
def test_each_teyaku(hand: list[str], expected: tuple[str, int]) -> None:
    assert len(hand) == 7 and len(set(hand)) == 7
    assert teyaku_of(hand) == expected


def test_every_teyaku_of_the_table_is_covered() -> None:
    covered = {cast("tuple[str, int]", p.values[1])[0] for p in EACH_TEYAKU}
    assert covered == {t for t, _ in TEYAKU_TABLE}


@pytest.mark.parametrize(("hand", "expected"), PRECEDENCE)
def test_only_the_highest_teyaku_counts_and_the_table_breaks_ties(
    hand: list[str], expected: tuple[str, int]
) -> None:
    assert len(hand) == 7 and len(set(hand)) == 7
    assert teyaku_of(hand) == expected


@pytest.mark.parametrize("hand", NO_TEYAKU)
def test_hands_without_a_teyaku(hand: list[str]) -> None:
    assert len(hand) == 7 and len(set(hand)) == 7
    assert teyaku_of(hand) is None


def test_teyaku_are_paid_at_the_start_of_play_times_the_multiplier() -> None:
    hands = {
        0: cards(
            "pine-crane pine-ribbon pine-plain-1 pine-plain-2 plum-warbler plum-ribbon plum-plain-1"
        ),
        1: cards(
            "cherry-curtain wisteria-cuckoo iris-bridge peony-butterflies "
            "clover-boar chrysanthemum-sake maple-deer"
        ),
        2: cards(
            "cherry-ribbon wisteria-ribbon iris-ribbon peony-ribbon "
            "clover-ribbon chrysanthemum-ribbon maple-ribbon"
        ),
    }
    field = ["susuki-moon", "susuki-geese", "willow-swallow", "willow-ribbon"]
    field += ["paulownia-yellow", "plum-plain-2"]
    game = HachiHachiGame(3, {"rounds": 1}, [build_deal(3, hands, field)], 0)
    assert game.multiplier == 2
    assert game.pending() == (0, "play")
    # In points: P0 +2 x 50 x 2 - 15 x 2 = 170; P1 -100 - 30 = -130; P2 -100 + 2 x 15 x 2 = -40.
    assert game.balances == [340, -260, -80]
    drive(game)
    assert game.rounds[0]["teyaku"] == {0: ("four-three", 50), 2: ("red", 15)}


# --- the field multiplier ------------------------------------------------------------------------


def multiplier_deals() -> list[Deal]:
    """Fourteen deals for thirteen rounds: the fifth is a redeal (four pines on the field)."""
    rng = random.Random(7)
    others = ["plum-plain-1", "iris-plain-1", "maple-plain-1", "clover-plain-1"]
    fields = [
        ["pine-crane", "cherry-curtain", *others],
        SMALL_FIELD,
        SMALL_FIELD,
        ["willow-rainman", "paulownia-phoenix", *others],
        ["pine-crane", "pine-ribbon", "pine-plain-1", "pine-plain-2", *others[:2]],
        SMALL_FIELD,
        ["susuki-moon", "willow-rainman", *others],
        SMALL_FIELD,
        ["pine-crane", "cherry-curtain", "paulownia-phoenix", *others[1:]],
        SMALL_FIELD,
        ["pine-crane", *SMALL_FIELD[1:]],
        SMALL_FIELD,
        ["willow-rainman", "paulownia-phoenix", "pine-crane", "cherry-curtain", *others[2:]],
        ["pine-crane", *SMALL_FIELD[1:]],
    ]
    return [build_deal(3, None, f, rng=rng) for f in fields]


def test_field_multiplier_and_carry_over() -> None:
    expected = [
        2,  # crane and curtain: x2, and the next round is at least x2
        2,  # small field raised by the carried floor
        1,  # the floor does not carry twice
        4,  # rain man and phoenix: x4, and the next round is x4
        # (the four pines are dealt again, keeping the floor)
        4,  # small field raised by the carried floor
        4,  # moon and rain man: x4, carrying nothing
        1,
        4,  # crane, curtain and phoenix: x4, carrying x2
        2,  # small field raised by the carried floor
        2,  # the crane alone: x2, carrying nothing
        1,
        4,  # rain man, phoenix, crane and curtain: x4, carrying x4
        4,  # the crane's x2 raised by the floor
    ]
    game = HachiHachiGame(3, {"rounds": len(expected)}, multiplier_deals(), 1)
    drive(game, random.Random(3))
    assert [r["multiplier"] for r in game.rounds] == expected
    assert game.rounds[0]["dealer"] == 1
    for before, after in pairwise(game.rounds):
        assert after["dealer"] == before["winner"]


def test_a_redeal_uses_up_a_deal() -> None:
    game = HachiHachiGame(3, {"rounds": 14}, multiplier_deals(), 0)
    with pytest.raises(RuntimeError, match="out of deals"):
        drive(game)
    assert len(game.rounds) == 13


# --- dekiyaku, sage and overtaking ---------------------------------------------------------------

# Cards of months that form no dekiyaku early in the scenarios below.
HARMLESS = [c for c in ALL_CARDS if MONTH[c] in (4, 5, 8, 9, 11, 12)]
RIBBONS_AND_ANIMALS_FIELD = [
    "pine-ribbon",
    "plum-ribbon",
    "cherry-ribbon",
    "clover-boar",
    "maple-deer",
    "peony-butterflies",
]


def test_sage_then_overtaken() -> None:
    h = HARMLESS
    hands = {
        0: ["pine-plain-1", "plum-plain-1", "cherry-plain-1", *h[0:4]],
        1: ["clover-plain-1", "maple-plain-1", "peony-plain-1", *h[4:8]],
        2: [*h[8:12], "pine-crane", "plum-warbler", "cherry-curtain"],
    }
    deal = build_deal(3, hands, RIBBONS_AND_ANIMALS_FIELD, h[12:24])
    game = HachiHachiGame(3, {"rounds": 1}, [deal], 0)
    assert game.multiplier == 1
    start = list(game.balances)
    for seat, card in [
        (0, "pine-plain-1"),
        (1, "clover-plain-1"),
        (2, h[8]),
        (0, "plum-plain-1"),
        (1, "maple-plain-1"),
        (2, h[9]),
        (0, "cherry-plain-1"),
    ]:
        turn(game, seat, card)
    assert game.pending() == (0, "shobu-or-sage")
    assert sorted(game.legal_moves()) == [("sage",), ("shobu",)]
    assert deltas(game, start) == [140, -70, -70]  # akatan: 35 from each
    game.apply(("sage",))
    turn(game, 1, "peony-plain-1")
    assert game.over and game.pending() is None
    # In points: P0 +70 - 17.5 - 17.5 - 70 = -35; P1 -35 + 17.5 + 70 = 52.5; P2 -35 + 17.5.
    assert deltas(game, start) == [-70, 105, -35]
    r = game.rounds[0]
    assert r["ended_by"] == "overtaken" and r["winner"] == 1 and r["counts"] is None
    assert r["dekiyaku"] == [(0, "akatan"), (1, "inoshikacho")]


def test_overtaken_after_two_sages_refunds_half_of_the_first_payment() -> None:
    """First payment 70 (akatan and inoshikacho in one turn), sage; then 35 (aotan), sage; then
    another player's four-lights: the refund is half of the first payment, not of the last."""
    h = [c for c in ALL_CARDS if MONTH[c] in (4, 5, 11)]
    hands = {
        0: [
            *cards(
                "pine-plain-1 plum-plain-1 cherry-plain-1 peony-ribbon "
                "chrysanthemum-ribbon maple-ribbon"
            ),
            h[0],
        ],
        1: ["susuki-plain-1", "paulownia-plain-1", "cherry-plain-2", "pine-plain-2", *h[1:4]],
        2: ["chrysanthemum-plain-1", "peony-plain-2", "maple-plain-2", *h[4:8]],
    }
    stock_top = [
        "clover-plain-1",
        "susuki-moon",
        h[8],
        "maple-plain-1",
        "paulownia-phoenix",
        "clover-ribbon",
        "peony-plain-1",
        "cherry-curtain",
        "clover-plain-2",
        "plum-warbler",
        "plum-plain-2",
        "susuki-geese",
        "susuki-plain-2",
        "paulownia-yellow",
        "paulownia-plain-2",
        "chrysanthemum-sake",
        "pine-crane",
    ]
    deal = build_deal(3, hands, RIBBONS_AND_ANIMALS_FIELD, stock_top)
    game = HachiHachiGame(3, {"rounds": 1}, [deal], 0)
    assert game.multiplier == 1
    start = list(game.balances)
    for seat, card in [
        (0, "pine-plain-1"),
        (1, "susuki-plain-1"),
        (2, h[4]),
        (0, "plum-plain-1"),
        (1, "paulownia-plain-1"),
        (2, "chrysanthemum-plain-1"),
        (0, "cherry-plain-1"),
    ]:
        turn(game, seat, card)
    assert game.pending() == (0, "shobu-or-sage")
    assert deltas(game, start) == [280, -140, -140]
    game.apply(("sage",))
    for seat, card in [
        (1, "cherry-plain-2"),
        (2, "peony-plain-2"),
        (0, "chrysanthemum-ribbon"),
        (1, h[1]),
        (2, "maple-plain-2"),
        (0, "peony-ribbon"),
        (1, h[2]),
        (2, h[5]),
        (0, "maple-ribbon"),
    ]:
        turn(game, seat, card)
    assert game.pending() == (0, "shobu-or-sage")
    assert deltas(game, start) == [420, -210, -210]
    game.apply(("sage",))
    turn(game, 1, "pine-plain-2")
    assert game.over
    # In points: P0 +140 + 70 - 35 - 35 - 100 = +40; P1 -70 - 35 + 35 + 100 = +30;
    # P2 -70 - 35 + 35 = -70.
    assert deltas(game, start) == [80, 60, -140]
    r = game.rounds[0]
    assert r["dekiyaku"] == [(0, "akatan"), (0, "inoshikacho"), (0, "aotan"), (1, "four-lights")]
    assert r["ended_by"] == "overtaken" and r["winner"] == 1


def test_a_higher_rung_pays_only_the_difference() -> None:
    field = ["pine-plain-1", "cherry-plain-1", "susuki-plain-1", "paulownia-plain-1"]
    field += ["willow-lightning", "plum-plain-1"]
    hands = {
        0: cards(
            "pine-crane cherry-curtain susuki-moon paulownia-phoenix willow-rainman "
            "peony-butterflies peony-ribbon"
        )
    }
    harmless = [
        c
        for c in ALL_CARDS
        if MONTH[c] in (2, 4, 5, 6, 7, 9, 10) and c not in hands[0] and c not in field
    ]
    assert len(harmless) == 25
    deal = build_deal(3, hands, field, fill=harmless)
    assert deal["stock"][:11] == harmless[14:25]
    game = HachiHachiGame(3, {"rounds": 1}, [deal], 0)
    assert game.multiplier == 1
    start = list(game.balances)
    for card in ["pine-crane", "cherry-curtain", "susuki-moon"]:
        turn(game, 0, card)
        turn_any(game, 1)
        turn_any(game, 2)
    turn(game, 0, "paulownia-phoenix")
    assert game.pending() == (0, "shobu-or-sage")
    assert deltas(game, start) == [200, -100, -100]  # four-lights: 50 from each
    game.apply(("sage",))
    turn_any(game, 1)
    turn_any(game, 2)
    turn(game, 0, "willow-rainman")
    assert game.pending() == (0, "shobu-or-sage")
    assert deltas(game, start) == [300, -150, -150]  # five-lights: 75 - 50 from each
    game.apply(("shobu",))
    assert game.over
    r = game.rounds[0]
    assert r["ended_by"] == "shobu" and r["winner"] == 0 and r["counts"] is None
    assert r["dekiyaku"] == [(0, "four-lights"), (0, "five-lights")]


PLAINS = [c for c in ALL_CARDS if KIND[c] == "plain"]
# Every card that counts as a plain for the plains dekiyaku: the 24 plains and the other willows.
ALL_PLAINS = [c for c in ALL_CARDS if KIND[c] == "plain" or MONTH[c] == 11]
FIVE_LIGHTS = ["pine-crane", "cherry-curtain", "susuki-moon", "paulownia-phoenix", "willow-rainman"]
RIBBONS = [c for c in ALL_CARDS if KIND[c] == "ribbon"]


def test_the_plains_ladder_counts_willow_cards_and_stops_at_19() -> None:
    assert len(ALL_PLAINS) == 27
    assert dekiyaku_held(PLAINS[:15]) == []
    assert dekiyaku_held([*PLAINS[:15], "willow-rainman"]) == [("plains-16", 50)]
    assert dekiyaku_held([*PLAINS[:15], "willow-rainman", "willow-swallow"]) == [("plains-17", 60)]
    assert dekiyaku_held([*ALL_PLAINS[:18], "chrysanthemum-sake"]) == [("plains-18", 75)]
    assert dekiyaku_held(ALL_PLAINS) == [("plains-19", 100)]


def test_the_lights_ladder_and_a_willow_card_in_two_dekiyaku() -> None:
    assert dekiyaku_held([*FIVE_LIGHTS, *PLAINS[:15]]) == [("five-lights", 75), ("plains-16", 50)]
    assert dekiyaku_held([*FIVE_LIGHTS[1:], "willow-swallow"]) == []


def test_ribbon_dekiyaku_add_up_and_the_willow_ribbon_is_not_one_of_seven() -> None:
    assert dekiyaku_held(RIBBONS) == [("akatan", 35), ("aotan", 35), ("seven-ribbons", 50)]
    non_willow = [c for c in RIBBONS if MONTH[c] != 11]
    assert dekiyaku_held([*non_willow[3:9], "willow-ribbon"]) == [("aotan", 35)]


def test_dekiyaku_are_reported_in_table_order() -> None:
    everything = dekiyaku_held(ALL_CARDS)
    ids = [d for d, _ in everything]
    assert ids == sorted(ids, key=DEKIYAKU_ORDER.index)
    assert ids == ["akatan", "aotan", "inoshikacho", "seven-ribbons", "five-lights", "plains-19"]


# --- the card count ------------------------------------------------------------------------------


def test_count_transfers_one_or_two_negatives() -> None:
    players = [0, 1, 2]
    # One negative player pays both others their surplus.
    assert count_transfers({0: 100, 1: 90, 2: 74}, players) == [(2, 0, 12), (2, 1, 2)]
    # Two negative players each pay the winner their deficit.
    assert count_transfers({0: 140, 1: 75, 2: 49}, players) == [(1, 0, 13), (2, 0, 39)]
    assert count_transfers({0: 88, 1: 88, 2: 88}, players) == []
    assert count_transfers({0: 98, 1: 88, 2: 78}, players) == [(2, 0, 10)]


def test_card_count_with_one_negative_player() -> None:
    """The captures are put into the piles directly (see count_with_captures), not played."""
    piles = split_deck([(5, 0, 0, 0), (0, 9, 0, 0), (0, 0, 10, 24)])
    game, moved = count_with_captures(piles, BIG_FIELD)
    r = game.rounds[0]
    assert r["counts"] == {0: 100, 1: 90, 2: 74} and r["ended_by"] == "count"
    assert moved == [48, 8, -56]  # 12 and 2 points, x2
    assert r["winner"] == 0 and r["dekiyaku"] == []


def test_card_count_with_two_negative_players() -> None:
    """The captures are put into the piles directly (see count_with_captures), not played."""
    piles = split_deck([(5, 4, 0, 0), (0, 5, 5, 0), (0, 0, 5, 24)])
    game, moved = count_with_captures(piles, BIG_FIELD)
    assert game.rounds[0]["counts"] == {0: 140, 1: 75, 2: 49}
    assert moved == [208, -52, -156]  # 13 and 39 points, x2


def test_all_eights_pays_the_dealer() -> None:
    """The captures are put into the piles directly (see count_with_captures), not played."""
    p88a, p88b, p88c = split_deck([(2, 4, 1, 3), (2, 4, 1, 3), (1, 1, 8, 18)])
    game, moved = count_with_captures([p88b, p88c, p88a], SMALL_FIELD, dealer=1)
    r = game.rounds[0]
    assert r["counts"] == {1: 88, 2: 88, 0: 88}
    assert moved == [-100, 200, -100]
    # With equal counts the first in playing order, here the dealer, wins.
    assert r["dekiyaku"] == [(1, "all-eights")] and r["winner"] == 1


def test_double_eights_pays_on_top_of_the_count() -> None:
    """The captures are put into the piles directly (see count_with_captures), not played."""
    piles = split_deck([(5, 6, 1, 3), (0, 3, 5, 11), (0, 0, 4, 10)])
    game, moved = count_with_captures(piles, SMALL_FIELD)
    r = game.rounds[0]
    assert r["counts"] == {0: 168, 1: 66, 2: 30}
    # The count moves +80, -22, -58 points and double-eights +100, -50, -50.
    assert moved == [360, -144, -216]
    assert r["dekiyaku"] == [(0, "double-eights")] and r["winner"] == 0


def test_a_count_tie_goes_to_the_earlier_player() -> None:
    """The captures are put into the piles directly (see count_with_captures), not played."""
    piles = split_deck([(0, 9, 0, 0), (2, 0, 10, 0), (3, 0, 0, 24)])  # 90, 90, 84
    game, _ = count_with_captures(piles, SMALL_FIELD, dealer=2)
    assert game.rounds[0]["players"] == [2, 0, 1] and game.rounds[0]["winner"] == 0


# --- the drop phase ------------------------------------------------------------------------------


def test_drop_fees_with_five_participants() -> None:
    deal = build_deal(5, None, BIG_FIELD, rng=random.Random(11))
    game = HachiHachiGame(5, {"rounds": 1}, [deal], 0)
    assert game.multiplier == 2
    assert game.pending() == (0, "join-or-drop")
    assert sorted(game.legal_moves()) == [("drop",), ("join",)]
    with pytest.raises(ValueError, match="illegal move"):
        game.apply(("play", "pine-crane", None))
    game.apply(("drop",))
    assert game.pending() == (1, "join-or-drop")
    game.apply(("join",))
    assert game.pending() == (2, "join-or-drop")
    game.apply(("drop",))
    # Seats 3 and 4 must join and are not asked; the dropped hands go after the stock.
    assert game.players == [1, 3, 4]
    assert game.stock == deal["stock"] + deal["hands"][0] + deal["hands"][2]
    assert game.pending() == (1, "play")
    assert game.balances[0] == 0 and game.balances[2] == 0  # fees are paid at the round's end
    drive(game)
    r = game.rounds[0]
    assert r["dropped"] == [0, 2] and r["players"] == [1, 3, 4]
    assert game.balances[0] == -40 and game.balances[2] == -40  # 10 points x2 each
    assert sum(game.balances[p] for p in (1, 3, 4)) == 80
    assert r["winner"] in (1, 3, 4)


def test_once_three_join_the_rest_drop_without_a_fee() -> None:
    rng = random.Random(12)
    deal = build_deal(5, None, BIG_FIELD, rng=rng)
    stock_after_drops = deal["stock"] + deal["hands"][3] + deal["hands"][4]
    rng.shuffle(stock_after_drops)
    deal["stock_after_drops"] = stock_after_drops
    game = HachiHachiGame(5, {"rounds": 1}, [deal], 0)
    for _ in range(3):
        game.apply(("join",))
    assert game.players == [0, 1, 2]
    assert game.stock == stock_after_drops
    assert game.pending() == (0, "play")
    drive(game)
    assert game.balances[3] == 0 and game.balances[4] == 0
    assert game.rounds[0]["dropped"] == [3, 4]


def test_a_dropped_dealer_is_followed_by_the_first_joined_player() -> None:
    deal = build_deal(4, None, BIG_FIELD, rng=random.Random(13))
    game = HachiHachiGame(4, {"rounds": 1}, [deal], 2)
    assert game.pending() == (2, "join-or-drop")
    game.apply(("drop",))
    # Seats 3, 0 and 1 must join and are not asked.
    assert game.players == [3, 0, 1] and game.pending() == (3, "play")
    drive(game)
    assert game.balances[2] == -40


def test_six_participants_three_drops_then_three_forced_joins() -> None:
    deal = build_deal(6, None, BIG_FIELD, rng=random.Random(14))
    game = HachiHachiGame(6, {"rounds": 1}, [deal], 5)
    for _ in range(3):  # seats 5, 0 and 1
        game.apply(("drop",))
    assert game.players == [2, 3, 4] and game.pending() == (2, "play")
    # Six participants leave no stock at the deal: it is the dropped hands in seat order.
    assert game.stock == deal["hands"][0] + deal["hands"][1] + deal["hands"][5]
    drive(game)
    assert game.balances[5] == game.balances[0] == game.balances[1] == -40


def test_all_eights_with_a_dropped_dealer_pays_the_first_joined_player() -> None:
    """The captures are put into the piles directly and the count called, not played."""
    deal = build_deal(4, None, BIG_FIELD, rng=random.Random(15))
    game = HachiHachiGame(4, {"rounds": 1}, [deal], 1)
    game.apply(("drop",))  # the dealer; seats 2, 3 and 0 must join
    assert game.players == [2, 3, 0]
    start = list(game.balances)
    piles = split_deck([(2, 4, 1, 3), (2, 4, 1, 3), (1, 1, 8, 18)])
    for pile, seat in zip(piles, game.players, strict=True):
        game.hands[seat] = []
        game.captured[seat] = pile
    game._end_by_count()
    # x2: seat 2 takes 50 from seats 3 and 0, and the dealer's drop fee of 10.
    assert deltas(game, start) == [-200, -40, 440, -200]
    assert game.rounds[0]["dekiyaku"] == [(2, "all-eights")]


# --- random games --------------------------------------------------------------------------------

GAMES_PER_SIZE = 40


def play_random_game(n: int, seed: int, seen: Counter[str]) -> HachiHachiGame:
    """A whole 12-round game of random moves, checking at every step that an illegal move is
    refused without effect and that the balances sum to zero; ``seen`` counts what happened."""
    rng = random.Random(1000 * n + seed)
    deals = [random_deal(n, rng) for _ in range(40)]
    game = HachiHachiGame(n, {}, deals, rng.randrange(n))
    sage_round = None
    while not game.over:
        pending = game.pending()
        assert pending is not None
        moves = game.legal_moves()
        seen[pending[1]] += 1
        move = rng.choice(moves)
        snapshot = (list(game.balances), [list(h) for h in game.hands], list(game.field))
        with pytest.raises(ValueError, match="illegal move"):
            game.apply(("play", "no-such-card", None))
        assert snapshot == (list(game.balances), [list(h) for h in game.hands], list(game.field))
        if move == ("sage",):
            sage_round = len(game.rounds)
        game.apply(move)
        assert sum(game.balances) == 0
        if sage_round is not None and len(game.rounds) > sage_round:
            seen["sage-then-" + game.rounds[-1]["ended_by"]] += 1
            sage_round = None
    for r in game.rounds:
        seen[r["ended_by"]] += 1
        seen["teyaku"] += len(r["teyaku"])
        for _, d in r["dekiyaku"]:
            seen[d] += 1
    return game


@pytest.fixture(scope="module")
def random_games() -> dict[int, tuple[list[HachiHachiGame], Counter[str]]]:
    """The random games of every size, played once for the tests below."""
    out = {}
    for n in (3, 4, 5, 6):
        seen: Counter[str] = Counter()
        out[n] = ([play_random_game(n, seed, seen) for seed in range(GAMES_PER_SIZE)], seen)
    return out


def expected_count_round(r: RoundRecord, before: Sequence[int]) -> list[int]:
    """A count round's balance changes worked out from its record, for the rounds whose only
    dekiyaku are all-eights or double-eights (the others' amounts depend on the play)."""
    m, players, counts = r["multiplier"], r["players"], r["counts"]
    assert counts is not None
    out = [0] * len(before)
    for p, (_, value) in r["teyaku"].items():
        for q in players:
            if q != p:
                out[p] += 2 * value * m
                out[q] -= 2 * value * m
    for p in players:
        out[p] += 2 * m * (counts[p] - 88)
    for p, _ in r["dekiyaku"]:
        for q in players:
            if q != p:
                out[p] += 100 * m
                out[q] -= 100 * m
    # A dropped seat whose balance moved paid a fee, which goes to the winner.
    for seat in r["dropped"]:
        if r["balances_after"][seat] != before[seat]:
            out[seat] -= 20 * m
            out[r["winner"]] += 20 * m
    return out


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_random_games_are_zero_sum_and_consistent(
    n: int, random_games: dict[int, tuple[list[HachiHachiGame], Counter[str]]]
) -> None:
    games, _ = random_games[n]
    for game in games:
        assert game.over and game.pending() is None and game.legal_moves() == []
        assert len(game.rounds) == 12 and sum(game.balances) == 0
        before = [0] * n
        for r in game.rounds:
            after = r["balances_after"]
            assert sum(after) == 0
            assert len(r["players"]) == 3 and len(set(r["players"])) == 3
            assert len(r["dropped"]) == n - 3
            for seat in r["dropped"]:
                assert after[seat] - before[seat] in (0, -20 * r["multiplier"])
            counts = r["counts"]
            if r["ended_by"] == "count":
                assert counts is not None and sum(counts.values()) == 264
                if all(d in ("all-eights", "double-eights") for _, d in r["dekiyaku"]):
                    got = [a - b for a, b in zip(after, before, strict=True)]
                    assert got == expected_count_round(r, before), r
            else:
                assert counts is None
            before = after
        best = max(game.balances)
        top = [s for s in range(n) if game.balances[s] == best]
        assert game.winner == (top[0] if len(top) == 1 else None)


def test_random_games_reach_every_phase_and_ending(
    random_games: dict[int, tuple[list[HachiHachiGame], Counter[str]]],
) -> None:
    seen: Counter[str] = Counter()
    for _, counter in random_games.values():
        seen.update(counter)
    for key in (
        "join-or-drop",
        "play",
        "choose",
        "shobu-or-sage",
        "shobu",
        "overtaken",
        "count",
        "sage-then-count",
        "sage-then-overtaken",
        "sage-then-shobu",
        "teyaku",
    ):
        assert seen[key] > 0, (key, seen)
