"""What happens in a Hachi-Hachi game, as the engine reports it.

Events carry the full truth (a deal event holds every hand); :func:`visible_to` projects one for a
seat or a spectator, so that a seat never learns another seat's hand or the stock order. Card
sets are bit masks (:mod:`hanafuda_referee.cards`); seats are the game's seats 0 to n−1 and money
is in half points (:mod:`.settlement`).

>>> event = RoundDealt(1, 0, 0, (7, 14, 28), 96, 21, 1)
>>> visible_to(event, 1).hands, visible_to(event, None).hands
((0, 14, 0), (0, 0, 0))
"""

from __future__ import annotations

from typing import NamedTuple

from hanafuda_referee.hachihachi.dekiyaku import DekiyakuDue
from hanafuda_referee.hachihachi.settlement import Payment
from hanafuda_referee.hachihachi.teyaku import Teyaku

__all__ = [
    "CardDrawn",
    "CardPlayed",
    "CardsCounted",
    "DekiyakuFormed",
    "Dropped",
    "Event",
    "FirstDealerDrawn",
    "GameEnded",
    "Joined",
    "PaymentMade",
    "PlayersChosen",
    "Redeal",
    "Resigned",
    "RoundDealt",
    "RoundEnded",
    "RoundResult",
    "SageCalled",
    "SageOvertaken",
    "ShobuCalled",
    "TargetRequired",
    "TeyakuDeclared",
    "visible_to",
]


class FirstDealerDrawn(NamedTuple):
    """No first dealer was given: ``dealer`` was drawn at random from the seed."""

    dealer: int


class RoundDealt(NamedTuple):
    """A deal (a redeal is another deal of the same round). ``hands`` (by seat) hides in
    projections; ``deal_number`` counts every deal of the game from 0."""

    round: int
    deal_number: int
    dealer: int
    hands: tuple[int, ...]
    field: int
    stock_size: int
    multiplier: int


class Redeal(NamedTuple):
    """Four cards of one month (``cards``) were dealt to the field: the deal is redone, same
    dealer, same carried floor, no payments (RULES.md 2.6)."""

    cards: int


class Joined(NamedTuple):
    """``seat`` joined the round; ``forced`` when he had to (as many undecided as joins needed)."""

    seat: int
    forced: bool


class Dropped(NamedTuple):
    """``seat`` dropped out of the round, putting ``fee`` (half points, × multiplier) on the
    table; ``forced`` when three had already joined (he drops for free, ``fee`` 0)."""

    seat: int
    fee: int
    forced: bool


class PlayersChosen(NamedTuple):
    """The round's three ``players``, in playing order from the dealer (or from his stand-in, the
    first joined after him, when he dropped); the dropped hands are now in the stock."""

    players: tuple[int, int, int]
    stock_size: int


class PaymentMade(NamedTuple):
    """Money moved between two seats' balances (the only event that moves a balance)."""

    payment: Payment


class TeyakuDeclared(NamedTuple):
    """``seat``'s teyaku, declared automatically at the deal; its exposed cards are public. The
    payments follow as :class:`PaymentMade` events."""

    seat: int
    teyaku: Teyaku


class CardPlayed(NamedTuple):
    """``seat`` played ``card`` from the hand; ``captured`` holds it and what it took (0: it
    joined the field)."""

    seat: int
    card: int
    captured: int


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


class DekiyakuFormed(NamedTuple):
    """``seat``'s captures formed new dekiyaku this turn: ``dues`` is each with what each other
    player owes for it (a ladder's higher rung owes the difference), ``points`` their total
    before the multiplier. Payments (or a :class:`SageOvertaken`) follow."""

    seat: int
    dues: tuple[DekiyakuDue, ...]
    points: int


class SageCalled(NamedTuple):
    """``seat`` called sage: play goes on."""

    seat: int


class ShobuCalled(NamedTuple):
    """``seat`` called shōbu: the round ends, he wins it."""

    seat: int


class SageOvertaken(NamedTuple):
    """``maker`` formed a dekiyaku while ``caller``'s sage was active: the caller refunds half of
    ``first_points`` (his first payment) to each other player and pays ``new_points`` (all the
    maker's dekiyaku are worth) twice over to the maker; the round ends."""

    caller: int
    maker: int
    first_points: int
    new_points: int


class CardsCounted(NamedTuple):
    """The hands ran out: each of the ``players``' card counts (same order). Payments follow."""

    players: tuple[int, int, int]
    counts: tuple[int, int, int]


class RoundResult(NamedTuple):
    """How a round ended.

    ``outcome``: ``shobu``, ``overtaken`` (a sage was overtaken) or ``count`` (the hands ran
    out). ``counts`` are the players' card counts (in ``players`` order) for ``count``, else
    empty. ``payments`` are every payment of the round in the order made (teyaku, dekiyaku,
    sage, card count, end-of-round dekiyaku, drop fees), between seats.
    """

    round: int
    dealer: int
    multiplier: int
    players: tuple[int, int, int]
    outcome: str
    winner: int
    counts: tuple[int, ...]
    payments: tuple[Payment, ...]


class RoundEnded(NamedTuple):
    """The round ended; every seat's balance after it (half points)."""

    result: RoundResult
    balances: tuple[int, ...]


class Resigned(NamedTuple):
    """``seat`` resigned: the round in progress ends void (its payments are taken back) and the
    game ends on the balances of the finished rounds (:class:`GameEnded` follows)."""

    seat: int


class GameEnded(NamedTuple):
    """The game is over: final balances and the winner (-1: the best balance is shared);
    ``resigned``: the seat that resigned, -1 when the game was played out."""

    balances: tuple[int, ...]
    winner: int
    resigned: int = -1


Event = (
    FirstDealerDrawn
    | RoundDealt
    | Redeal
    | Joined
    | Dropped
    | PlayersChosen
    | PaymentMade
    | TeyakuDeclared
    | CardPlayed
    | TargetRequired
    | CardDrawn
    | DekiyakuFormed
    | SageCalled
    | ShobuCalled
    | SageOvertaken
    | CardsCounted
    | RoundEnded
    | Resigned
    | GameEnded
)


def visible_to(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` (``None``: a spectator) may see it: other seats' hands are emptied.

    No other event holds a hidden card: the dropped hands and the stock order never appear in
    one, and a declared teyaku's exposed cards are public.
    """
    if isinstance(event, RoundDealt):
        return event._replace(hands=tuple(h if s == seat else 0 for s, h in enumerate(event.hands)))
    return event
