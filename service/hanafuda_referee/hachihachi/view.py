"""What one seat (or a spectator) may know of a Hachi-Hachi game.

A view holds this seat's hand and, of the other seats, only what is public: hand sizes, captures,
balances, declared teyaku with their exposed cards. Nobody sees the stock order or a dropped hand.

>>> from hanafuda_referee.hachihachi.game import new_game
>>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
>>> state, _ = new_game(HachiHachiRules(), seed=1, participants=4, first_dealer=0)
>>> view(state, None).hand, view(state, 1).seats[0].hand_size, view(state, 2).phase.name
(0, 7, 'DROP')
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from hanafuda_referee.capture import matches
from hanafuda_referee.hachihachi.dekiyaku import DekiyakuId
from hanafuda_referee.hachihachi.events import RoundResult
from hanafuda_referee.hachihachi.game import HachiHachiState, Phase, dekiyaku_paid, legal_moves
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.teyaku import Teyaku
from hanafuda_referee.moves import Move

__all__ = ["HachiHachiView", "Participation", "SeatInfo", "view"]


class Participation(IntEnum):
    """Whether a seat takes part in the current round (numbered as the protobuf enum)."""

    UNDECIDED = 1
    JOINED = 2
    DROPPED = 3


class SeatInfo(NamedTuple):
    """What everyone knows of a seat."""

    seat: int
    #: Running balance, half points.
    balance: int
    participation: Participation
    captured: int
    hand_size: int
    #: The teyaku declared at the deal, with its exposed cards (public), or None.
    teyaku: Teyaku | None
    #: The dekiyaku paid to the seat this round, in table order.
    dekiyaku: tuple[DekiyakuId, ...]
    #: The seat called sage and no one has overtaken it.
    sage: bool


class HachiHachiView(NamedTuple):
    """A game as ``seat`` sees it (``seat`` None: a spectator, who sees no hand)."""

    seat: int | None
    rules: HachiHachiRules
    participants: int
    phase: Phase
    round: int
    dealer: int
    turn: int
    #: The round's multiplier, the floor carried into it, and the six cards dealt face up.
    multiplier: int
    floor: int
    dealt_field: int
    #: The round's three players in playing order (empty during the drop phase).
    players: tuple[int, ...]
    seats: tuple[SeatInfo, ...]
    hand: int
    field: int
    stock_size: int
    drawn: int
    target_options: int
    #: Drop fees on the table, half points.
    table: int
    legal_moves: tuple[Move, ...]
    results: tuple[RoundResult, ...]
    winner: int | None
    #: The points (before the multiplier) each other player paid at the round's first dekiyaku
    #: payment, 0 before it: an overtaken sage caller refunds half of them to each.
    first_points: int


def _participation(state: HachiHachiState, seat: int) -> Participation:
    if (state.joined >> seat) & 1:
        return Participation.JOINED
    if (state.dropped >> seat) & 1:
        return Participation.DROPPED
    return Participation.UNDECIDED


def view(state: HachiHachiState, seat: int | None) -> HachiHachiView:
    """Project ``state`` for ``seat`` (0 to n−1) or a spectator (``None``)."""
    over = state.phase is Phase.OVER
    seats = tuple(
        SeatInfo(
            s,
            state.balances[s],
            _participation(state, s),
            state.captured[s],
            state.hands[s].bit_count(),
            state.teyaku[s],
            dekiyaku_paid(state.paid[s]),
            state.sage == s and not over,
        )
        for s in range(state.participants)
    )
    own = seat is not None and 0 <= seat < state.participants
    drawn = state.drawn if state.phase is Phase.DRAWN_TARGET else 0
    return HachiHachiView(
        seat=seat,
        rules=state.rules,
        participants=state.participants,
        phase=state.phase,
        round=state.round,
        dealer=state.dealer,
        turn=state.turn,
        multiplier=state.multiplier,
        floor=state.floor,
        dealt_field=state.dealt_field,
        players=state.players,
        seats=seats,
        hand=state.hands[seat] if own and seat is not None else 0,
        field=state.field,
        stock_size=state.stock_size,
        drawn=drawn,
        target_options=matches(state.field, drawn) if drawn else 0,
        table=state.table if not over else 0,
        legal_moves=tuple(legal_moves(state, seat)) if own else (),
        results=state.results,
        winner=state.winner if over else None,
        first_points=state.first_points,
    )
