"""What one seat (or a spectator) may know of a Koi-Koi game.

A view holds this seat's hand and nothing of the other hand but its size, nor the stock order.
It holds everything else a player of the seat knows, having watched the round: enough for a bot
(:mod:`hanafuda_referee.bots`) to rebuild every state the hidden cards could make.

>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> state, _ = new_game(KoiKoiRules(), seed=1, first_dealer=0)
>>> view(state, None).hand, view(state, 1).seats[0].hand_size
(0, 8)
"""

from __future__ import annotations

from typing import NamedTuple

from hanafuda_referee.koikoi.events import RoundResult
from hanafuda_referee.koikoi.game import KoiKoiState, Phase, legal_moves
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.moves import Move

__all__ = ["KoiKoiView", "SeatInfo", "view"]


class SeatInfo(NamedTuple):
    """What everyone knows of a seat."""

    seat: int
    score: int
    captured: int
    koikoi_calls: int
    hand_size: int
    #: With a wild lightning (``lightning_wild``): the month of the card the seat's lightning
    #: took this round, whose field cards it also takes when the round ends; 0 when none.
    wild: int


class KoiKoiView(NamedTuple):
    """A game as ``seat`` sees it (``seat`` None: a spectator, who sees no hand)."""

    seat: int | None
    rules: KoiKoiRules
    phase: Phase
    round: int
    month: int
    dealer: int
    turn: int
    seats: tuple[SeatInfo, SeatInfo]
    hand: int
    field: int
    stock_size: int
    drawn: int
    target_options: int
    legal_moves: tuple[Move, ...]
    results: tuple[RoundResult, ...]
    winner: int | None
    #: The last seat to call koi-koi this round, -1 when nobody has (it wins an exhaustion under
    #: ``last-koikoi-wins``).
    last_caller: int
    #: The yaku points of the seat to act when its turn began: the turn's yaku check asks
    #: koi-koi or stop only when its points rise above them.
    turn_points: int
    #: Whether a willow has been played or drawn this round (a ``before-november`` lightning is
    #: wild only until then).
    willow_seen: bool


def view(state: KoiKoiState, seat: int | None) -> KoiKoiView:
    """Project ``state`` for ``seat`` (0 or 1) or a spectator (``None``)."""
    from hanafuda_referee.capture import matches

    over = state.phase is Phase.OVER
    seats = tuple(
        SeatInfo(
            s,
            state.scores[s],
            state.captured[s],
            state.calls[s],
            state.hands[s].bit_count(),
            state.wild[s],
        )
        for s in (0, 1)
    )
    drawn = state.drawn if state.phase is Phase.DRAWN_TARGET else 0
    return KoiKoiView(
        seat=seat,
        rules=state.rules,
        phase=state.phase,
        round=state.round,
        month=state.month,
        dealer=state.dealer,
        turn=state.turn,
        seats=(seats[0], seats[1]),
        hand=state.hands[seat] if seat in (0, 1) and seat is not None else 0,
        field=state.field,
        stock_size=state.stock_size,
        drawn=drawn,
        target_options=matches(state.field, drawn) if drawn else 0,
        legal_moves=tuple(legal_moves(state, seat)) if seat is not None else (),
        results=state.results,
        winner=state.winner if over else None,
        last_caller=state.last_caller,
        turn_points=state.turn_points,
        willow_seen=state.willow_seen,
    )
