"""The ``expert`` Hachi-Hachi bot: determinized Monte Carlo over a light play-out.

For each *world* (the cards the seat cannot see, dealt at random consistently with its view:
:func:`sample_state`), every candidate move is played and the round played out to its end by
:func:`.hachihachi_rollout.play_out`. The move with the best mean outcome in points (the seat's
balance change over the rest of the round) is played; :func:`.search.search` shares the worlds
between the candidates and spends the budget on the best ones.

Two outcomes are known without sampling: a shōbu ends the round at once (its caller takes the
table), and a voluntary drop costs its fee. A join is judged by playing the rest of the drop
phase through the engine (the others join or drop by the greedy rule), its teyaku payments,
then the round.

>>> from hanafuda_referee.hachihachi.game import new_game
>>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
>>> from hanafuda_referee.hachihachi.view import view
>>> import random
>>> state, _ = new_game(HachiHachiRules(), seed=3, participants=3, first_dealer=0)
>>> seen = view(state, 0)
>>> world = sample_state(seen, random.Random(1))
>>> world.hands[0] == state.hands[0], world.hands[1].bit_count(), len(world.stock)
(True, 7, 21)
>>> choose(seen, random.Random(1), Budget(playouts=60)) in seen.legal_moves
True
"""

from __future__ import annotations

import random

from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.bots.hachihachi_greedy import joins, known_in_hands
from hanafuda_referee.bots.hachihachi_rollout import Draws, play_out
from hanafuda_referee.bots.search import Estimates, search
from hanafuda_referee.cards import DECK, cards_of
from hanafuda_referee.hachihachi.game import (
    DEKIYAKU_ORDER,
    DROP_FEE_POINTS,
    HachiHachiState,
    Phase,
    apply,
)
from hanafuda_referee.hachihachi.settlement import halves
from hanafuda_referee.hachihachi.view import HachiHachiView, Participation
from hanafuda_referee.moves import Move, MoveKind

__all__ = ["Sampler", "choose", "estimate", "sample_state"]

#: Random numbers drawn per world (a round has at most 21 turns, each a few numbers).
_DRAWS = 96


def _mask(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


class Sampler:
    """Deals the worlds of one view: what every world shares is worked out once."""

    def __init__(self, view: HachiHachiView) -> None:
        me = view.seat if view.seat is not None else view.turn
        known = known_in_hands(view)
        drawn = 1 << view.drawn if view.drawn else 0
        seen = view.hand | view.field | drawn
        for info in view.seats:
            seen |= info.captured
        for cards in known.values():
            seen |= cards
        self.unseen = [int(c) for c in cards_of(DECK & ~seen)]
        #: Each seat's hand: the cards known to be there, and how many unseen ones it takes.
        self.hands = [
            (view.hand, 0)
            if info.seat == me
            else (known.get(info.seat, 0), info.hand_size - known.get(info.seat, 0).bit_count())
            for info in view.seats
        ]
        joined = dropped = 0
        for info in view.seats:
            if info.participation is Participation.JOINED:
                joined |= 1 << info.seat
            elif info.participation is Participation.DROPPED:
                dropped |= 1 << info.seat
        # The dropped hands wait face down until the drop phase ends.
        self.aside = 7 * dropped.bit_count() if view.phase is Phase.DROP else 0
        # Which dropped seats owe a fee does not show, only how many: the first ones are taken.
        fee = halves(DROP_FEE_POINTS) * view.multiplier
        fees = 0
        for seat in range(view.participants):
            if (dropped >> seat) & 1 and fees.bit_count() < view.table // fee:
                fees |= 1 << seat
        self.template = HachiHachiState(
            rules=view.rules,
            seed=0,
            participants=view.participants,
            prepared=(),
            deals_made=1,
            round=view.round,
            dealer=view.dealer,
            floor=view.floor,
            multiplier=view.multiplier,
            dealt_field=view.dealt_field,
            balances=tuple(info.balance for info in view.seats),
            results=(),
            phase=view.phase,
            turn=view.turn,
            joined=joined,
            dropped=dropped,
            fees=fees,
            aside=0,
            players=view.players,
            hands=(),
            field=view.field,
            stock=(),
            stock_pos=0,
            captured=tuple(info.captured for info in view.seats),
            paid=tuple(
                sum(1 << DEKIYAKU_ORDER.index(d) for d in info.dekiyaku) for info in view.seats
            ),
            teyaku=tuple(info.teyaku for info in view.seats),
            sage=next((info.seat for info in view.seats if info.sage), -1),
            first_points=view.first_points,
            drawn=view.drawn,
            payments=(),
        )

    def sample(self, rng: random.Random) -> HachiHachiState:
        """One world: the unseen cards shuffled into the other hands, the aside, the stock."""
        unseen = self.unseen[:]
        rng.shuffle(unseen)
        at = 0
        hands = []
        for own, take in self.hands:
            hands.append(own | _mask(unseen[at : at + take]))
            at += take
        aside = _mask(unseen[at : at + self.aside])
        at += self.aside
        return self.template._replace(
            seed=rng.getrandbits(32), hands=tuple(hands), aside=aside, stock=tuple(unseen[at:])
        )


def sample_state(view: HachiHachiView, rng: random.Random) -> HachiHachiState:
    """A state the view could come from: the cards the seat cannot see shuffled into the other
    hands (a player keeps the cards his teyaku showed and has not played), then into the hands
    put aside by the drop phase, then the stock. The game's history, which neither the play-out
    nor the rest of the round reads, is left out."""
    return Sampler(view).sample(rng)


def _join_outcome(state: HachiHachiState, me: int, draws: Draws) -> int:
    """The seat's balance change if it joins: the rest of the drop phase through the engine
    (the others by the greedy rule), the teyaku payments, then the round played out."""
    after, _ = apply(state, me, Move(MoveKind.JOIN))
    while after.phase is Phase.DROP:
        seat = after.turn
        move = Move(MoveKind.JOIN if joins(after.hands[seat], after.field) else MoveKind.DROP)
        after, _ = apply(after, seat, move)
    return after.balances[me] - state.balances[me] + play_out(after, draws)[me]


def choose(view: HachiHachiView, rng: random.Random, budget: Budget) -> Move:
    """The move with the best mean outcome (:func:`estimate`'s choice)."""
    return view.legal_moves[estimate(view, rng, budget).best]


def estimate(view: HachiHachiView, rng: random.Random, budget: Budget) -> Estimates:
    """The search behind :func:`choose`: every legal move's mean outcome in half points (the
    seat's balance change; indexed as ``view.legal_moves``) and the one chosen
    (:func:`.search.search`)."""
    moves = view.legal_moves
    me = view.seat if view.seat is not None else view.turn
    known: dict[int, float] = {}
    for i, move in enumerate(moves):
        if move.kind is MoveKind.SHOBU:
            known[i] = view.table
        elif move.kind is MoveKind.DROP:
            known[i] = -halves(DROP_FEE_POINTS) * view.multiplier

    sampler = Sampler(view)

    def new_world() -> tuple[HachiHachiState, list[float]]:
        return sampler.sample(rng), [rng.random() for _ in range(_DRAWS)]

    def outcome(world: tuple[HachiHachiState, list[float]], i: int) -> float:
        state, values = world
        move = moves[i]
        if move.kind is MoveKind.JOIN:
            return _join_outcome(state, me, Draws(values))
        return play_out(state, Draws(values), move)[me]

    return search(len(moves), known, new_world, outcome, budget, budget.playouts_for("hachihachi"))
