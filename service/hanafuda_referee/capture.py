"""The capture rule both games share: a card meets the field.

Let M be the field cards of the card's month. With no match the card joins the field; with one it
takes that card; with two the player names which one (the *target*); with three it takes all
four. A card that matches must capture. Card sets are bit masks (see :mod:`hanafuda_referee.cards`).

>>> from hanafuda_referee.cards import Card, mask_of, cards_of
>>> field = mask_of([Card.PINE_PLAIN_1, Card.PINE_PLAIN_2, Card.MAPLE_DEER])
>>> cards_of(matches(field, Card.PINE_CRANE))
(<Card.PINE_PLAIN_1: 3>, <Card.PINE_PLAIN_2: 4>)
>>> try:
...     resolve(field, Card.PINE_CRANE, 0)
... except MoveRejected as rejection:
...     print(rejection.reason.value, "-", rejection.message)
TARGET_REQUIRED - pine-crane matches two field cards: name the one to take (pine-plain-1 or ...
>>> taken = resolve(field, Card.PINE_CRANE, Card.PINE_PLAIN_2)
>>> cards_of(taken)
(<Card.PINE_CRANE: 1>, <Card.PINE_PLAIN_2: 4>)
"""

from __future__ import annotations

from hanafuda_referee.cards import MONTH_MASKS, MONTH_OF, Card, cards_of
from hanafuda_referee.errors import MoveRejected, Reason

__all__ = [
    "capture_options",
    "check_hand_play",
    "matches",
    "needs_target",
    "resolve",
    "take_chosen",
]


def check_hand_play(hand: int, card: int, target: int) -> None:
    """Refuse a play of ``card`` (naming ``target``, 0 for none) from ``hand`` unless the card is
    in the hand and the target, when named, is a card. Whether the target matches is
    :func:`resolve`'s to decide.

    >>> from hanafuda_referee.cards import mask_of
    >>> hand = mask_of([Card.PINE_CRANE])
    >>> check_hand_play(hand, Card.PINE_CRANE, 0)
    >>> for card in (Card.MAPLE_DEER, 0, 99):
    ...     try:
    ...         check_hand_play(hand, card, 0)
    ...     except MoveRejected as rejection:
    ...         print(rejection.reason.value, "-", rejection.message)
    CARD_NOT_IN_HAND - maple-deer is not in your hand
    CARD_NOT_IN_HAND - a play names the hand card it plays, and this one names none
    CARD_NOT_IN_HAND - 99 is not a card
    """
    if not 1 <= card <= 48:
        raise MoveRejected(
            Reason.CARD_NOT_IN_HAND,
            f"{card} is not a card"
            if card
            else "a play names the hand card it plays, and this one names none",
        )
    if not (hand >> card) & 1:
        raise MoveRejected(Reason.CARD_NOT_IN_HAND, f"{Card(card).code} is not in your hand")
    if target and not 1 <= target <= 48:
        raise MoveRejected(Reason.TARGET_DOES_NOT_MATCH, f"{target} is not a card")


def matches(field: int, card: int) -> int:
    """The field cards of ``card``'s month."""
    return field & MONTH_MASKS[MONTH_OF[card]]


def needs_target(field: int, card: int) -> bool:
    """Whether ``card`` meets exactly two field cards, so that its player must name one."""
    return (field & MONTH_MASKS[MONTH_OF[card]]).bit_count() == 2


def resolve(field: int, card: int, target: int) -> int:
    """The cards ``card`` captures from ``field`` (the card itself included), or 0 when it joins
    the field.

    ``target`` (a card number, 0 for none) is required when two field cards match, and may name
    the match when one or three do; a target that is not a field card of the card's month is
    refused. Raises :class:`MoveRejected` with ``TARGET_REQUIRED`` or ``TARGET_DOES_NOT_MATCH``.
    """
    m = field & MONTH_MASKS[MONTH_OF[card]]
    if target and not (m >> target) & 1:
        raise MoveRejected(
            Reason.TARGET_DOES_NOT_MATCH,
            f"{Card(card).code} cannot take {Card(target).code}: "
            + (
                "it is not on the field"
                if not (field >> target) & 1
                else "it is not of the same month"
            ),
        )
    if not m:
        return 0
    n = m.bit_count()
    if n == 2:
        if not target:
            a, b = cards_of(m)
            raise MoveRejected(
                Reason.TARGET_REQUIRED,
                f"{Card(card).code} matches two field cards: name the one to take "
                f"({a.code} or {b.code})",
            )
        return (1 << card) | (1 << target)
    return (1 << card) | m


def capture_options(field: int, card: int) -> tuple[int, ...]:
    """Every capture ``card`` could make on ``field``, as sets (the card itself included).

    One entry (0 when the card would join the field), or two when the player must choose.

    >>> from hanafuda_referee.cards import Card, mask_of
    >>> field = mask_of([Card.PINE_PLAIN_1, Card.PINE_PLAIN_2, Card.PINE_RIBBON])
    >>> capture_options(field, Card.PINE_CRANE) == (field | Card.PINE_CRANE.mask,)
    True
    """
    m = field & MONTH_MASKS[MONTH_OF[card]]
    if m.bit_count() == 2:
        low = m & -m
        return ((1 << card) | low, (1 << card) | (m ^ low))
    return ((1 << card) | m,) if m else (0,)


def take_chosen(field: int, card: int, target: int) -> int:
    """The cards a drawn ``card`` takes once its player names ``target``, the drawn card waiting
    on two matches (the card itself included).

    Raises :class:`MoveRejected` (``TARGET_DOES_NOT_MATCH``) naming the two options when
    ``target`` is not one of them.
    """
    options = field & MONTH_MASKS[MONTH_OF[card]]
    if not 1 <= target <= 48 or not (options >> target) & 1:
        names = " or ".join(c.code for c in cards_of(options))
        raise MoveRejected(
            Reason.TARGET_DOES_NOT_MATCH,
            f"the drawn {Card(card).code} can take {names}, not "
            f"{Card(target).code if 1 <= target <= 48 else target}",
        )
    return (1 << card) | (1 << target)
