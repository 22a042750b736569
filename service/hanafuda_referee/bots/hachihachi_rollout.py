"""A light play-out of a Hachi-Hachi round, for the ``expert`` bot.

:func:`play_out` plays the current round of a state (waiting for a play, a drawn card's target,
or sage/shōbu) to its end with the engine's rules (RULES.md 2.3 to 2.6), on bit masks and local
lists: no moves, events or intermediate states, about three times faster than
:func:`~hanafuda_referee.hachihachi.game.apply` (43 µs a round from the deal against 122 µs). It
returns what the rest of the round pays: each seat's balance change from now on, in half points,
drop fees included (the winner takes the table). ``tests/bots/test_hachihachi_rollout.py`` checks
it against the engine.

The players follow a quick policy drawn from a stream of random numbers (:class:`Draws`): a play
takes the most card points it can (a card that takes nothing, the least valuable), except at
random now and then (:data:`EXPLORE`); a drawn card takes the better target; sage only with
captures already at par and cards left to play. The first decision may be forced.

>>> from hanafuda_referee.hachihachi.game import new_game
>>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
>>> state, _ = new_game(HachiHachiRules(), seed=3, participants=3, first_dealer=0)
>>> deltas = play_out(state, Draws([0.5] * 8))
>>> sum(deltas), len(deltas)
(0, 3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hanafuda_referee.bots.hachihachi_values import CARD_POINTS
from hanafuda_referee.cards import BLUE_RIBBONS, MONTH_MASKS, MONTH_OF, POETRY_RIBBONS
from hanafuda_referee.hachihachi.dekiyaku import (
    INOSHIKACHO,
    DekiyakuId,
    dekiyaku_of,
    dekiyaku_payment,
)
from hanafuda_referee.hachihachi.game import (
    DROP_FEE_POINTS,
    HachiHachiState,
    Phase,
    dekiyaku_paid,
)
from hanafuda_referee.hachihachi.kinds import HH_LIGHTS, HH_PLAINS, HH_RIBBONS
from hanafuda_referee.hachihachi.settlement import (
    PAR,
    card_points,
    count_winner,
    halves,
    settle,
)
from hanafuda_referee.moves import Move, MoveKind

__all__ = ["EXPLORE", "Draws", "play_out"]

#: The share of plays made at random rather than by the policy.
EXPLORE = 0.25
_PLAY, _TARGET, _DECISION = int(Phase.PLAY), int(Phase.DRAWN_TARGET), int(Phase.DECISION)
_MONTH_MASK: tuple[int, ...] = tuple(MONTH_MASKS[MONTH_OF[c]] for c in range(49))
#: A sage needs at least this many cards still in hand.
_SAGE_HAND = 2


class Draws:
    """A stream of random numbers in [0, 1), read in turn and from the start again when used up,
    so that several play-outs can share one (common random numbers)."""

    __slots__ = ("_at", "_values")

    def __init__(self, values: Sequence[float]) -> None:
        self._values = values
        self._at = 0

    def next(self) -> float:
        values = self._values
        value = values[self._at % len(values)]
        self._at += 1
        return value


def _may_form(captured: int) -> bool:
    """Whether ``captured`` may hold a dekiyaku (the engine's quick test)."""
    return (
        captured & POETRY_RIBBONS == POETRY_RIBBONS
        or captured & BLUE_RIBBONS == BLUE_RIBBONS
        or captured & INOSHIKACHO == INOSHIKACHO
        or captured & HH_LIGHTS == HH_LIGHTS
        or (captured & HH_RIBBONS).bit_count() >= 7
        or (captured & HH_PLAINS).bit_count() >= 16
    )


def _best_of_two(cards: int) -> int:
    """The more valuable of two field cards (the lower card on a tie, as legal moves list it)."""
    low = cards & -cards
    high = cards ^ low
    if CARD_POINTS[high.bit_length() - 1] > CARD_POINTS[low.bit_length() - 1]:
        return high
    return low


def _play(hand: int, field: int, draws: Draws) -> tuple[int, int]:
    """The policy's play: the card played and the field cards it takes (0: none)."""
    if draws.next() < EXPLORE:
        rest = hand
        for _ in range(int(draws.next() * hand.bit_count())):
            rest &= rest - 1
        bit = rest & -rest
        same = field & _MONTH_MASK[bit.bit_length() - 1]
        if same.bit_count() == 2:
            return bit, _best_of_two(same)
        return bit, same
    best_bit, best_taken, best_value = 0, 0, -1000
    rest = hand
    while rest:
        bit = rest & -rest
        rest ^= bit
        card = bit.bit_length() - 1
        same = field & _MONTH_MASK[card]
        if same:
            taken = _best_of_two(same) if same.bit_count() == 2 else same
            value = CARD_POINTS[card]
            t = taken
            while t:
                low = t & -t
                value += CARD_POINTS[low.bit_length() - 1]
                t ^= low
        else:
            taken = 0
            value = -CARD_POINTS[card]
        if value > best_value:
            best_bit, best_taken, best_value = bit, taken, value
    return best_bit, best_taken


def play_out(
    state: HachiHachiState,
    draws: Draws,
    first: Move | None = None,
    record: list[Move] | None = None,
) -> tuple[int, ...]:
    """Play the current round of ``state`` (phase play, target or decision) to its end; each
    seat's balance change from now on, in half points. ``first``: the move the seat to act makes
    first (one of its legal moves), else the policy's. ``record``, when given, receives every
    move made, as the engine would take them (for the tests)."""
    players = state.players
    p = players.index(state.turn)
    hands = [state.hands[s] for s in players]
    caps = [state.captured[s] for s in players]
    paid: list[Iterable[DekiyakuId]] = [dekiyaku_paid(state.paid[s]) for s in players]
    field, stock, pos = state.field, state.stock, state.stock_pos
    n_stock = len(stock)
    multiplier = state.multiplier
    sage = players.index(state.sage) if state.sage >= 0 else -1
    first_points = state.first_points
    deltas = [0, 0, 0]
    step = int(state.phase)
    drawn = state.drawn
    forced = first
    winner = -1
    while True:
        # A turn that captures nothing forms no dekiyaku: the check then costs nothing. A turn
        # resumed at its target may have captured with its play: it is checked.
        before = caps[p] if step == _PLAY else -1
        if step == _PLAY:
            hand = hands[p]
            if forced is not None:
                bit = 1 << forced.card
                same = field & _MONTH_MASK[forced.card]
                taken = 1 << forced.target if same.bit_count() == 2 else same
                forced = None
            else:
                bit, taken = _play(hand, field, draws)
            if record is not None:
                card = bit.bit_length() - 1
                two = (field & _MONTH_MASK[card]).bit_count() == 2
                record.append(Move(MoveKind.PLAY, card, taken.bit_length() - 1 if two else 0))
            hands[p] = hand ^ bit
            if taken:
                field ^= taken
                caps[p] |= taken | bit
            else:
                field |= bit
            if pos < n_stock:
                drawn = stock[pos]
                pos += 1
                step = _TARGET
        if step == _TARGET:
            bit = 1 << drawn
            same = field & _MONTH_MASK[drawn]
            if same.bit_count() == 2:
                if forced is not None:
                    same = 1 << forced.target
                    forced = None
                else:
                    same = _best_of_two(same)
                if record is not None:
                    record.append(Move(MoveKind.CHOOSE_TARGET, 0, same.bit_length() - 1))
            if same:
                field ^= same
                caps[p] |= same | bit
            else:
                field |= bit
        if step != _DECISION and caps[p] != before and _may_form(caps[p]):
            formed = dekiyaku_of(caps[p])
            due = dekiyaku_payment(paid[p], formed)
            if due.points:
                paid[p] = due.paid
                if sage >= 0 and sage != p:
                    # Overtaken: the caller refunds half his first payment to each other player
                    # and pays everything the maker's captures form, twice over (RULES.md 2.4).
                    new_points = dekiyaku_payment((), formed).points
                    for other in range(3):
                        if other != sage:
                            deltas[sage] -= first_points * multiplier
                            deltas[other] += first_points * multiplier
                    deltas[sage] -= 4 * new_points * multiplier
                    deltas[p] += 4 * new_points * multiplier
                    winner = p
                    break
                for other in range(3):
                    if other != p:
                        deltas[other] -= 2 * due.points * multiplier
                        deltas[p] += 2 * due.points * multiplier
                if sage < 0 and not first_points:
                    first_points = due.points
                step = _DECISION
        if step == _DECISION:
            if forced is not None:
                stops = forced.kind is MoveKind.SHOBU
                forced = None
            else:
                stops = hands[p].bit_count() < _SAGE_HAND or card_points(caps[p]) < PAR
            if record is not None:
                record.append(Move(MoveKind.SHOBU if stops else MoveKind.SAGE))
            if stops:
                winner = p
                break
            sage = p
        if not (hands[0] | hands[1] | hands[2]):
            counts = (card_points(caps[0]), card_points(caps[1]), card_points(caps[2]))
            for payment in settle(counts, multiplier, dealer=0):
                deltas[payment.payer] -= payment.amount
                deltas[payment.payee] += payment.amount
            winner = count_winner(counts)
            break
        p = (p + 1) % 3
        step = _PLAY
    out = [0] * state.participants
    for index, seat in enumerate(players):
        out[seat] = deltas[index]
    # The drop fees on the table go to the round's winner (game._end_round).
    fee = halves(DROP_FEE_POINTS) * multiplier
    for seat in range(state.participants):
        if (state.fees >> seat) & 1:
            out[seat] -= fee
            out[players[winner]] += fee
    return tuple(out)
