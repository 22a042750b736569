"""The check every Hachi-Hachi scoring function makes of the card sets it is given.

>>> from hanafuda_referee.cards import Card
>>> check_cards(Card.PINE_CRANE.mask | Card.MAPLE_DEER.mask, size=2, what="pair")
>>> check_cards(1, what="captures")
Traceback (most recent call last):
...
hanafuda_referee.hachihachi.inputs.BadCardsError: captures: not a set of deck cards
"""

from __future__ import annotations

from hanafuda_referee.cards import DECK
from hanafuda_referee.errors import Reason

__all__ = ["BadCardsError", "check_cards"]


class BadCardsError(ValueError):
    """A card set (or a card count) that cannot be what the caller says it is.

    It is a ``ValueError``, and carries :attr:`Reason.BAD_CARDS` so that a transport can map it
    like any other refusal.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.reason: Reason = Reason.BAD_CARDS
        self.message = message


def check_cards(mask: int, *, size: int | None = None, what: str = "cards") -> None:
    """Raise :class:`BadCardsError` unless ``mask`` is a set of deck cards (bits 1 to 48 only),
    of exactly ``size`` cards when ``size`` is given."""
    if mask < 0 or mask & ~DECK:
        raise BadCardsError(f"{what}: not a set of deck cards")
    if size is not None and mask.bit_count() != size:
        raise BadCardsError(f"{what}: {mask.bit_count()} cards, expected {size}")
