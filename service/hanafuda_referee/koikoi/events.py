"""What happens in a Koi-Koi game, as the engine reports it.

Events carry the full truth (a deal event holds both hands); :func:`visible_to` projects one for a
seat or a spectator, so that a seat never learns another seat's hand or the stock order.
Card sets are bit masks (:mod:`hanafuda_referee.cards`).
"""

from __future__ import annotations

from typing import NamedTuple

from hanafuda_referee.koikoi.scoring import Yaku

__all__ = [
    "CardDrawn",
    "CardPlayed",
    "DealCheck",
    "Event",
    "FieldRefilled",
    "FirstDealerDrawn",
    "GameEnded",
    "KoiKoiCalled",
    "LightningCollected",
    "Resigned",
    "RoundDealt",
    "RoundEnded",
    "RoundResult",
    "Stopped",
    "TargetRequired",
    "YakuImproved",
    "visible_to",
]


class FirstDealerDrawn(NamedTuple):
    """Each seat drew a card (``draws``: one pair per try, seat 0's card first); ``dealer`` has
    the earlier month."""

    draws: tuple[tuple[int, int], ...]
    dealer: int


class RoundDealt(NamedTuple):
    """A deal (a redeal is another deal of the same round). ``hands`` hides in projections."""

    round: int
    month: int
    dealer: int
    hands: tuple[int, int]
    field: int
    stock_size: int


class DealCheck(NamedTuple):
    """A deal check fired: ``check`` (field_four, field_pairs, hand_four, hand_pairs), its
    ``outcome`` (redeal, void, win), the seats concerned and the cards that made it."""

    check: str
    outcome: str
    seats: tuple[int, ...]
    cards: int


class FieldRefilled(NamedTuple):
    """The field was empty: the top stock card was turned onto it."""

    card: int


class CardPlayed(NamedTuple):
    """``seat`` played ``card`` from the hand; ``captured`` holds it and what it took (0: it
    joined the field); ``wild``: the lightning took a card of another month."""

    seat: int
    card: int
    captured: int
    wild: bool = False


class TargetRequired(NamedTuple):
    """``seat`` drew ``card``, which matches the two ``options``: he must name one."""

    seat: int
    card: int
    options: int


class CardDrawn(NamedTuple):
    """``seat`` drew ``card``; ``captured`` holds it and what it took (0: it joined the field)."""

    seat: int
    card: int
    captured: int


class YakuImproved(NamedTuple):
    """``seat``'s yaku points rose this turn to ``points``; ``yaku`` are the counted yaku."""

    seat: int
    yaku: tuple[Yaku, ...]
    points: int


class KoiKoiCalled(NamedTuple):
    """``seat`` called koi-koi, for the ``calls``-th time this round."""

    seat: int
    calls: int


class Stopped(NamedTuple):
    """``seat`` stopped; ``automatic`` when the referee stopped for him (empty hand, call
    limit)."""

    seat: int
    automatic: bool


class LightningCollected(NamedTuple):
    """At the round's end ``seat`` took the ``cards`` of the lightning's month left on the
    field."""

    seat: int
    cards: int


class RoundResult(NamedTuple):
    """How a round ended.

    ``outcome``: ``stop``, ``exhaustion`` (the hands ran out: last koi-koi caller or dealer
    points), ``dealer-empty`` (``end_when_dealer_empty``), ``teyaku`` (a deal check won it) or
    ``void``. ``detail`` says which rule decided (e.g. ``last-koikoi-wins``, ``hand_four``).
    ``winner`` is -1 when nobody scored. The score's arithmetic is recomputed from ``captured``
    and the context fields by :func:`hanafuda_referee.koikoi.game.result_breakdown`.
    """

    round: int
    month: int
    dealer: int
    outcome: str
    detail: str
    winner: int
    points: int
    captured: int = 0
    own_calls: int = 0
    opponent_calls: int = 0
    opponent_points: int = 0


class RoundEnded(NamedTuple):
    """The round ended; the scores after it."""

    result: RoundResult
    scores: tuple[int, int]


class Resigned(NamedTuple):
    """``seat`` resigned: the round in progress ends void (nobody scores it) and the game ends,
    won by the other seat (:class:`GameEnded` follows)."""

    seat: int


class GameEnded(NamedTuple):
    """The game is over: final scores and the winner (-1: a drawn game); ``resigned``: the seat
    that resigned, -1 when the game was played out."""

    scores: tuple[int, int]
    winner: int
    resigned: int = -1


Event = (
    FirstDealerDrawn
    | RoundDealt
    | DealCheck
    | FieldRefilled
    | CardPlayed
    | TargetRequired
    | CardDrawn
    | YakuImproved
    | KoiKoiCalled
    | Stopped
    | LightningCollected
    | RoundEnded
    | Resigned
    | GameEnded
)


def visible_to(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` (``None``: a spectator) may see it: other hands are emptied."""
    if isinstance(event, RoundDealt):
        hands = (
            event.hands[0] if seat == 0 else 0,
            event.hands[1] if seat == 1 else 0,
        )
        return event._replace(hands=hands)
    return event
