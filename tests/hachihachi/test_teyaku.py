"""Teyaku: each one exactly, its near misses, the highest-only rule, willow cards as plains."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings

from hanafuda_referee.cards import MONTH_MASKS, Card, Kind, RibbonColour, cards_of, mask_of
from hanafuda_referee.errors import Reason
from hanafuda_referee.hachihachi import BadCardsError, TeyakuId, classify_teyaku, teyaku_of
from hanafuda_referee.hachihachi.teyaku import SPECIAL_TRIPLETS, TEYAKU_VALUES

from ._cards import cards, codes, seven_card_hands

T = TeyakuId

# Four plains and a light, animal, ribbon of other months: padding that forms nothing.
PINE_TRIPLET = ("pine-crane", "pine-ribbon", "pine-plain-1")
MIXED_SINGLES = ("plum-warbler", "cherry-curtain", "maple-deer", "susuki-moon")


def ids(hand: int) -> list[TeyakuId]:
    return [t.id for t in teyaku_of(hand)]


def best(hand: int) -> TeyakuId | None:
    found = classify_teyaku(hand)
    return None if found is None else found.id


def test_values_follow_the_spec_table() -> None:
    assert list(TEYAKU_VALUES) == list(TeyakuId)
    assert [TEYAKU_VALUES[t] for t in TeyakuId] == [10, 15, 15, 20, 20, 20, 20, 25, 30, 30, 35, 50]
    assert [t.value for t in TeyakuId] == [
        "triplet",
        "special-triplet",
        "red",
        "lone-ribbon",
        "lone-animal",
        "lone-light",
        "three-pairs",
        "empty-nest",
        "four-of-a-kind",
        "haneken",
        "one-two-four",
        "four-three",
    ]


# --- each teyaku exactly -------------------------------------------------------------------------


def test_triplet() -> None:
    hand = cards(*PINE_TRIPLET, *MIXED_SINGLES)
    assert ids(hand) == [T.TRIPLET]
    (found,) = teyaku_of(hand)
    assert found.value == 10
    assert codes(found.exposed) == set(PINE_TRIPLET)


def test_a_pair_is_no_triplet() -> None:
    hand = cards("pine-crane", "pine-ribbon", "iris-bridge", *MIXED_SINGLES)
    assert teyaku_of(hand) == ()
    assert classify_teyaku(hand) is None


@pytest.mark.parametrize("month", [4, 5, 7])
@pytest.mark.parametrize("left_out", range(4))
def test_special_triplet_of_april_may_july(month: int, left_out: int) -> None:
    triplet = MONTH_MASKS[month] & ~(1 << (4 * month - 3 + left_out))
    hand = triplet | cards(*MIXED_SINGLES)
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value, found.exposed) == (T.SPECIAL_TRIPLET, 15, triplet)
    assert ids(hand) == [T.SPECIAL_TRIPLET]


def test_special_triplet_of_the_three_december_plains() -> None:
    plains = cards("paulownia-yellow", "paulownia-plain-1", "paulownia-plain-2")
    found = classify_teyaku(plains | cards(*MIXED_SINGLES))
    assert found is not None
    assert (found.id, found.value, found.exposed) == (T.SPECIAL_TRIPLET, 15, plains)


@pytest.mark.parametrize("plain", ["paulownia-yellow", "paulownia-plain-1", "paulownia-plain-2"])
def test_december_triplet_with_the_phoenix_is_ordinary(plain: str) -> None:
    december = MONTH_MASKS[12] & ~cards(plain)
    hand = december | cards(*MIXED_SINGLES)
    assert ids(hand) == [T.TRIPLET]


@pytest.mark.parametrize("month", [1, 2, 3, 6, 8, 9, 10, 11])
def test_other_months_make_ordinary_triplets(month: int) -> None:
    triplet = MONTH_MASKS[month] & ~(1 << (4 * month))
    # Four single non-plains of other months: nothing else can form.
    singles = [c for c in Card if c.kind is not Kind.PLAIN and c.month not in (month, 8, 11)]
    by_month: dict[int, Card] = {}
    for card in singles:
        by_month.setdefault(card.month, card)
    hand = triplet | mask_of(list(by_month.values())[:4])
    assert ids(hand) == [T.TRIPLET]


def test_special_triplets_table() -> None:
    assert len(SPECIAL_TRIPLETS) == 13
    assert all(t.bit_count() == 3 for t in SPECIAL_TRIPLETS)


def test_two_ordinary_triplets_count_as_one_triplet() -> None:
    plum = ("plum-warbler", "plum-ribbon", "plum-plain-1")
    hand = cards(*PINE_TRIPLET, *plum, "maple-deer")
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value) == (T.TRIPLET, 10)
    # The lower month's triplet is shown.
    assert codes(found.exposed) == set(PINE_TRIPLET)
    assert ids(hand) == [T.TRIPLET]


@pytest.mark.parametrize(
    "special",
    [
        ("wisteria-cuckoo", "wisteria-ribbon", "wisteria-plain-1"),
        ("clover-boar", "clover-plain-1", "clover-plain-2"),
        ("paulownia-yellow", "paulownia-plain-1", "paulownia-plain-2"),
    ],
)
def test_two_triplets_one_special_count_as_special(special: tuple[str, ...]) -> None:
    hand = cards(*PINE_TRIPLET, *special, "maple-deer")
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value) == (T.SPECIAL_TRIPLET, 15)
    assert codes(found.exposed) == set(special)
    assert ids(hand) == [T.TRIPLET, T.SPECIAL_TRIPLET]


def test_two_special_triplets_still_pay_once() -> None:
    april = ("wisteria-cuckoo", "wisteria-ribbon", "wisteria-plain-1")
    july = ("clover-boar", "clover-ribbon", "clover-plain-1")
    found = classify_teyaku(cards(*april, *july, "maple-deer"))
    assert found is not None
    assert (found.id, found.value, codes(found.exposed)) == (T.SPECIAL_TRIPLET, 15, set(april))


RED_PLAINS = ("pine-plain-1", "plum-plain-1", "cherry-plain-1", "peony-plain-1", "maple-plain-1")


def test_red_with_two_ribbons() -> None:
    hand = cards("wisteria-ribbon", "iris-ribbon", *RED_PLAINS)
    assert ids(hand) == [T.RED]
    found = classify_teyaku(hand)
    assert found is not None
    assert found.value == 15
    assert codes(found.exposed) == set(RED_PLAINS)


def test_seven_ribbons_are_red_and_show_no_plain() -> None:
    ribbons = ("pine", "plum", "cherry", "wisteria", "iris", "peony", "maple")
    hand = cards(*(f"{month}-ribbon" for month in ribbons))
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.exposed) == (T.RED, 0)


def test_red_counts_the_willow_cards_as_plains() -> None:
    willows = ("willow-rainman", "willow-swallow", "willow-lightning")
    hand = cards("wisteria-ribbon", "iris-ribbon", "pine-plain-1", "plum-plain-1", *willows)
    found = classify_teyaku(hand)
    assert found is not None
    assert found.id is T.RED
    assert codes(found.exposed) == {"pine-plain-1", "plum-plain-1", *willows}


@pytest.mark.parametrize("intruder", ["maple-deer", "pine-crane", "chrysanthemum-sake"])
def test_red_near_miss_with_an_animal_or_light(intruder: str) -> None:
    hand = cards("wisteria-ribbon", "iris-ribbon", intruder, *RED_PLAINS[:4])
    assert teyaku_of(hand) == ()


LONE_PLAINS = (
    "pine-plain-1",
    "plum-plain-1",
    "cherry-plain-1",
    "peony-plain-1",
    "maple-plain-1",
    "chrysanthemum-plain-1",
)


@pytest.mark.parametrize(
    ("lone", "expected"),
    [
        ("wisteria-ribbon", T.LONE_RIBBON),
        ("iris-bridge", T.LONE_ANIMAL),
        ("chrysanthemum-sake", T.LONE_ANIMAL),
        ("pine-crane", T.LONE_LIGHT),
        ("cherry-curtain", T.LONE_LIGHT),
        ("susuki-moon", T.LONE_LIGHT),
        ("paulownia-phoenix", T.LONE_LIGHT),
    ],
)
def test_lone_card_and_six_plains(lone: str, expected: TeyakuId) -> None:
    month = Card.from_code(lone).month
    plains = tuple(
        c.code for c in Card if c.code.endswith("plain-1") and c.month not in (month, 11, 12)
    )[:6]
    hand = cards(lone, *plains)
    assert ids(hand) == [expected]
    found = classify_teyaku(hand)
    assert found is not None
    assert found.value == 20
    assert codes(found.exposed) == set(plains)


@pytest.mark.parametrize(
    "willow", ["willow-rainman", "willow-swallow", "willow-ribbon", "willow-lightning"]
)
def test_a_willow_card_with_six_plains_is_an_empty_nest(willow: str) -> None:
    hand = cards(willow, *LONE_PLAINS)
    assert ids(hand) == [T.EMPTY_NEST]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.value, found.exposed) == (25, hand)


def test_the_rain_man_is_not_a_lone_light() -> None:
    assert best(cards("willow-rainman", *LONE_PLAINS)) is not T.LONE_LIGHT


@pytest.mark.parametrize(
    "pair",
    [
        ("wisteria-ribbon", "iris-ribbon"),
        ("maple-deer", "iris-bridge"),
        ("pine-crane", "susuki-moon"),
        ("pine-crane", "wisteria-ribbon"),
    ],
)
def test_two_non_plains_of_different_kinds_or_lights_make_no_lone(pair: tuple[str, str]) -> None:
    plains = (
        "plum-plain-1",
        "cherry-plain-1",
        "peony-plain-1",
        "chrysanthemum-plain-1",
        "paulownia-plain-1",
    )
    found = ids(cards(*pair, *plains))
    assert T.LONE_RIBBON not in found
    assert T.LONE_ANIMAL not in found
    assert T.LONE_LIGHT not in found


def test_three_pairs() -> None:
    pairs = (
        "pine-plain-1",
        "pine-plain-2",
        "plum-plain-1",
        "plum-plain-2",
        "maple-deer",
        "maple-ribbon",
    )
    hand = cards(*pairs, "susuki-moon")
    assert ids(hand) == [T.THREE_PAIRS]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.value, codes(found.exposed)) == (20, set(pairs))


def test_two_pairs_are_not_three_pairs() -> None:
    hand = cards("pine-crane", "pine-ribbon", "plum-warbler", "plum-ribbon", *MIXED_SINGLES[1:])
    assert teyaku_of(hand) == ()


def test_empty_nest_of_printed_plains() -> None:
    hand = cards(
        "pine-plain-1",
        "plum-plain-1",
        "cherry-plain-1",
        "wisteria-plain-1",
        "iris-plain-1",
        "peony-plain-1",
        "clover-plain-1",
    )
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value, found.exposed) == (T.EMPTY_NEST, 25, hand)


def test_four_of_a_kind() -> None:
    hand = MONTH_MASKS[1] | cards("plum-warbler", "cherry-curtain", "maple-deer")
    assert ids(hand) == [T.FOUR_OF_A_KIND]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.value, found.exposed) == (30, MONTH_MASKS[1])


def test_haneken() -> None:
    hand = cards(*PINE_TRIPLET, "plum-warbler", "plum-ribbon", "maple-deer", "maple-ribbon")
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value, found.exposed) == (T.HANEKEN, 30, hand)
    # The triplet is there too but only the highest counts (the seed's own example).
    assert ids(hand) == [T.TRIPLET, T.HANEKEN]


def test_haneken_over_special_triplet() -> None:
    hand = cards(
        "wisteria-cuckoo", "wisteria-ribbon", "wisteria-plain-1", "pine-crane", "pine-ribbon",
        "maple-deer", "maple-ribbon",
    )  # fmt: skip
    assert ids(hand) == [T.SPECIAL_TRIPLET, T.HANEKEN]
    assert best(hand) is T.HANEKEN


def test_one_two_four_over_four_of_a_kind() -> None:
    hand = MONTH_MASKS[1] | cards("plum-warbler", "plum-ribbon", "maple-deer")
    assert ids(hand) == [T.FOUR_OF_A_KIND, T.ONE_TWO_FOUR]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value, found.exposed) == (T.ONE_TWO_FOUR, 35, hand)


def test_four_three_over_four_of_a_kind_and_triplet() -> None:
    hand = MONTH_MASKS[1] | cards("plum-warbler", "plum-ribbon", "plum-plain-1")
    assert ids(hand) == [T.TRIPLET, T.FOUR_OF_A_KIND, T.FOUR_THREE]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.value, found.exposed) == (T.FOUR_THREE, 50, hand)


def test_four_three_with_a_special_triplet() -> None:
    hand = MONTH_MASKS[1] | (MONTH_MASKS[4] & ~Card.WISTERIA_CUCKOO.mask)
    assert ids(hand) == [T.SPECIAL_TRIPLET, T.FOUR_OF_A_KIND, T.FOUR_THREE]
    assert best(hand) is T.FOUR_THREE


# --- willow cards as plains, and ties ------------------------------------------------------------


def test_four_willows_and_three_plains_is_four_of_a_kind_over_empty_nest() -> None:
    hand = MONTH_MASKS[11] | cards("pine-plain-1", "plum-plain-1", "cherry-plain-1")
    assert ids(hand) == [T.EMPTY_NEST, T.FOUR_OF_A_KIND]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.exposed) == (T.FOUR_OF_A_KIND, MONTH_MASKS[11])


def test_empty_nest_beats_three_pairs_and_special_triplet() -> None:
    pairs = cards("pine-plain-1", "pine-plain-2", "plum-plain-1", "plum-plain-2")
    hand = pairs | cards("willow-rainman", "willow-swallow", "cherry-plain-1")
    assert ids(hand) == [T.THREE_PAIRS, T.EMPTY_NEST]
    assert best(hand) is T.EMPTY_NEST
    december = cards("paulownia-yellow", "paulownia-plain-1", "paulownia-plain-2")
    hand = december | cards("pine-plain-1", "plum-plain-1", "cherry-plain-1", "willow-ribbon")
    assert ids(hand) == [T.SPECIAL_TRIPLET, T.EMPTY_NEST]
    assert best(hand) is T.EMPTY_NEST


def test_equal_values_go_to_the_first_in_the_table() -> None:
    # lone-ribbon (20) and three-pairs (20): lone-ribbon, which shows the six plains.
    hand = cards(
        "pine-ribbon", "pine-plain-1", "plum-plain-1", "plum-plain-2", "cherry-plain-1",
        "cherry-plain-2", "maple-plain-1",
    )  # fmt: skip
    assert ids(hand) == [T.LONE_RIBBON, T.THREE_PAIRS]
    found = classify_teyaku(hand)
    assert found is not None
    assert found.id is T.LONE_RIBBON
    assert found.exposed == hand & ~Card.PINE_RIBBON.mask
    # special-triplet (15) and red (15): special-triplet, which shows the triplet.
    triplet = cards("wisteria-ribbon", "wisteria-plain-1", "wisteria-plain-2")
    hand = triplet | cards("iris-ribbon", "pine-plain-1", "plum-plain-1", "cherry-plain-1")
    assert ids(hand) == [T.SPECIAL_TRIPLET, T.RED]
    found = classify_teyaku(hand)
    assert found is not None
    assert (found.id, found.exposed) == (T.SPECIAL_TRIPLET, triplet)


def test_willow_triplet_is_a_triplet_by_month() -> None:
    hand = cards("willow-rainman", "willow-swallow", "willow-ribbon", *MIXED_SINGLES)
    assert ids(hand) == [T.TRIPLET]


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hand",
    [
        0,
        cards(*PINE_TRIPLET, *MIXED_SINGLES[:3]),
        cards(*PINE_TRIPLET, *MIXED_SINGLES, "iris-bridge"),
        cards(*PINE_TRIPLET, *MIXED_SINGLES[:3]) | 1,
        cards(*PINE_TRIPLET, *MIXED_SINGLES[:3]) | 1 << 49,
        -cards(*PINE_TRIPLET, *MIXED_SINGLES),
    ],
)
def test_a_hand_must_be_seven_cards(hand: int) -> None:
    with pytest.raises(BadCardsError) as raised:
        classify_teyaku(hand)
    assert raised.value.reason is Reason.BAD_CARDS
    assert isinstance(raised.value, ValueError)
    with pytest.raises(BadCardsError):
        teyaku_of(hand)


# --- against a plain reading of the table --------------------------------------------------------


def reference_teyaku(hand: int) -> TeyakuId | None:
    """The spec's table read card by card, without masks: the teyaku that counts."""
    held = cards_of(hand)
    months = Counter(card.month for card in held)
    shape = sorted(months.values(), reverse=True)
    kinds = ["plain" if card.month == 11 else card.kind.name.lower() for card in held]
    others = sorted(kind for kind in kinds if kind != "plain")
    found: list[TeyakuId] = []
    triplet_months = [month for month, n in months.items() if n == 3]
    phoenix = Card.PAULOWNIA_PHOENIX in held
    if any(m in (4, 5, 7) or (m == 12 and not phoenix) for m in triplet_months):
        found.append(T.SPECIAL_TRIPLET)
    elif triplet_months:
        found.append(T.TRIPLET)
    if len(others) >= 2 and set(others) == {"ribbon"}:
        found.append(T.RED)
    lone = {"ribbon": T.LONE_RIBBON, "animal": T.LONE_ANIMAL, "light": T.LONE_LIGHT}
    if len(others) == 1:
        found.append(lone[others[0]])
    if shape == [2, 2, 2, 1]:
        found.append(T.THREE_PAIRS)
    if not others:
        found.append(T.EMPTY_NEST)
    if shape[0] == 4:
        found.append(T.FOUR_OF_A_KIND)
    whole = {(3, 2, 2): T.HANEKEN, (4, 2, 1): T.ONE_TWO_FOUR, (4, 3): T.FOUR_THREE}
    if tuple(shape) in whole:
        found.append(whole[tuple(shape)])
    if not found:
        return None
    order = list(TeyakuId)
    return max(found, key=lambda t: (TEYAKU_VALUES[t], -order.index(t)))


@settings(max_examples=1000)
@given(seven_card_hands())
def test_classification_matches_the_reference(hand: int) -> None:
    assert best(hand) == reference_teyaku(hand)


@settings(max_examples=500)
@given(seven_card_hands())
def test_shown_cards_are_the_hand_s_and_fit_the_teyaku(hand: int) -> None:
    listed = teyaku_of(hand)
    assert [t.id for t in listed] == sorted({t.id for t in listed}, key=list(TeyakuId).index)
    for teyaku in listed:
        assert teyaku.value == TEYAKU_VALUES[teyaku.id]
        assert teyaku.exposed & ~hand == 0
        shown = teyaku.exposed.bit_count()
        if teyaku.id in (T.TRIPLET, T.SPECIAL_TRIPLET):
            assert shown == 3
            assert len({card.month for card in cards_of(teyaku.exposed)}) == 1
        elif teyaku.id in (T.LONE_RIBBON, T.LONE_ANIMAL, T.LONE_LIGHT, T.THREE_PAIRS):
            assert shown == 6
        elif teyaku.id is T.FOUR_OF_A_KIND:
            assert teyaku.exposed in MONTH_MASKS
        elif teyaku.id is T.RED:
            assert all(
                card.month == 11 or card.kind is Kind.PLAIN for card in cards_of(teyaku.exposed)
            )
        else:
            assert teyaku.exposed == hand
    top = classify_teyaku(hand)
    assert top == (max(listed, key=lambda t: t.value, default=None) if listed else None)


def test_ribbon_colours_do_not_matter_for_red() -> None:
    colours = {card.ribbon_colour for card in Card if card.kind is Kind.RIBBON}
    assert colours == set(RibbonColour)
    hand = cards(
        "pine-ribbon",
        "peony-ribbon",
        *RED_PLAINS[1:3],
        "iris-plain-1",
        "clover-plain-1",
        "susuki-plain-1",
    )
    assert best(hand) is T.RED
