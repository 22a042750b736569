"""Dekiyaku: each one, the ladders, adding up, and what a turn pays after earlier payments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanafuda_referee.cards import (
    BLUE_RIBBONS,
    DECK,
    LIGHTS,
    PLAINS,
    POETRY_RIBBONS,
    RIBBONS,
    WILLOWS,
    Card,
    Kind,
    RibbonColour,
    cards_of,
    mask_of,
)
from hanafuda_referee.errors import Reason
from hanafuda_referee.hachihachi import (
    DEKIYAKU_VALUES,
    BadCardsError,
    DekiyakuId,
    dekiyaku_of,
    dekiyaku_payment,
)
from hanafuda_referee.hachihachi.dekiyaku import INOSHIKACHO, LADDER_OF

from ._cards import cards

D = DekiyakuId
NON_WILLOW_RIBBONS = RIBBONS & ~WILLOWS
# The 24 printed plains (the lightning among them) and the three other willow cards: 27.
ALL_PLAINS = PLAINS | WILLOWS
FOUR_LIGHTS = LIGHTS & ~Card.WILLOW_RAINMAN.mask


def ids(captured: int) -> list[DekiyakuId]:
    return [d.id for d in dekiyaku_of(captured)]


def first_plains(n: int, pool: int = ALL_PLAINS) -> int:
    return mask_of(cards_of(pool)[:n])


def test_values_follow_the_spec_table() -> None:
    assert list(DEKIYAKU_VALUES) == list(DekiyakuId)
    assert [DEKIYAKU_VALUES[d] for d in DekiyakuId] == [35, 35, 35, 50, 50, 75, 50, 60, 75, 100]


def test_nothing_captured_forms_nothing() -> None:
    assert dekiyaku_of(0) == ()


@pytest.mark.parametrize(
    ("combo", "expected"),
    [(POETRY_RIBBONS, D.AKATAN), (BLUE_RIBBONS, D.AOTAN), (INOSHIKACHO, D.INOSHIKACHO)],
)
def test_three_card_dekiyaku(combo: int, expected: DekiyakuId) -> None:
    (found,) = dekiyaku_of(combo | cards("pine-plain-1", "willow-swallow"))
    assert (found.id, found.value, found.cards) == (expected, 35, combo)
    for card in cards_of(combo):
        assert dekiyaku_of(combo & ~card.mask) == ()


def test_inoshikacho_is_boar_deer_butterflies() -> None:
    assert cards("clover-boar", "maple-deer", "peony-butterflies") == INOSHIKACHO


def test_seven_ribbons_counts_seven_or_more_non_willow_ribbons() -> None:
    red = cards("wisteria-ribbon", "iris-ribbon", "clover-ribbon")
    six = red | cards("pine-ribbon", "plum-ribbon", "peony-ribbon")
    assert ids(six) == []
    # The willow ribbon is not one of the nine.
    assert ids(six | Card.WILLOW_RIBBON.mask) == []
    seven = six | Card.MAPLE_RIBBON.mask
    (found,) = dekiyaku_of(seven)
    assert (found.id, found.value, found.cards) == (D.SEVEN_RIBBONS, 50, seven)
    (found,) = [d for d in dekiyaku_of(RIBBONS) if d.id is D.SEVEN_RIBBONS]
    assert found.cards == NON_WILLOW_RIBBONS


def test_ribbon_dekiyaku_add_up() -> None:
    captured = POETRY_RIBBONS | BLUE_RIBBONS | Card.IRIS_RIBBON.mask
    assert ids(captured) == [D.AKATAN, D.AOTAN, D.SEVEN_RIBBONS]
    assert sum(d.value for d in dekiyaku_of(captured)) == 120


def test_four_lights_leave_out_the_rain_man() -> None:
    (found,) = dekiyaku_of(FOUR_LIGHTS)
    assert (found.id, found.value, found.cards) == (D.FOUR_LIGHTS, 50, FOUR_LIGHTS)
    for light in cards_of(FOUR_LIGHTS):
        # Three lights and the rain man are no four-lights.
        assert ids(LIGHTS & ~light.mask) == []


def test_five_lights_replace_four_lights() -> None:
    (found,) = dekiyaku_of(LIGHTS)
    assert (found.id, found.value, found.cards) == (D.FIVE_LIGHTS, 75, LIGHTS)


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (15, None),
        (16, D.PLAINS_16),
        (17, D.PLAINS_17),
        (18, D.PLAINS_18),
        (19, D.PLAINS_19),
        (20, D.PLAINS_19),
        (24, D.PLAINS_19),
        (27, D.PLAINS_19),
    ],
)
def test_plains_ladder(count: int, expected: DekiyakuId | None) -> None:
    captured = first_plains(count)
    found = dekiyaku_of(captured | cards("pine-crane", "plum-warbler"))
    if expected is None:
        assert found == ()
    else:
        (plains,) = found
        assert (plains.id, plains.cards) == (expected, captured)
        assert plains.value == {16: 50, 17: 60, 18: 75}.get(count, 100)


@pytest.mark.parametrize("willow", cards_of(WILLOWS))
def test_each_willow_card_counts_as_a_plain(willow: Card) -> None:
    fifteen = first_plains(15, PLAINS & ~WILLOWS)
    assert ids(fifteen) == []
    assert ids(fifteen | willow.mask) == [D.PLAINS_16]


def test_the_sake_cup_is_not_a_plain() -> None:
    fifteen = first_plains(15, PLAINS & ~WILLOWS)
    assert ids(fifteen | Card.CHRYSANTHEMUM_SAKE.mask) == []


def test_the_rain_man_counts_in_five_lights_and_as_a_plain() -> None:
    captured = LIGHTS | first_plains(15, PLAINS & ~WILLOWS)
    assert ids(captured) == [D.FIVE_LIGHTS, D.PLAINS_16]


def test_the_whole_deck_forms_everything_once() -> None:
    assert ids(DECK) == [
        D.AKATAN,
        D.AOTAN,
        D.INOSHIKACHO,
        D.SEVEN_RIBBONS,
        D.FIVE_LIGHTS,
        D.PLAINS_19,
    ]
    assert sum(d.value for d in dekiyaku_of(DECK)) == 35 * 3 + 50 + 75 + 100


@pytest.mark.parametrize("captured", [1, 1 << 49, -1])
def test_captures_must_be_cards(captured: int) -> None:
    with pytest.raises(BadCardsError) as raised:
        dekiyaku_of(captured)
    assert raised.value.reason is Reason.BAD_CARDS


# --- what a turn pays ----------------------------------------------------------------------------


def test_a_first_dekiyaku_pays_in_full() -> None:
    payment = dekiyaku_payment((), dekiyaku_of(POETRY_RIBBONS | BLUE_RIBBONS))
    assert payment.points == 70
    assert [(due.dekiyaku.id, due.points) for due in payment.dues] == [
        (D.AKATAN, 35),
        (D.AOTAN, 35),
    ]
    assert payment.paid == {D.AKATAN, D.AOTAN}


def test_nothing_new_pays_nothing() -> None:
    assert dekiyaku_payment((), ()) == ((), 0, frozenset())
    payment = dekiyaku_payment({D.AKATAN}, dekiyaku_of(POETRY_RIBBONS))
    assert (payment.dues, payment.points, payment.paid) == ((), 0, frozenset({D.AKATAN}))


def test_only_the_new_dekiyaku_pays() -> None:
    payment = dekiyaku_payment([D.AKATAN], dekiyaku_of(POETRY_RIBBONS | INOSHIKACHO))
    assert [(due.dekiyaku.id, due.points) for due in payment.dues] == [(D.INOSHIKACHO, 35)]
    assert payment.paid == {D.AKATAN, D.INOSHIKACHO}


def test_five_lights_after_four_lights_pays_the_difference() -> None:
    payment = dekiyaku_payment([D.FOUR_LIGHTS], dekiyaku_of(LIGHTS))
    assert payment.points == 25
    assert payment.paid == {D.FOUR_LIGHTS, D.FIVE_LIGHTS}


@pytest.mark.parametrize(
    ("paid", "now", "due"),
    [
        ([D.PLAINS_16], 17, 10),
        ([D.PLAINS_16], 18, 25),
        ([D.PLAINS_16], 22, 50),
        ([D.PLAINS_16, D.PLAINS_17], 19, 40),
        ([D.PLAINS_17], 19, 40),
        ([D.PLAINS_19], 27, 0),
        ([D.FIVE_LIGHTS], 16, 50),
    ],
)
def test_plains_rungs_pay_the_difference(paid: list[DekiyakuId], now: int, due: int) -> None:
    assert dekiyaku_payment(paid, dekiyaku_of(first_plains(now))).points == due


def test_a_lower_rung_than_paid_pays_nothing() -> None:
    payment = dekiyaku_payment([D.PLAINS_18], dekiyaku_of(first_plains(16)))
    assert (payment.points, payment.paid) == (0, frozenset({D.PLAINS_18}))


def test_everything_at_once_with_ladders_credited() -> None:
    paid = [D.AKATAN, D.FOUR_LIGHTS, D.PLAINS_16]
    payment = dekiyaku_payment(paid, dekiyaku_of(DECK))
    assert [(due.dekiyaku.id, due.points) for due in payment.dues] == [
        (D.AOTAN, 35),
        (D.INOSHIKACHO, 35),
        (D.SEVEN_RIBBONS, 50),
        (D.FIVE_LIGHTS, 25),
        (D.PLAINS_19, 50),
    ]
    assert payment.points == 195


def test_ladders() -> None:
    assert {d for d, ladder in LADDER_OF.items() if ladder.value == "lights"} == {
        D.FOUR_LIGHTS,
        D.FIVE_LIGHTS,
    }
    assert {d for d, ladder in LADDER_OF.items() if ladder.value == "plains"} == {
        D.PLAINS_16,
        D.PLAINS_17,
        D.PLAINS_18,
        D.PLAINS_19,
    }


# --- against a plain reading of the table --------------------------------------------------------


def reference_dekiyaku(captured: int) -> set[DekiyakuId]:
    held = cards_of(captured)
    found: set[DekiyakuId] = set()
    colours = [card.ribbon_colour for card in held]
    if colours.count(RibbonColour.POETRY) == 3:
        found.add(D.AKATAN)
    if colours.count(RibbonColour.BLUE) == 3:
        found.add(D.AOTAN)
    if {Card.CLOVER_BOAR, Card.MAPLE_DEER, Card.PEONY_BUTTERFLIES} <= set(held):
        found.add(D.INOSHIKACHO)
    if sum(card.kind is Kind.RIBBON and card.month != 11 for card in held) >= 7:
        found.add(D.SEVEN_RIBBONS)
    lights = [card for card in held if card.kind is Kind.LIGHT]
    if len(lights) == 5:
        found.add(D.FIVE_LIGHTS)
    elif len([card for card in lights if card.month != 11]) == 4:
        found.add(D.FOUR_LIGHTS)
    plains = sum(card.kind is Kind.PLAIN or card.month == 11 for card in held)
    if plains >= 16:
        found.add(DekiyakuId(f"plains-{min(plains, 19)}"))
    return found


captures = st.one_of(
    st.integers(0, (1 << 49) - 1).map(lambda m: m & DECK),
    st.sets(st.sampled_from(list(Card))).map(mask_of),
)


@settings(max_examples=1000)
@given(captures)
def test_dekiyaku_match_the_reference(captured: int) -> None:
    found = dekiyaku_of(captured)
    assert {d.id for d in found} == reference_dekiyaku(captured)
    assert [d.id for d in found] == sorted((d.id for d in found), key=list(DekiyakuId).index)
    for dekiyaku in found:
        assert dekiyaku.cards & ~captured == 0
        assert dekiyaku.value == DEKIYAKU_VALUES[dekiyaku.id]


@settings(max_examples=300)
@given(st.permutations(list(Card)))
def test_paying_turn_by_turn_adds_up_to_the_final_dekiyaku(order: list[Card]) -> None:
    # One player capturing the deck two cards at a time: each dekiyaku, once formed, stays formed,
    # so the ladder differences add up to the top rungs held at the end.
    paid: frozenset[DekiyakuId] = frozenset()
    captured = 0
    total = 0
    for turn in range(0, len(order), 2):
        captured |= mask_of(order[turn : turn + 2])
        payment = dekiyaku_payment(paid, dekiyaku_of(captured))
        assert all(due.points > 0 for due in payment.dues)
        assert payment.points == sum(due.points for due in payment.dues)
        total += payment.points
        paid = payment.paid
    assert total == sum(d.value for d in dekiyaku_of(DECK))
