"""Deals: who holds what, what lies on the field, the stock order; shuffled or prepared.

Randomness is injected: a game carries a seed, and deal number ``k`` of that game is shuffled by a
private ``random.Random`` seeded from ``(seed, k)`` alone, so the same seed always gives the same
deals and no global random state is touched. A caller may also prepare deals (tests, replays of
recorded games); each deal of the game takes the next prepared one, and shuffles start after them.

>>> deal = shuffled_deal(seed=7, number=0, seats=2, hand_size=8, field_size=8)
>>> [len(h) for h in deal.hands], len(deal.field), len(deal.stock)
([8, 8], 8, 24)
>>> deal == shuffled_deal(seed=7, number=0, seats=2, hand_size=8, field_size=8)
True
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence
from typing import NamedTuple

from hanafuda_referee.cards import Card, mask_of
from hanafuda_referee.errors import Reason, RulesError

__all__ = ["Deal", "check_deal", "deal_from_deck", "rng_for", "shuffled_deal", "shuffled_deck"]

#: Deal numbers stay below this; the first-dealer draw uses the number just past it.
_STREAMS_PER_SEED = 1 << 16
FIRST_DEALER_STREAM = _STREAMS_PER_SEED - 1


class Deal(NamedTuple):
    """One deal: each seat's hand, the field, and the stock with its top card first.

    ``stock_after_drops`` is for a game where some participants drop their hands before play
    (Hachi-Hachi with 4 to 6): the stock once the dropped hands have joined it, top card first,
    or empty to leave that order to the game's seed.
    """

    hands: tuple[tuple[int, ...], ...]
    field: tuple[int, ...]
    stock: tuple[int, ...]
    stock_after_drops: tuple[int, ...] = ()

    def hand_masks(self) -> tuple[int, ...]:
        return tuple(mask_of(h) for h in self.hands)


def rng_for(seed: int, stream: int) -> random.Random:
    """The private random source of one deal (or of the first-dealer draw) of a game."""
    return random.Random(seed * _STREAMS_PER_SEED + stream)


#: 48 little-endian 64-bit sort keys, after 8 padding bytes: card ``c``'s key is ``keys[c]``.
_SORT_KEYS = struct.Struct("<49Q")
_KEY_PADDING = bytes(8)
_CARDS = range(1, 49)


def shuffled_deck(rng: random.Random) -> list[int]:
    """The 48 card numbers in a uniformly random order.

    Sorting by 64-bit random keys drawn in one call is several times faster than
    ``random.shuffle``'s card-by-card draws; two equal keys among 48 (the only source of bias)
    happen about once in 10**16 shuffles. Card ``c`` sorts by the ``c``-th key (its position
    in the tuple, thanks to the padding), looked up by a C method rather than a lambda.
    """
    keys = _SORT_KEYS.unpack(_KEY_PADDING + rng.getrandbits(48 * 64).to_bytes(48 * 8, "little"))
    return sorted(_CARDS, key=keys.__getitem__)


def shuffled_deal(seed: int, number: int, seats: int, hand_size: int, field_size: int) -> Deal:
    """Deal number ``number`` of the game with this seed, from a fair shuffle of the 48 cards.

    Hands are dealt first (seat 0 first), then the field; the rest is the stock.
    """
    if not 0 <= number < FIRST_DEALER_STREAM:
        raise ValueError(f"deal number {number} out of range")
    return deal_from_deck(shuffled_deck(rng_for(seed, number)), seats, hand_size, field_size)


def deal_from_deck(deck: Sequence[int], seats: int, hand_size: int, field_size: int) -> Deal:
    """The deal of a deck in this order: hands first (seat 0 first), then the field; the rest
    is the stock, top card first."""
    hands = tuple(tuple(deck[i * hand_size : (i + 1) * hand_size]) for i in range(seats))
    at = seats * hand_size
    return Deal(hands, tuple(deck[at : at + field_size]), tuple(deck[at + field_size :]))


def check_deal(
    deal: Deal, seats: int, hand_size: int, field_size: int, players: int | None = None
) -> Deal:
    """A prepared deal, validated: the right sizes, and the 48 cards each exactly once.

    ``players`` is how many of the ``seats`` play once the others have dropped their hands
    (None: every seat plays). Only then may the deal have a stock after the drops, which must
    hold the stock and whole hands, as many as drop: ``seats - players``.

    Raises :class:`RulesError` with ``BAD_DEAL`` saying what is wrong.

    >>> deal = shuffled_deal(seed=1, number=0, seats=4, hand_size=7, field_size=6)
    >>> after = deal.hands[2] + deal.stock
    >>> check_deal(deal._replace(stock_after_drops=after), 4, 7, 6, players=3) is not None
    True
    >>> check_deal(deal._replace(stock_after_drops=after), 4, 7, 6)
    Traceback (most recent call last):
    ...
    hanafuda_referee.errors.RulesError: a stock after drops needs participants who drop
    """
    if len(deal.hands) != seats:
        raise RulesError(Reason.BAD_DEAL, f"a deal needs {seats} hands, got {len(deal.hands)}")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != hand_size:
            raise RulesError(
                Reason.BAD_DEAL, f"hand {seat} needs {hand_size} cards, got {len(hand)}"
            )
    if len(deal.field) != field_size:
        raise RulesError(
            Reason.BAD_DEAL, f"the field needs {field_size} cards, got {len(deal.field)}"
        )
    cards = [c for hand in deal.hands for c in hand] + list(deal.field) + list(deal.stock)
    bad = [c for c in cards if not 1 <= c <= 48]
    if bad:
        raise RulesError(Reason.BAD_DEAL, f"not a card number: {bad[0]}")
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise RulesError(Reason.BAD_DEAL, f"{Card(c).code} is dealt twice")
        seen.add(c)
    if len(seen) != 48:
        missing = sorted(set(range(1, 49)) - seen)
        raise RulesError(
            Reason.BAD_DEAL,
            f"a deal holds all 48 cards; missing: {', '.join(Card(c).code for c in missing)}",
        )
    if deal.stock_after_drops:
        _check_stock_after_drops(deal, seats - (seats if players is None else players))
    return Deal(
        tuple(tuple(int(c) for c in h) for h in deal.hands),
        tuple(int(c) for c in deal.field),
        tuple(int(c) for c in deal.stock),
        tuple(int(c) for c in deal.stock_after_drops),
    )


def _check_stock_after_drops(deal: Deal, dropping: int) -> None:
    """The stock after drops of a deal whose cards are checked: the stock's cards and those of
    ``dropping`` whole hands, each once (with its size right, whole hands leave no room for a
    field card)."""
    if dropping <= 0:
        raise RulesError(Reason.BAD_DEAL, "a stock after drops needs participants who drop")
    after = deal.stock_after_drops
    size = len(deal.stock) + dropping * len(deal.hands[0])
    if len(after) != size:
        raise RulesError(
            Reason.BAD_DEAL, f"the stock after drops needs {size} cards, got {len(after)}"
        )
    bad = [c for c in after if not 1 <= c <= 48]
    if bad:
        raise RulesError(Reason.BAD_DEAL, f"not a card number: {bad[0]}")
    held = mask_of(after)
    if held.bit_count() != len(after):
        raise RulesError(Reason.BAD_DEAL, "the stock after drops holds a card twice")
    stock = mask_of(deal.stock)
    if held & stock != stock:
        raise RulesError(Reason.BAD_DEAL, "the stock after drops lacks cards of the stock")
    for seat, hand in enumerate(deal.hands):
        part = held & mask_of(hand)
        if part and part != mask_of(hand):
            raise RulesError(
                Reason.BAD_DEAL,
                f"the stock after drops holds part of hand {seat}: dropped hands join it whole",
            )
