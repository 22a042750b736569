"""What cards are worth to a Hachi-Hachi player: their card points, plus progress toward the
dekiyaku it can still form.

The card count pays each point over or under 88 (RULES.md 2.5), so a captured card is worth its
points (light 20, animal 10, ribbon 5, plain 1). A dekiyaku is paid by both other players; a
player's progress toward one grows with the square of the share of its cards he holds, and is
worth nothing once the others hold so many of them that he can no longer form it.

>>> from hanafuda_referee.cards import Card, mask_of
>>> boar_deer = mask_of([Card.CLOVER_BOAR, Card.MAPLE_DEER])
>>> worth(boar_deer, 0) > worth(Card.CLOVER_BOAR.mask | Card.MAPLE_RIBBON.mask, 0)
True
>>> worth(boar_deer, Card.PEONY_BUTTERFLIES.mask) == CARD_POINTS[Card.CLOVER_BOAR] * 2
True
"""

from __future__ import annotations

from hanafuda_referee.cards import ANIMALS, BLUE_RIBBONS, LIGHTS, POETRY_RIBBONS, RIBBONS, Card
from hanafuda_referee.hachihachi.dekiyaku import DEKIYAKU_VALUES, INOSHIKACHO, DekiyakuId
from hanafuda_referee.hachihachi.kinds import HH_LIGHTS, HH_PLAINS, HH_RIBBONS

__all__ = ["CARD_POINTS", "TARGETS", "card_worth", "near", "worth"]

#: The card count's points of each card (index: card number): light 20, animal 10, ribbon 5,
#: plain 1, at the printed kinds (the willow cards too).
CARD_POINTS: tuple[int, ...] = (
    0,
    *(
        20 if c.mask & LIGHTS else 10 if c.mask & ANIMALS else 5 if c.mask & RIBBONS else 1
        for c in Card
    ),
)

#: The dekiyaku as (pool, cards needed, points): each is paid by the two other players.
TARGETS: tuple[tuple[int, int, int], ...] = (
    (POETRY_RIBBONS, 3, DEKIYAKU_VALUES[DekiyakuId.AKATAN]),
    (BLUE_RIBBONS, 3, DEKIYAKU_VALUES[DekiyakuId.AOTAN]),
    (INOSHIKACHO, 3, DEKIYAKU_VALUES[DekiyakuId.INOSHIKACHO]),
    (HH_RIBBONS, 7, DEKIYAKU_VALUES[DekiyakuId.SEVEN_RIBBONS]),
    (HH_LIGHTS, 4, DEKIYAKU_VALUES[DekiyakuId.FOUR_LIGHTS]),
    (HH_PLAINS, 16, DEKIYAKU_VALUES[DekiyakuId.PLAINS_16]),
)
#: How much of a dekiyaku's payment (from both others) its progress is worth before it forms.
PROGRESS_WEIGHT = 0.5


#: The cards of each count of points, as (mask, points): by kind, so that a set's points are
#: four bit counts.
_BY_POINTS: tuple[tuple[int, int], ...] = tuple(
    (sum(1 << c for c in Card if CARD_POINTS[c] == points), points) for points in (20, 10, 5, 1)
)


def card_worth(cards: int) -> int:
    """The card points of a set.

    >>> card_worth(Card.PINE_CRANE.mask | Card.PINE_RIBBON.mask | Card.PINE_PLAIN_1.mask)
    26
    """
    return sum(points * (cards & mask).bit_count() for mask, points in _BY_POINTS)


def worth(captured: int, blocked: int) -> float:
    """The card points of ``captured`` and its progress toward the dekiyaku it can still form,
    ``blocked`` being the cards the player can no longer take (the others' captures)."""
    total = float(card_worth(captured))
    for pool, need, points in TARGETS:
        have = (captured & pool).bit_count()
        if not have or have >= need or (pool & ~blocked).bit_count() < need:
            continue
        share = have / need
        total += 2 * points * PROGRESS_WEIGHT * share * share
    return total


def near(captured: int, blocked: int) -> bool:
    """Whether the captures are one card short of a dekiyaku they can still form."""
    for pool, need, _ in TARGETS:
        have = (captured & pool).bit_count()
        if have == need - 1 and (pool & ~blocked).bit_count() >= need:
            return True
    return False
