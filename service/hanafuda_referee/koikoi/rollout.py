"""Fast play-outs of a Koi-Koi round, for bots and simulations.

:func:`~hanafuda_referee.koikoi.game.apply` builds a new state and a list of events for every move,
which a server needs and a simulation does not. :func:`play_out` plays the current round of a game
to its end from any state (waiting for a play, a drawn card's target, or koi-koi/stop) with every
rule of the engine, but on local variables and bit masks only: no moves, no events, no
intermediate states. Every choice comes from ``choose(n)``, which returns an index in ``range(n)``
into the list :func:`~hanafuda_referee.koikoi.game.legal_moves` would give at that point, in the
same order; ``choose`` is called exactly where the engine would wait for a move (even when ``n`` is
1), so one choice sequence drives both paths identically (``tests/koikoi/test_rollout.py``
checks it).

The result is a :class:`Playout`: the round's :class:`~hanafuda_referee.koikoi.events.RoundResult`
and the scores after it, equal to what the engine records for that round. The next round is not
dealt: a simulation that needs it starts from the engine again.

>>> from hanafuda_referee.koikoi.game import new_game
>>> rules = KoiKoiRules.from_preset("fudawiki")
>>> state, _ = new_game(rules, seed=3, first_dealer=0)
>>> outcome = play_out(state, random_chooser(random.Random(1)))
>>> outcome.result.round, outcome.result.outcome in ("stop", "exhaustion", "void")
(1, True)
>>> len(random_rounds(rules, 10, seed=0))
10
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import NamedTuple

from hanafuda_referee.cards import MONTH_MASKS, MONTH_OF, WILLOWS, Card
from hanafuda_referee.dealing import shuffled_deal
from hanafuda_referee.koikoi.events import RoundResult
from hanafuda_referee.koikoi.game import (
    FIELD_SIZE,
    HAND_SIZE,
    KoiKoiState,
    Phase,
    _deal_checks,
    round_month,
)
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.koikoi.scoring import points_function

__all__ = ["Chooser", "Playout", "play_out", "random_chooser", "random_rounds", "stop_total"]

Chooser = Callable[[int], int]
"""``choose(n) -> i``: the index, in ``range(n)``, of the legal move to make (not validated)."""


class Playout(NamedTuple):
    """A finished round: its result and both seats' scores after it (as the engine has them)."""

    result: RoundResult
    scores: tuple[int, int]


_LIGHTNING = int(Card.WILLOW_LIGHTNING)
_WILLOW_MONTH = 11
_LIGHTNING_BIT = 1 << _LIGHTNING
_WILLOW_BITS = WILLOWS
_NOT_WILLOWS = ~WILLOWS
#: ``_MONTH_MASK[c]``: the four cards of card ``c``'s month (a table lookup instead of two).
_MONTH_MASK: tuple[int, ...] = tuple(MONTH_MASKS[MONTH_OF[c]] for c in range(49))
#: ``_BIT[c] == 1 << c``, to build masks with ``sum(map(...))`` at C speed.
_BIT: tuple[int, ...] = tuple(1 << c for c in range(49))

# The steps of a turn where the loop may (re)enter; the first three are the engine's phases.
_PLAY = int(Phase.PLAY)
_TARGET = int(Phase.DRAWN_TARGET)
_DECISION = int(Phase.DECISION)
_CHECK = 0


def random_chooser(rng: random.Random) -> Chooser:
    """A chooser that picks uniformly at random with ``rng`` (one ``random()`` per choice).

    >>> choose = random_chooser(random.Random(0))
    >>> [choose(3) for _ in range(5)]
    [2, 2, 1, 0, 1]
    """
    rnd = rng.random

    def choose(n: int) -> int:
        return int(rnd() * n)

    return choose


def stop_total(
    rules: KoiKoiRules, base: int, own_calls: int, opponent_calls: int, opponent_points: int
) -> int:
    """The score of a stop with yaku points ``base``: the arithmetic of
    :func:`~hanafuda_referee.koikoi.scoring.score_stop` (RULES.md 1.5) without its breakdown.

    Duplicated from ``score_stop`` because building the breakdown costs as much as a third of a
    play-out; ``tests/koikoi/test_rollout.py`` checks the two against each other.

    >>> stop_total(KoiKoiRules.from_preset("wikipedia-fr"), 11, 2, 0, 0)  # RULES.md 1.5
    44
    """
    total = base
    own_mode = rules.own_koikoi
    if own_mode == "bonus-points" and own_calls:
        total = total + own_calls if own_calls <= 3 else total * (own_calls - 2)
    seven = rules.seven_or_more
    if seven and base >= seven:
        total *= 2
    if own_mode == "double" and own_calls:
        total *= 2
    if opponent_calls:
        opp_mode = rules.opponent_koikoi
        if opp_mode == "double":
            total *= 2
        elif opp_mode == "per-call":
            total *= 1 + opponent_calls
    if rules.all_calls_plus_one:
        total *= 1 + own_calls + opponent_calls
    if rules.counter_seven and opponent_points >= (seven or 7):
        total *= 2
    return total


def play_out(state: KoiKoiState, choose: Chooser) -> Playout:
    """Play the current round of ``state`` to its end, every choice made by ``choose``.

    Raises ``ValueError`` when the game is over. ``state`` itself is not changed (it is a value).
    """
    if state.phase is Phase.OVER:
        raise ValueError("the game is over: there is no round to play out")
    me = state.turn
    you = 1 - me
    hands, captured, calls, wild = state.hands, state.captured, state.calls, state.wild
    return _play_round(
        (state.rules, state.round, state.dealer, state.scores),
        int(state.phase),
        me,
        hands[me],
        hands[you],
        state.field,
        state.stock,
        state.stock_pos,
        captured[me],
        captured[you],
        calls[me],
        calls[you],
        state.last_caller,
        state.turn_points,
        state.drawn,
        wild[me],
        wild[you],
        state.willow_seen,
        choose,
    )


def random_rounds(rules: KoiKoiRules, n: int, seed: int) -> list[Playout]:
    """``n`` first rounds played at random: round ``i`` is the first round of the game with seed
    ``seed + i`` and seat 0 dealing (as ``new_game(rules, seed + i, first_dealer=0)`` deals it,
    redeals included), played out by ``random_chooser(random.Random(seed))``, one chooser for all
    the rounds. A round that the deal checks end (void, teyaku) is listed without play.

    >>> [p.result.round for p in random_rounds(KoiKoiRules.from_preset("nintendo"), 3, seed=5)]
    [1, 1, 1]
    """
    choose = random_chooser(random.Random(seed))
    start = rules.starting_points
    scores = (start, start)
    bit = _BIT.__getitem__
    out: list[Playout] = []
    for i in range(n):
        number = 0
        while True:
            deal = shuffled_deal(seed + i, number, 2, HAND_SIZE, FIELD_SIZE)
            number += 1
            hand0 = sum(map(bit, deal.hands[0]))
            hand1 = sum(map(bit, deal.hands[1]))
            field = sum(map(bit, deal.field))
            verdict = (
                _deal_checks(rules, (hand0, hand1), field)
                if _deal_check_may_fire(hand0, hand1, field)
                else None
            )
            if verdict is None:
                # Round 1, seat 0 deals and plays: nothing captured, called or seen yet.
                played = _play_round(
                    (rules, 1, 0, scores), _PLAY, 0, hand0, hand1, field, deal.stock, 0,
                    0, 0, 0, 0, -1, 0, 0, 0, 0, False, choose,
                )  # fmt: skip
                out.append(played)
                break
            check, outcome, seats, _ = verdict
            if outcome == "redeal":
                continue
            # As game._start_round ends a round at the deal: void, or a teyaku win.
            if outcome == "void" or len(seats) == 2:
                result = RoundResult(1, 1, 0, "void", check, -1, 0)
            else:
                winner = seats[0]
                points = rules.teyaku_points
                hand = hand0 if winner == 0 else hand1
                result = RoundResult(1, 1, 0, "teyaku", check, winner, points, hand)
            out.append(Playout(result, _settle(rules, scores, result.winner, result.points)))
            break
    return out


# --- internals -------------------------------------------------------------------------------

#: Nibble masks for counting the cards of each month of a set at once (SWAR): after shifting
#: card ``c`` to bit ``c - 1``, month ``m`` is nibble ``m - 1``.
_PAIRS_OF_BITS = 0x5555_5555_5555
_PAIRS_OF_PAIRS = 0x3333_3333_3333
_ONES = 0x1111_1111_1111
_FOURS = 0x4444_4444_4444


def _month_nibbles(cards: int) -> int:
    """Each month's card count (0 to 4) in its own nibble."""
    x = cards >> 1
    x -= (x >> 1) & _PAIRS_OF_BITS
    return (x & _PAIRS_OF_PAIRS) + ((x >> 2) & _PAIRS_OF_PAIRS)


def _deal_check_may_fire(hand0: int, hand1: int, field: int) -> bool:
    """False when no deal check can fire on these 8-card sets: none holds four cards of a month
    or only even month counts (four pairs). A cheap filter in front of ``game._deal_checks``,
    which decides whenever this says True: most deals fire nothing, and the filter costs a tenth
    of the checks."""
    for cards in (hand0, hand1, field):
        counts = _month_nibbles(cards)
        if counts & _FOURS or not counts & _ONES:
            return True
    return False


def _settle(
    rules: KoiKoiRules, scores: tuple[int, int], winner: int, points: int
) -> tuple[int, int]:
    """The scores after a round (as ``game._end_round``): the winner's points are added, and in
    transfer mode taken from the loser."""
    if winner < 0 or not points:
        return scores
    s0, s1 = scores
    lost = points if rules.transfer else 0
    return (s0 + points, s1 - lost) if winner == 0 else (s0 - lost, s1 + points)


#: What a play-out keeps of the round it plays: rule set, round number, dealer, scores before it.
_Round = tuple[KoiKoiRules, int, int, tuple[int, int]]
#: How a round ends: outcome, detail, winner (-1: none), and whether he scores his yaku as a stop.
_Ending = tuple[str, str, int, bool]
#: One seat's captured cards, koi-koi calls, and the month its wild lightning took (0: none).
_Seat = tuple[int, int, int]


def _end_round(
    game: _Round, field: int, seat: int, mine: _Seat, theirs: _Seat, ending: _Ending
) -> Playout:
    """The round's end, as the engine's ``_stop`` / ``_void`` / ``_exhausted`` compute it:
    lightning collection, then the winner scored as a stop, or a fixed result. ``mine`` are the
    values of ``seat``, ``theirs`` the other seat's."""
    rules, round_number, dealer, scores = game
    outcome, detail, winner, by_yaku = ending
    month = round_month(round_number)
    in_seat_order = (mine, theirs) if seat == 0 else (theirs, mine)
    captured = [cards for cards, _, _ in in_seat_order]
    calls = [n for _, n, _ in in_seat_order]
    for s, (_, _, wild_month) in enumerate(in_seat_order):
        if wild_month:
            cards = field & MONTH_MASKS[wild_month]
            field &= ~cards
            captured[s] |= cards
    if by_yaku:
        points = points_function(rules)
        other = 1 - winner
        own, opp = calls[winner], calls[other]
        # The opponent's points count after the lightning collection, as in game._stop.
        opp_points = points(captured[other], month, opp)
        total = stop_total(rules, points(captured[winner], month, own), own, opp, opp_points)
        result = RoundResult(
            round_number, month, dealer, outcome, detail, winner, total, captured[winner],
            own, opp, opp_points,
        )  # fmt: skip
    else:
        # A void round, or the dealer's fixed points at exhaustion: no breakdown.
        won = rules.dealer_points if winner >= 0 else 0
        result = RoundResult(round_number, month, dealer, outcome, detail, winner, won)
    return Playout(result, _settle(rules, scores, winner, result.points))


def _no_more_turns(
    rules: KoiKoiRules, seat: int, dealer: int, last_caller: int, hand: int, other_hand: int
) -> _Ending | None:
    """How the round ends after ``seat``'s turn, or None when the other seat plays next
    (game._next_turn and game._exhausted)."""
    if rules.end_when_dealer_empty and seat == dealer and not hand:
        if last_caller == 1 - seat:
            return ("dealer-empty", "last-koikoi-wins", last_caller, True)
        return ("void", "dealer-empty", -1, False)
    if hand or other_hand:
        return None
    mode = rules.exhaustion
    if mode == "last-koikoi-wins" and last_caller >= 0:
        return ("exhaustion", mode, last_caller, True)
    if mode == "dealer-points":
        return ("exhaustion", mode, dealer, False)
    return ("void", "exhaustion", -1, False)


def _play_round(
    game: _Round,
    step: int,
    seat: int,
    hand: int,
    other_hand: int,
    field: int,
    stock: tuple[int, ...],
    pos: int,
    cap: int,
    other_cap: int,
    calls: int,
    other_calls: int,
    last_caller: int,
    turn_points: int,
    drawn: int,
    wild: int,
    other_wild: int,
    willow_seen: bool,
    choose: Chooser,
) -> Playout:
    """The play-out loop. ``seat`` is the seat to act; its values are the unprefixed locals, the
    other seat's are ``other_*``, and the two are swapped at each turn (cheaper than indexing
    pairs). ``step`` is where the turn resumes: a phase, or ``_CHECK``."""
    rules, round_number, dealer, _ = game
    points = points_function(rules)
    month = round_month(round_number)
    wild_mode = rules.lightning_wild
    wild_always = wild_mode == "on"
    wild_possible = wild_always or wild_mode == "before-november"
    refill = rules.refill_empty_field
    dealer_empty_ends = rules.end_when_dealer_empty
    empty_hand_stops = not rules.last_turn_koikoi
    limit = rules.koikoi_limit
    n_stock = len(stock)
    month_mask = _MONTH_MASK
    month_of = MONTH_OF
    # Each seat's yaku points for its current captures and calls, kept up to date so that a turn
    # that captures nothing needs no scoring: the engine's turn_points is ``pts`` at turn start.
    pts = points(cap, month, calls)
    other_pts = points(other_cap, month, other_calls)
    # The captures at the start of the turn (-1 when resuming mid-turn: check whatever happened).
    turn_cap = cap if step == _PLAY else -1

    while True:
        if step == _PLAY:
            # 1. Play a hand card. legal_moves lists, for each hand card in card order, one play,
            # or two when it meets two field cards (lower target first), and after a wild
            # lightning one play per non-willow field card. Count them, then walk to the chosen
            # one, without building the list. ``two``: the cards of months with two on the field;
            # ``others``: the wild lightning's extra targets.
            counts = field >> 1  # each month's field count in a nibble, as _month_nibbles
            counts -= (counts >> 1) & _PAIRS_OF_BITS
            counts = (counts & _PAIRS_OF_PAIRS) + ((counts >> 2) & _PAIRS_OF_PAIRS)
            two = ((counts >> 1) & ~counts & _ONES) * 15 << 1
            others = 0
            if wild_possible and hand & _LIGHTNING_BIT and (wild_always or not willow_seen):
                others = field & _NOT_WILLOWS
            if not (hand & two or others):
                # The usual case: one play per hand card, in card order.
                rest = hand
                for _ in range(choose(hand.bit_count())):
                    rest &= rest - 1
                bit = rest & -rest
                m = field & month_mask[bit.bit_length() - 1]
                taken = bit | m if m else 0
            else:
                i = choose(hand.bit_count() + (hand & two).bit_count() + others.bit_count())
                rest = hand
                while True:
                    bit = rest & -rest
                    rest ^= bit
                    if bit & two:
                        if i < 2:
                            m = field & month_mask[bit.bit_length() - 1]
                            low = m & -m
                            taken = bit | (low if i == 0 else m ^ low)
                            break
                        i -= 2
                    elif i == 0:
                        m = field & month_mask[bit.bit_length() - 1]
                        taken = bit | m if m else 0
                        break
                    else:
                        i -= 1
                    if bit == _LIGHTNING_BIT and others:
                        if i < others.bit_count():
                            # The wild lightning takes the i-th non-willow field card.
                            for _ in range(i):
                                others &= others - 1
                            target = others & -others
                            taken = bit | target
                            wild = month_of[target.bit_length() - 1]
                            break
                        i -= others.bit_count()
            hand ^= bit
            if bit & _WILLOW_BITS:
                willow_seen = True
            if taken:
                field &= ~taken
                cap |= taken
            else:
                field |= bit
            # 2. Draw (skipped when the stock is empty).
            step = _CHECK
            if pos < n_stock:
                drawn = stock[pos]
                pos += 1
                if month_of[drawn] == _WILLOW_MONTH:
                    willow_seen = True
                m = field & month_mask[drawn]
                if m.bit_count() == 2:
                    step = _TARGET
                elif m:
                    taken = 1 << drawn | m
                    field &= ~taken
                    cap |= taken
                else:
                    field |= 1 << drawn
        if step == _TARGET:
            # The drawn card meets two field cards: legal_moves lists the lower target first.
            m = field & month_mask[drawn]
            low = m & -m
            taken = 1 << drawn | (m ^ low if choose(2) else low)
            field &= ~taken
            cap |= taken
            step = _CHECK
        # 3. The yaku check: a rise over the turn's starting points asks for a decision, unless
        # the referee must stop for the player. No capture, no rise.
        if step == _CHECK and cap != turn_cap:
            pts = points(cap, month, calls)
            if pts > turn_points:
                if (empty_hand_stops and not hand) or (limit and calls >= limit):
                    return _end_round(
                        game, field, seat, (cap, calls, wild), (other_cap, other_calls, other_wild),
                        ("stop", "automatic", seat, True),
                    )  # fmt: skip
                step = _DECISION
        if step == _DECISION:
            if choose(2):  # legal_moves lists koi-koi, then stop
                return _end_round(
                    game, field, seat, (cap, calls, wild), (other_cap, other_calls, other_wild),
                    ("stop", "called", seat, True),
                )  # fmt: skip
            calls += 1
            last_caller = seat
            # A call may change his points (points_after_koikoi); the rise rule then compares
            # his next turn with the new level.
            pts = points(cap, month, calls)
        # The next turn (game._next_turn), unless the round ends here.
        if (dealer_empty_ends and seat == dealer and not hand) or not (hand or other_hand):
            ending = _no_more_turns(rules, seat, dealer, last_caller, hand, other_hand)
            if ending is not None:
                return _end_round(
                    game, field, seat, (cap, calls, wild), (other_cap, other_calls, other_wild),
                    ending,
                )  # fmt: skip
        seat = 1 - seat
        hand, other_hand = other_hand, hand
        cap, other_cap = other_cap, cap
        calls, other_calls = other_calls, calls
        wild, other_wild = other_wild, wild
        pts, other_pts = other_pts, pts
        turn_points = pts
        turn_cap = cap
        if refill and not field and pos < n_stock:
            card = stock[pos]
            pos += 1
            field = 1 << card
            if month_of[card] == _WILLOW_MONTH:
                willow_seen = True
        step = _PLAY
