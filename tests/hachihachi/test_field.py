"""The field multiplier, its carry-over, and the four-of-a-month redeal check."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hanafuda_referee.cards import LIGHTS, MONTH_MASKS, Card, mask_of
from hanafuda_referee.errors import Reason
from hanafuda_referee.hachihachi import (
    BadCardsError,
    carry_floor,
    field_has_four,
    field_multiplier,
)

from ._cards import cards

PADDING = (
    "pine-plain-1",
    "plum-plain-1",
    "iris-plain-1",
    "peony-ribbon",
    "maple-deer",
    "clover-boar",
)


def field_with(*lights: str) -> int:
    """Six field cards: the given ones, then no-light padding."""
    return cards(*lights, *PADDING[: 6 - len(lights)])


@pytest.mark.parametrize(
    ("lights", "multiplier"),
    [
        ((), 1),
        (("pine-crane",), 2),
        (("cherry-curtain",), 2),
        (("susuki-moon",), 2),
        (("pine-crane", "cherry-curtain", "susuki-moon"), 2),
        (("willow-rainman",), 4),
        (("paulownia-phoenix",), 4),
        (("willow-rainman", "paulownia-phoenix"), 4),
        # Lights of both kinds: the larger applies.
        (("pine-crane", "willow-rainman"), 4),
        (("susuki-moon", "cherry-curtain", "paulownia-phoenix"), 4),
    ],
)
def test_field_multiplier(lights: tuple[str, ...], multiplier: int) -> None:
    assert field_multiplier(field_with(*lights)) == multiplier


@pytest.mark.parametrize(
    ("lights", "floor", "multiplier"),
    [
        ((), 2, 2),
        ((), 4, 4),
        (("pine-crane",), 2, 2),
        (("pine-crane",), 4, 4),
        (("willow-rainman",), 2, 4),
        (("paulownia-phoenix",), 1, 4),
    ],
)
def test_field_multiplier_is_at_least_the_carried_floor(
    lights: tuple[str, ...], floor: int, multiplier: int
) -> None:
    assert field_multiplier(field_with(*lights), floor) == multiplier


@pytest.mark.parametrize(
    ("lights", "floor"),
    [
        ((), 1),
        (("pine-crane",), 1),
        (("willow-rainman",), 1),
        (("paulownia-phoenix",), 1),
        (("pine-crane", "willow-rainman"), 1),
        (("pine-crane", "cherry-curtain"), 2),
        (("pine-crane", "susuki-moon"), 2),
        (("cherry-curtain", "susuki-moon"), 2),
        (("pine-crane", "cherry-curtain", "susuki-moon"), 2),
        # Two big lights with one grand light carry only the big field.
        (("pine-crane", "cherry-curtain", "paulownia-phoenix"), 2),
        (("willow-rainman", "paulownia-phoenix"), 4),
        (("willow-rainman", "paulownia-phoenix", "pine-crane", "susuki-moon"), 4),
        (tuple(card.code for card in Card if LIGHTS >> card & 1), 4),
    ],
)
def test_carry_floor(lights: tuple[str, ...], floor: int) -> None:
    assert carry_floor(field_with(*lights)) == floor


def test_a_carried_floor_does_not_carry_again() -> None:
    first = field_with("pine-crane", "cherry-curtain")
    second = field_with()
    floor = carry_floor(first)
    assert field_multiplier(first) == 2
    assert field_multiplier(second, floor) == 2
    # The next floor reads the second round's own small field.
    assert carry_floor(second) == 1
    assert field_multiplier(field_with(), carry_floor(second)) == 1


@given(st.sets(st.sampled_from(list(Card)), min_size=6, max_size=6).map(mask_of))
def test_multiplier_is_at_least_the_floor_the_field_carries(field: int) -> None:
    # A field that carries ×n was itself at least ×n.
    assert field_multiplier(field) >= carry_floor(field)
    for floor in (1, 2, 4):
        assert field_multiplier(field, floor) == max(field_multiplier(field), floor)


@pytest.mark.parametrize("month", range(1, 13))
def test_four_of_a_month_on_the_field(month: int) -> None:
    others = [card for card in Card if card.month != month]
    assert field_has_four(MONTH_MASKS[month] | mask_of(others[:2]))
    # Three of the month and three others: no redeal.
    three = MONTH_MASKS[month] & ~(1 << (4 * month))
    assert not field_has_four(three | mask_of(others[:3]))


def test_no_four_on_an_ordinary_field() -> None:
    assert not field_has_four(field_with("pine-crane", "susuki-moon"))
    two_triplets = (MONTH_MASKS[1] | MONTH_MASKS[2]) & ~cards("pine-crane", "plum-warbler")
    assert not field_has_four(two_triplets)


@pytest.mark.parametrize(
    "field",
    [0, cards(*PADDING[:5]), cards(*PADDING, "pine-crane"), cards(*PADDING[:5]) | 1],
)
def test_the_field_must_be_six_cards(field: int) -> None:
    for check in (field_multiplier, carry_floor, field_has_four):
        with pytest.raises(BadCardsError) as raised:
            check(field)
        assert raised.value.reason is Reason.BAD_CARDS


@pytest.mark.parametrize("floor", [0, 3, 8, -1])
def test_the_floor_must_be_a_multiplier(floor: int) -> None:
    with pytest.raises(ValueError, match="floor"):
        field_multiplier(field_with(), floor)
