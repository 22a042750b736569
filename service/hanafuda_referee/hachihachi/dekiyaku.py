"""Dekiyaku: the capture combinations paid during play (RULES.md 2.4 and 2.6).

:func:`dekiyaku_of` lists every dekiyaku a player's captures form. They add up, except on the two
*ladders*, where only the highest rung held is listed: four-lights → five-lights, and
plains-16 → -17 → -18 → -19. :func:`dekiyaku_payment` says what a turn's captures pay given what
the player was already paid this round; the game flow calls it once per turn, after the draw.

>>> from hanafuda_referee.cards import POETRY_RIBBONS, BLUE_RIBBONS
>>> [(d.id.value, d.value) for d in dekiyaku_of(POETRY_RIBBONS | BLUE_RIBBONS)]
[('akatan', 35), ('aotan', 35)]
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple

from hanafuda_referee.cards import BLUE_RIBBONS, LIGHTS, POETRY_RIBBONS, Card, mask_of
from hanafuda_referee.hachihachi.inputs import check_cards
from hanafuda_referee.hachihachi.kinds import HH_LIGHTS, HH_PLAINS, HH_RIBBONS

__all__ = [
    "DEKIYAKU_VALUES",
    "INOSHIKACHO",
    "LADDER_OF",
    "Dekiyaku",
    "DekiyakuDue",
    "DekiyakuId",
    "DekiyakuPayment",
    "Ladder",
    "dekiyaku_of",
    "dekiyaku_payment",
]


class DekiyakuId(StrEnum):
    """The dekiyaku formed during play, in the order of the spec's table. Values are the ids."""

    AKATAN = "akatan"
    AOTAN = "aotan"
    INOSHIKACHO = "inoshikacho"
    SEVEN_RIBBONS = "seven-ribbons"
    FOUR_LIGHTS = "four-lights"
    FIVE_LIGHTS = "five-lights"
    PLAINS_16 = "plains-16"
    PLAINS_17 = "plains-17"
    PLAINS_18 = "plains-18"
    PLAINS_19 = "plains-19"


class Ladder(StrEnum):
    """A group of dekiyaku of which a higher rung replaces a lower one."""

    LIGHTS = "lights"
    PLAINS = "plains"


#: Points of each dekiyaku (before the field multiplier).
DEKIYAKU_VALUES: dict[DekiyakuId, int] = {
    DekiyakuId.AKATAN: 35,
    DekiyakuId.AOTAN: 35,
    DekiyakuId.INOSHIKACHO: 35,
    DekiyakuId.SEVEN_RIBBONS: 50,
    DekiyakuId.FOUR_LIGHTS: 50,
    DekiyakuId.FIVE_LIGHTS: 75,
    DekiyakuId.PLAINS_16: 50,
    DekiyakuId.PLAINS_17: 60,
    DekiyakuId.PLAINS_18: 75,
    DekiyakuId.PLAINS_19: 100,
}

#: The ladder of each dekiyaku that is on one.
LADDER_OF: dict[DekiyakuId, Ladder] = {
    DekiyakuId.FOUR_LIGHTS: Ladder.LIGHTS,
    DekiyakuId.FIVE_LIGHTS: Ladder.LIGHTS,
    DekiyakuId.PLAINS_16: Ladder.PLAINS,
    DekiyakuId.PLAINS_17: Ladder.PLAINS,
    DekiyakuId.PLAINS_18: Ladder.PLAINS,
    DekiyakuId.PLAINS_19: Ladder.PLAINS,
}

INOSHIKACHO: int = mask_of([Card.CLOVER_BOAR, Card.MAPLE_DEER, Card.PEONY_BUTTERFLIES])
_SEVEN_RIBBONS_NEEDED = 7
_PLAINS_NEEDED = 16
# Twenty or more plains are still plains-19 (RULES.md 2.6).
_PLAINS_RUNGS: dict[int, DekiyakuId] = {
    16: DekiyakuId.PLAINS_16,
    17: DekiyakuId.PLAINS_17,
    18: DekiyakuId.PLAINS_18,
    19: DekiyakuId.PLAINS_19,
}


class Dekiyaku(NamedTuple):
    """A dekiyaku the captures form: its id, its points and the captured cards that make it."""

    id: DekiyakuId
    value: int
    #: The cards that make it (a bit mask): every card of its kind the player holds.
    cards: int


def _make(dekiyaku: DekiyakuId, cards: int) -> Dekiyaku:
    return Dekiyaku(dekiyaku, DEKIYAKU_VALUES[dekiyaku], cards)


def dekiyaku_of(captured: int) -> tuple[Dekiyaku, ...]:
    """Every dekiyaku the ``captured`` cards form, in table order; on a ladder only the top rung.

    Seven-ribbons counts the nine ribbons other than the willow's, four-lights the four lights
    other than the rain man; the plains count every willow card as a plain, so the rain man may
    count both in five-lights and as a plain.

    >>> from hanafuda_referee.cards import LIGHTS, PLAINS
    >>> [(d.id.value, d.value) for d in dekiyaku_of(LIGHTS | PLAINS)]
    [('five-lights', 75), ('plains-19', 100)]

    Raises :class:`~.inputs.BadCardsError` unless ``captured`` is a set of cards.
    """
    check_cards(captured, what="captures")
    found: list[Dekiyaku] = []
    if captured & POETRY_RIBBONS == POETRY_RIBBONS:
        found.append(_make(DekiyakuId.AKATAN, POETRY_RIBBONS))
    if captured & BLUE_RIBBONS == BLUE_RIBBONS:
        found.append(_make(DekiyakuId.AOTAN, BLUE_RIBBONS))
    if captured & INOSHIKACHO == INOSHIKACHO:
        found.append(_make(DekiyakuId.INOSHIKACHO, INOSHIKACHO))
    ribbons = captured & HH_RIBBONS
    if ribbons.bit_count() >= _SEVEN_RIBBONS_NEEDED:
        found.append(_make(DekiyakuId.SEVEN_RIBBONS, ribbons))
    if captured & LIGHTS == LIGHTS:
        found.append(_make(DekiyakuId.FIVE_LIGHTS, LIGHTS))
    elif captured & HH_LIGHTS == HH_LIGHTS:
        found.append(_make(DekiyakuId.FOUR_LIGHTS, HH_LIGHTS))
    plains = captured & HH_PLAINS
    if plains.bit_count() >= _PLAINS_NEEDED:
        found.append(_make(_PLAINS_RUNGS[min(plains.bit_count(), 19)], plains))
    return tuple(found)


class DekiyakuDue(NamedTuple):
    """One dekiyaku paid this turn, and the points each other player owes for it (its value, or
    the difference over a lower rung already paid)."""

    dekiyaku: Dekiyaku
    points: int


class DekiyakuPayment(NamedTuple):
    """What a turn's dekiyaku pay the player who formed them."""

    #: The dekiyaku newly paid this turn, in table order.
    dues: tuple[DekiyakuDue, ...]
    #: Their total: what each other player owes, before the field multiplier. 0 means no new
    #: dekiyaku this turn, so no shōbu/sage decision.
    points: int
    #: Every dekiyaku paid to this player this round, these included: pass it to the next call.
    paid: frozenset[DekiyakuId]


def dekiyaku_payment(
    already_paid: Iterable[DekiyakuId], formed: Iterable[Dekiyaku]
) -> DekiyakuPayment:
    """What the dekiyaku ``formed`` (the player's :func:`dekiyaku_of` now) pay, given the ids
    ``already_paid`` to him earlier this round.

    A dekiyaku already paid pays nothing again; a higher rung of a ladder pays only what it adds
    over the highest rung already paid (RULES.md 2.4).

    >>> from hanafuda_referee.cards import LIGHTS
    >>> from hanafuda_referee.hachihachi.kinds import HH_LIGHTS
    >>> first = dekiyaku_payment((), dekiyaku_of(HH_LIGHTS))
    >>> first.points, sorted(first.paid)
    (50, [<DekiyakuId.FOUR_LIGHTS: 'four-lights'>])
    >>> later = dekiyaku_payment(first.paid, dekiyaku_of(LIGHTS))
    >>> later.points, [due.dekiyaku.id.value for due in later.dues]
    (25, ['five-lights'])
    >>> dekiyaku_payment(later.paid, dekiyaku_of(LIGHTS)).points
    0
    """
    paid = frozenset(already_paid)
    # What each ladder has already paid: the value of its highest rung paid.
    credit: dict[Ladder, int] = {}
    for paid_id in paid:
        ladder = LADDER_OF.get(paid_id)
        if ladder is not None:
            credit[ladder] = max(credit.get(ladder, 0), DEKIYAKU_VALUES[paid_id])
    dues: list[DekiyakuDue] = []
    for dekiyaku in formed:
        if dekiyaku.id in paid:
            continue
        ladder = LADDER_OF.get(dekiyaku.id)
        due = dekiyaku.value - (credit.get(ladder, 0) if ladder is not None else 0)
        if due > 0:
            dues.append(DekiyakuDue(dekiyaku, due))
    return DekiyakuPayment(
        tuple(dues),
        sum(due.points for due in dues),
        paid | {due.dekiyaku.id for due in dues},
    )
