"""The ``expert`` Koi-Koi bot: determinized Monte Carlo over the fast play-out.

For each *world* (the cards the seat cannot see, dealt at random into the opponent's hand and the
stock, consistent with everything the view shows: :func:`sample_state`), every candidate move is
played, and the round played out to its end with :func:`~hanafuda_referee.koikoi.rollout.play_out`,
every later choice at random. The move with the best mean outcome in points (the round's points,
won or lost) is played; :func:`.search.search` shares the worlds between the candidates and
spends the budget on the best ones.

A stop ends the round at once, so its outcome is known: it is computed once, and koi-koi gets the
whole budget.

>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> from hanafuda_referee.koikoi.view import view
>>> import random
>>> state, _ = new_game(KoiKoiRules(), seed=3, first_dealer=0)
>>> seen = view(state, 0)
>>> world = sample_state(seen, random.Random(1))
>>> world.hands[0] == state.hands[0], world.hands[1].bit_count(), len(world.stock)
(True, 8, 24)
>>> choose(seen, random.Random(1), Budget(playouts=100)) in seen.legal_moves
True
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.bots.search import Estimates, search
from hanafuda_referee.cards import DECK
from hanafuda_referee.koikoi.game import KoiKoiState, Phase
from hanafuda_referee.koikoi.rollout import Playout, play_out
from hanafuda_referee.koikoi.view import KoiKoiView
from hanafuda_referee.moves import Move

__all__ = ["choose", "estimate", "outcome_for", "sample_state", "unseen_cards"]

#: Random numbers drawn per world: more than a round's choices (at most 16 plays, 16 targets and
#: 16 decisions); the stream wraps around if ever exhausted.
_DRAWS = 64
_STOP_INDEX = 1  # legal_moves lists koi-koi, then stop


def unseen_cards(view: KoiKoiView) -> list[int]:
    """The cards the seat cannot see (the opponent's hand and the stock), in card order."""
    drawn = 1 << view.drawn if view.drawn else 0
    known = view.hand | view.field | drawn
    for seat in view.seats:
        known |= seat.captured
    rest = DECK & ~known
    cards: list[int] = []
    while rest:
        low = rest & -rest
        cards.append(low.bit_length() - 1)
        rest ^= low
    return cards


def sample_state(
    view: KoiKoiView, rng: random.Random, unseen: Sequence[int] | None = None
) -> KoiKoiState:
    """A state the view could come from: the unseen cards (:func:`unseen_cards`, which the
    caller may have listed already) shuffled, the opponent's hand first, the stock after.
    Everything else is the view's (the game's history, which a play-out does not read, is left
    out)."""
    me = view.seat if view.seat is not None else view.turn
    unseen = list(unseen) if unseen is not None else unseen_cards(view)
    rng.shuffle(unseen)
    size = view.seats[1 - me].hand_size
    theirs = 0
    for card in unseen[:size]:
        theirs |= 1 << card
    hands = (view.hand, theirs) if me == 0 else (theirs, view.hand)
    a, b = view.seats
    return KoiKoiState(
        rules=view.rules,
        seed=0,
        prepared=(),
        deals_made=0,
        round=view.round,
        dealer=view.dealer,
        scores=(a.score, b.score),
        results=(),
        phase=view.phase,
        turn=view.turn,
        hands=hands,
        field=view.field,
        stock=tuple(unseen[size:]),
        stock_pos=0,
        captured=(a.captured, b.captured),
        calls=(a.koikoi_calls, b.koikoi_calls),
        last_caller=view.last_caller,
        turn_points=view.turn_points,
        drawn=view.drawn,
        wild=(a.wild, b.wild),
        willow_seen=view.willow_seen,
    )


def outcome_for(seat: int, played: Playout) -> int:
    """The round's points for ``seat``: won (positive), lost (negative) or void (0)."""
    result = played.result
    if result.winner < 0:
        return 0
    return result.points if result.winner == seat else -result.points


def _forced(first: int, draws: list[float]) -> Callable[[int], int]:
    """A chooser that answers ``first`` to the first question, then the ``draws`` in turn."""
    at = -1

    def choose(n: int) -> int:
        nonlocal at
        if at < 0:
            at = 0
            return first
        value = draws[at % _DRAWS]
        at += 1
        return int(value * n)

    return choose


def choose(view: KoiKoiView, rng: random.Random, budget: Budget) -> Move:
    """The move with the best mean outcome (:func:`estimate`'s choice)."""
    return view.legal_moves[estimate(view, rng, budget).best]


def estimate(view: KoiKoiView, rng: random.Random, budget: Budget) -> Estimates:
    """The search behind :func:`choose`: every legal move's mean outcome in points (indexed as
    ``view.legal_moves``) and the one chosen (:func:`.search.search`)."""
    moves = view.legal_moves
    me = view.seat if view.seat is not None else view.turn
    known: dict[int, float] = {}
    if view.phase is Phase.DECISION:
        # A stop's outcome does not depend on the unseen cards.
        stopped = play_out(sample_state(view, rng), _forced(_STOP_INDEX, []))
        known[_STOP_INDEX] = outcome_for(me, stopped)

    unseen = unseen_cards(view)

    def new_world() -> tuple[KoiKoiState, list[float]]:
        return sample_state(view, rng, unseen), [rng.random() for _ in range(_DRAWS)]

    def outcome(world: tuple[KoiKoiState, list[float]], i: int) -> float:
        state, draws = world
        return outcome_for(me, play_out(state, _forced(i, draws)))

    return search(len(moves), known, new_world, outcome, budget, budget.playouts_for("koikoi"))
