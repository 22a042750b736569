"""The hanafuda deck: 48 cards, their months, kinds and codes, and card sets as bit masks.

A card is a :class:`Card`, an ``IntEnum`` numbered 1 to 48 in the order of the spec's deck table
(the same numbers as the protobuf enum). A *set* of cards is a plain ``int`` bit mask in which card
``c`` is bit ``1 << c``; set operations are then single integer operations, which keeps the rules
engine's hot path free of lists of objects.

>>> Card.PINE_CRANE.code
'pine-crane'
>>> Card.from_code("willow-lightning").month
11
>>> cards_of(mask_of([Card.MAPLE_DEER, Card.PINE_CRANE]))
(<Card.PINE_CRANE: 1>, <Card.MAPLE_DEER: 37>)
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

__all__ = [
    "ALL_CARDS",
    "ANIMALS",
    "BLUE_RIBBONS",
    "DECK",
    "LIGHTS",
    "MONTH_MASKS",
    "MONTH_OF",
    "PLAINS",
    "POETRY_RIBBONS",
    "RED_RIBBONS",
    "RIBBONS",
    "WILLOWS",
    "Card",
    "Kind",
    "RibbonColour",
    "bit",
    "cards_of",
    "full_months",
    "mask_of",
    "month_counts",
]


class Kind(IntEnum):
    """What a card is worth in the yaku: light (hikari), animal (tane), ribbon (tan), plain."""

    LIGHT = 1
    ANIMAL = 2
    RIBBON = 3
    PLAIN = 4


class RibbonColour(IntEnum):
    """The colour of a ribbon card: poetry (akatan), blue (aotan) or plain red."""

    POETRY = 1
    BLUE = 2
    RED = 3


class Card(IntEnum):
    """One of the 48 cards, numbered as in the spec (and the protobuf ``Card`` enum)."""

    PINE_CRANE = 1
    PINE_RIBBON = 2
    PINE_PLAIN_1 = 3
    PINE_PLAIN_2 = 4
    PLUM_WARBLER = 5
    PLUM_RIBBON = 6
    PLUM_PLAIN_1 = 7
    PLUM_PLAIN_2 = 8
    CHERRY_CURTAIN = 9
    CHERRY_RIBBON = 10
    CHERRY_PLAIN_1 = 11
    CHERRY_PLAIN_2 = 12
    WISTERIA_CUCKOO = 13
    WISTERIA_RIBBON = 14
    WISTERIA_PLAIN_1 = 15
    WISTERIA_PLAIN_2 = 16
    IRIS_BRIDGE = 17
    IRIS_RIBBON = 18
    IRIS_PLAIN_1 = 19
    IRIS_PLAIN_2 = 20
    PEONY_BUTTERFLIES = 21
    PEONY_RIBBON = 22
    PEONY_PLAIN_1 = 23
    PEONY_PLAIN_2 = 24
    CLOVER_BOAR = 25
    CLOVER_RIBBON = 26
    CLOVER_PLAIN_1 = 27
    CLOVER_PLAIN_2 = 28
    SUSUKI_MOON = 29
    SUSUKI_GEESE = 30
    SUSUKI_PLAIN_1 = 31
    SUSUKI_PLAIN_2 = 32
    CHRYSANTHEMUM_SAKE = 33
    CHRYSANTHEMUM_RIBBON = 34
    CHRYSANTHEMUM_PLAIN_1 = 35
    CHRYSANTHEMUM_PLAIN_2 = 36
    MAPLE_DEER = 37
    MAPLE_RIBBON = 38
    MAPLE_PLAIN_1 = 39
    MAPLE_PLAIN_2 = 40
    WILLOW_RAINMAN = 41
    WILLOW_SWALLOW = 42
    WILLOW_RIBBON = 43
    WILLOW_LIGHTNING = 44
    PAULOWNIA_PHOENIX = 45
    PAULOWNIA_YELLOW = 46
    PAULOWNIA_PLAIN_1 = 47
    PAULOWNIA_PLAIN_2 = 48

    @property
    def month(self) -> int:
        """The card's month, 1 (pine) to 12 (paulownia)."""
        return MONTH_OF[self]

    @property
    def kind(self) -> Kind:
        """The card's kind as printed (the sake cup is an animal; rules may also count it as a
        plain)."""
        return _KIND_OF[self]

    @property
    def ribbon_colour(self) -> RibbonColour | None:
        """The ribbon's colour, or ``None`` for a card that is not a ribbon."""
        return _COLOUR_OF.get(self)

    @property
    def code(self) -> str:
        """The stable kebab-case code, e.g. ``'susuki-moon'``."""
        return self.name.lower().replace("_", "-")

    @property
    def mask(self) -> int:
        """The card as a one-card set."""
        return 1 << self

    @classmethod
    def from_code(cls, code: str) -> Card:
        """The card with this code.

        >>> Card.from_code("paulownia-yellow")
        <Card.PAULOWNIA_YELLOW: 46>

        Raises ``ValueError`` naming the code when no card has it.
        """
        try:
            return _BY_CODE[code]
        except KeyError:
            raise ValueError(f"unknown card code {code!r}") from None

    def __str__(self) -> str:
        return self.code


ALL_CARDS: tuple[Card, ...] = tuple(Card)

#: ``MONTH_OF[c]`` is card ``c``'s month (index 0 unused), as a plain tuple for speed.
MONTH_OF: tuple[int, ...] = (0, *((c - 1) // 4 + 1 for c in range(1, 49)))

_LIGHT_CARDS = (
    Card.PINE_CRANE,
    Card.CHERRY_CURTAIN,
    Card.SUSUKI_MOON,
    Card.WILLOW_RAINMAN,
    Card.PAULOWNIA_PHOENIX,
)
_ANIMAL_CARDS = (
    Card.PLUM_WARBLER,
    Card.WISTERIA_CUCKOO,
    Card.IRIS_BRIDGE,
    Card.PEONY_BUTTERFLIES,
    Card.CLOVER_BOAR,
    Card.SUSUKI_GEESE,
    Card.CHRYSANTHEMUM_SAKE,
    Card.MAPLE_DEER,
    Card.WILLOW_SWALLOW,
)
_COLOUR_OF: dict[Card, RibbonColour] = {
    Card.PINE_RIBBON: RibbonColour.POETRY,
    Card.PLUM_RIBBON: RibbonColour.POETRY,
    Card.CHERRY_RIBBON: RibbonColour.POETRY,
    Card.PEONY_RIBBON: RibbonColour.BLUE,
    Card.CHRYSANTHEMUM_RIBBON: RibbonColour.BLUE,
    Card.MAPLE_RIBBON: RibbonColour.BLUE,
    Card.WISTERIA_RIBBON: RibbonColour.RED,
    Card.IRIS_RIBBON: RibbonColour.RED,
    Card.CLOVER_RIBBON: RibbonColour.RED,
    Card.WILLOW_RIBBON: RibbonColour.RED,
}
_KIND_OF: dict[Card, Kind] = {
    c: Kind.LIGHT
    if c in _LIGHT_CARDS
    else Kind.ANIMAL
    if c in _ANIMAL_CARDS
    else Kind.RIBBON
    if c in _COLOUR_OF
    else Kind.PLAIN
    for c in Card
}
_BY_CODE: dict[str, Card] = {c.code: c for c in Card}


def bit(card: int) -> int:
    """The one-card set holding ``card``."""
    return 1 << card


def mask_of(cards: Iterable[int]) -> int:
    """The set holding ``cards``.

    >>> mask_of([Card.PINE_CRANE]) == Card.PINE_CRANE.mask
    True
    """
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a set, in card-number order."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(Card(low.bit_length() - 1))
        mask ^= low
    return tuple(cards)


def full_months(mask: int) -> int:
    """The cards of every month of which the set holds all four, in the same steps whatever it
    holds (a generator with a filter would stop once per month kept): a deal checks hidden
    hands with it, and a replay of the game checks them again.

    >>> full_months(MONTH_MASKS[3] | 1 << 1) == MONTH_MASKS[3]
    True
    """
    return sum([m for m in MONTH_MASKS[1:] if mask & m == m])


def month_counts(mask: int) -> list[int]:
    """How many cards of each month the set holds; index 0 is unused, 1..12 are the months."""
    return [0] + [(mask & MONTH_MASKS[m]).bit_count() for m in range(1, 13)]


#: Every card of the deck.
DECK: int = mask_of(Card)
#: ``MONTH_MASKS[m]`` holds the four cards of month ``m`` (index 0 is the empty set).
MONTH_MASKS: tuple[int, ...] = (0, *(mask_of(range(4 * m - 3, 4 * m + 1)) for m in range(1, 13)))
LIGHTS: int = mask_of(_LIGHT_CARDS)
ANIMALS: int = mask_of(_ANIMAL_CARDS)
RIBBONS: int = mask_of(_COLOUR_OF)
PLAINS: int = DECK & ~(LIGHTS | ANIMALS | RIBBONS)
POETRY_RIBBONS: int = mask_of(c for c, col in _COLOUR_OF.items() if col is RibbonColour.POETRY)
BLUE_RIBBONS: int = mask_of(c for c, col in _COLOUR_OF.items() if col is RibbonColour.BLUE)
RED_RIBBONS: int = mask_of(c for c, col in _COLOUR_OF.items() if col is RibbonColour.RED)
WILLOWS: int = MONTH_MASKS[11]
