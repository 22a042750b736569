"""The field dealt at the start of a round: its multiplier, its carry-over, the redeal check
(RULES.md 2.1 and 2.6).

Every function reads the six cards dealt face up, never the field as play changes it.

>>> from hanafuda_referee.cards import Card, mask_of
>>> field = mask_of([Card.PINE_CRANE, Card.SUSUKI_MOON, Card.PLUM_PLAIN_1,
...                  Card.IRIS_PLAIN_1, Card.MAPLE_DEER, Card.PAULOWNIA_YELLOW])
>>> field_multiplier(field), carry_floor(field), field_has_four(field)
(2, 2, False)
"""

from __future__ import annotations

from hanafuda_referee.cards import Card, full_months, mask_of
from hanafuda_referee.hachihachi.inputs import check_cards

__all__ = [
    "BIG_FIELD_LIGHTS",
    "FIELD_SIZE",
    "GRAND_FIELD_LIGHTS",
    "MULTIPLIERS",
    "carry_floor",
    "field_has_four",
    "field_multiplier",
]

FIELD_SIZE = 6
#: The field multipliers that exist: small, big and grand field.
MULTIPLIERS: tuple[int, ...] = (1, 2, 4)
#: Crane, curtain, moon: any of them makes a big field (×2).
BIG_FIELD_LIGHTS: int = mask_of([Card.PINE_CRANE, Card.CHERRY_CURTAIN, Card.SUSUKI_MOON])
#: Rain man, phoenix: either makes a grand field (×4).
GRAND_FIELD_LIGHTS: int = mask_of([Card.WILLOW_RAINMAN, Card.PAULOWNIA_PHOENIX])


def field_multiplier(field: int, floor: int = 1) -> int:
    """The round's multiplier: ×4 with the rain man or phoenix on the dealt ``field``, else ×2 with
    the crane, curtain or moon, else ×1; never below ``floor``, the floor carried from the round
    before (:func:`carry_floor`).

    >>> from hanafuda_referee.cards import Card, mask_of
    >>> small = mask_of([Card.PINE_PLAIN_1, Card.PLUM_PLAIN_1, Card.CHERRY_PLAIN_1,
    ...                  Card.IRIS_PLAIN_1, Card.MAPLE_DEER, Card.PAULOWNIA_YELLOW])
    >>> field_multiplier(small), field_multiplier(small, floor=4)
    (1, 4)

    Raises :class:`~.inputs.BadCardsError` unless ``field`` is six cards, and ``ValueError`` for a
    ``floor`` other than 1, 2 or 4.
    """
    check_cards(field, size=FIELD_SIZE, what="field")
    if floor not in MULTIPLIERS:
        raise ValueError(f"floor must be 1, 2 or 4, not {floor}")
    if field & GRAND_FIELD_LIGHTS:
        own = 4
    elif field & BIG_FIELD_LIGHTS:
        own = 2
    else:
        own = 1
    return max(own, floor)


def carry_floor(field: int) -> int:
    """The least multiplier the next round inherits from this round's dealt ``field``: 4 when
    both the rain man and the phoenix lie there, 2 when two or three of crane, curtain and moon
    do, 1 otherwise. Only the round's own field counts, so a carried floor never carries again.

    >>> from hanafuda_referee.cards import Card, mask_of
    >>> field = mask_of([Card.WILLOW_RAINMAN, Card.PAULOWNIA_PHOENIX, Card.PLUM_PLAIN_1,
    ...                  Card.IRIS_PLAIN_1, Card.MAPLE_DEER, Card.PINE_CRANE])
    >>> carry_floor(field)
    4

    Raises :class:`~.inputs.BadCardsError` unless ``field`` is six cards.
    """
    check_cards(field, size=FIELD_SIZE, what="field")
    if field & GRAND_FIELD_LIGHTS == GRAND_FIELD_LIGHTS:
        return 4
    if (field & BIG_FIELD_LIGHTS).bit_count() >= 2:
        return 2
    return 1


def field_has_four(field: int) -> bool:
    """Whether the dealt ``field`` holds all four cards of one month (the deal is then redone:
    no payments, same dealer, same carried floor).

    >>> from hanafuda_referee.cards import MONTH_MASKS, Card
    >>> field_has_four(MONTH_MASKS[3] | Card.PINE_CRANE.mask | Card.MAPLE_DEER.mask)
    True

    Raises :class:`~.inputs.BadCardsError` unless ``field`` is six cards.
    """
    check_cards(field, size=FIELD_SIZE, what="field")
    return bool(full_months(field))
