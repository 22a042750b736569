"""Teyaku: the hand combinations declared at the deal (RULES.md 2.2 and 2.6).

A hand is a bit mask of exactly seven cards. :func:`teyaku_of` lists every teyaku the hand meets;
:func:`classify_teyaku` gives the one that counts: the highest value, and of equal values the first
in the spec's table. Each :class:`Teyaku` names the cards the player lays face up to prove it
(seed 004, "Placez ... devant vous").

Month-based teyaku read the hand's *month pattern*, the sizes of its month groups: a triplet is a
group of exactly three, a pair exactly two, so a four of a kind holds no triplet. Kind-based teyaku
read the Hachi-Hachi kinds of :mod:`.kinds` (willow cards are plains).

>>> from hanafuda_referee.cards import Card, mask_of
>>> hand = mask_of([Card.PINE_CRANE, Card.PINE_RIBBON, Card.PINE_PLAIN_1,
...                 Card.PLUM_PLAIN_1, Card.PLUM_PLAIN_2, Card.MAPLE_DEER, Card.MAPLE_PLAIN_1])
>>> [t.id.value for t in teyaku_of(hand)]
['triplet', 'haneken']
>>> best = classify_teyaku(hand)
>>> best.id.value, best.value, best.exposed == hand
('haneken', 30, True)
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from hanafuda_referee.cards import MONTH_MASKS, Card, mask_of
from hanafuda_referee.hachihachi.inputs import check_cards
from hanafuda_referee.hachihachi.kinds import HH_ANIMALS, HH_LIGHTS, HH_PLAINS, HH_RIBBONS

__all__ = [
    "HAND_SIZE",
    "SPECIAL_TRIPLETS",
    "TEYAKU_VALUES",
    "Teyaku",
    "TeyakuId",
    "classify_teyaku",
    "teyaku_of",
]

HAND_SIZE = 7


class TeyakuId(StrEnum):
    """The teyaku, in the order of the spec's table (the tie-break order). Values are the ids."""

    TRIPLET = "triplet"
    SPECIAL_TRIPLET = "special-triplet"
    RED = "red"
    LONE_RIBBON = "lone-ribbon"
    LONE_ANIMAL = "lone-animal"
    LONE_LIGHT = "lone-light"
    THREE_PAIRS = "three-pairs"
    EMPTY_NEST = "empty-nest"
    FOUR_OF_A_KIND = "four-of-a-kind"
    HANEKEN = "haneken"
    ONE_TWO_FOUR = "one-two-four"
    FOUR_THREE = "four-three"


#: Points of each teyaku (before the field multiplier), in table order.
TEYAKU_VALUES: dict[TeyakuId, int] = {
    TeyakuId.TRIPLET: 10,
    TeyakuId.SPECIAL_TRIPLET: 15,
    TeyakuId.RED: 15,
    TeyakuId.LONE_RIBBON: 20,
    TeyakuId.LONE_ANIMAL: 20,
    TeyakuId.LONE_LIGHT: 20,
    TeyakuId.THREE_PAIRS: 20,
    TeyakuId.EMPTY_NEST: 25,
    TeyakuId.FOUR_OF_A_KIND: 30,
    TeyakuId.HANEKEN: 30,
    TeyakuId.ONE_TWO_FOUR: 35,
    TeyakuId.FOUR_THREE: 50,
}


class Teyaku(NamedTuple):
    """A teyaku a hand holds: its id, its points, and the cards shown to the other players."""

    id: TeyakuId
    value: int
    #: The cards laid face up to prove it (a bit mask; see the table in docs/hachihachi.md).
    exposed: int


def _special_triplets() -> frozenset[int]:
    triplets: set[int] = set()
    for month in (4, 5, 7):
        group = MONTH_MASKS[month]
        # The four three-card subsets of a month: the month minus one card.
        triplets.update(group & ~(1 << card) for card in range(4 * month - 3, 4 * month + 1))
    triplets.add(mask_of([Card.PAULOWNIA_YELLOW, Card.PAULOWNIA_PLAIN_1, Card.PAULOWNIA_PLAIN_2]))
    return frozenset(triplets)


#: Every three-card group worth special-triplet.
SPECIAL_TRIPLETS: frozenset[int] = _special_triplets()


def _make(teyaku: TeyakuId, exposed: int) -> Teyaku:
    return Teyaku(teyaku, TEYAKU_VALUES[teyaku], exposed)


def _candidates(hand: int) -> tuple[tuple[TeyakuId, bool, int], ...]:
    """Every teyaku in table order, with whether the seven-card ``hand`` meets it and the cards
    it would show.

    The same steps run for every hand (no early exit, no loop whose length depends on the
    cards): the teyaku of the other players' hands are worked out when a drop phase ends, and
    again whenever a request replays the game, and the time that takes must say nothing of the
    teyaku a hand meets but does not declare (docs/api.md, "Timing").
    """
    check_cards(hand, size=HAND_SIZE, what="hand")
    groups = [hand & MONTH_MASKS[month] for month in range(1, 13)]
    sizes = [group.bit_count() for group in groups]
    pattern = tuple(sorted([size for size in sizes if size], reverse=True))
    sized = list(zip(groups, sizes, strict=True))
    # Month order, so that of two triplets of one kind the lower month's is shown.
    ordinary = [g for g, n in sized if n == 3 and g not in SPECIAL_TRIPLETS]
    special = [g for g, n in sized if n == 3 and g in SPECIAL_TRIPLETS]
    # No filter in a generator: it would stop (and resume) once per group kept.
    pairs = sum([g if n == 2 else 0 for g, n in sized])
    four = sum([g if n == 4 else 0 for g, n in sized])  # seven cards hold at most one
    plains = hand & HH_PLAINS
    # Kinds are counted with the willow cards among the plains (2.6), so the rain man is never
    # the light of a lone-light and the willow ribbon never one of red's ribbons.
    lights = (hand & HH_LIGHTS).bit_count()
    animals = (hand & HH_ANIMALS).bit_count()
    ribbons = (hand & HH_RIBBONS).bit_count()
    return (
        (TeyakuId.TRIPLET, len(ordinary) > 0, ordinary[0] if ordinary else 0),
        (TeyakuId.SPECIAL_TRIPLET, len(special) > 0, special[0] if special else 0),
        (TeyakuId.RED, lights == 0 and animals == 0 and ribbons >= 2, plains),
        (TeyakuId.LONE_RIBBON, ribbons == 1 and lights == 0 and animals == 0, plains),
        (TeyakuId.LONE_ANIMAL, animals == 1 and lights == 0 and ribbons == 0, plains),
        (TeyakuId.LONE_LIGHT, lights == 1 and animals == 0 and ribbons == 0, plains),
        (TeyakuId.THREE_PAIRS, pattern == (2, 2, 2, 1), pairs),
        (TeyakuId.EMPTY_NEST, plains == hand, hand),
        (TeyakuId.FOUR_OF_A_KIND, pattern[0] == 4, four),
        (TeyakuId.HANEKEN, pattern == (3, 2, 2), hand),
        (TeyakuId.ONE_TWO_FOUR, pattern == (4, 2, 1), hand),
        (TeyakuId.FOUR_THREE, pattern == (4, 3), hand),
    )


def teyaku_of(hand: int) -> tuple[Teyaku, ...]:
    """Every teyaku the seven-card ``hand`` meets, in table order (empty when none).

    A triplet worth special-triplet is listed as ``special-triplet`` only, not also as
    ``triplet``. With two triplets (3-3-1) each id appears at most once, showing its lower-month
    triplet, so two ordinary triplets give one ``triplet`` (RULES.md 2.6).

    >>> from hanafuda_referee.cards import Card, mask_of
    >>> hand = mask_of([Card.WISTERIA_RIBBON, Card.IRIS_RIBBON, Card.PINE_PLAIN_1,
    ...                 Card.PLUM_PLAIN_1, Card.CHERRY_PLAIN_1, Card.WILLOW_SWALLOW,
    ...                 Card.PAULOWNIA_PLAIN_1])
    >>> [(t.id.value, t.value) for t in teyaku_of(hand)]
    [('red', 15)]

    Raises :class:`~.inputs.BadCardsError` unless ``hand`` is exactly seven cards.
    """
    return tuple(_make(teyaku, shown) for teyaku, met, shown in _candidates(hand) if met)


def classify_teyaku(hand: int) -> Teyaku | None:
    """The teyaku that counts for the seven-card ``hand``: the highest, ties to the first in the
    table; ``None`` when the hand has none. It takes the same steps for every hand that meets
    a teyaku, and for every hand that meets none (see :func:`_candidates`).

    >>> from hanafuda_referee.cards import Card, mask_of
    >>> hand = mask_of([Card.WILLOW_RAINMAN, Card.PINE_PLAIN_1, Card.PLUM_PLAIN_1,
    ...                 Card.CHERRY_PLAIN_1, Card.IRIS_PLAIN_1, Card.MAPLE_PLAIN_1,
    ...                 Card.PAULOWNIA_YELLOW])
    >>> classify_teyaku(hand).id.value
    'empty-nest'

    Raises :class:`~.inputs.BadCardsError` unless ``hand`` is exactly seven cards.
    """
    # By value (-1: not met), then by table order (the earlier, -index, the greater). No
    # filter: a comprehension's filter spread over lines would run a line only for the teyaku met.
    ranked = [
        (TEYAKU_VALUES[teyaku] if met else -1, -index, teyaku, shown)
        for index, (teyaku, met, shown) in enumerate(_candidates(hand))
    ]
    value, _, teyaku, shown = max(ranked)
    if value < 0:
        return None
    return Teyaku(teyaku, value, shown)
