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
from collections.abc import Callable, Sequence
from typing import NamedTuple

from hanafuda_referee.cards import MONTH_MASKS, MONTH_OF, WILLOWS, Card
from hanafuda_referee.dealing import shuffled_deck
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


_LIGHTNING_BIT = 1 << Card.WILLOW_LIGHTNING
_NOT_WILLOWS = ~WILLOWS
#: ``_MONTH_MASK[c]``: the four cards of card ``c``'s month (one lookup instead of two).
_MONTH_MASK: tuple[int, ...] = tuple(MONTH_MASKS[MONTH_OF[c]] for c in range(49))
#: ``_MONTH_OF_BIT[1 << c]``: the same by card bit, which saves finding ``c`` from its bit.
_MONTH_OF_BIT: dict[int, int] = {1 << c: _MONTH_MASK[c] for c in range(1, 49)}
#: ``_BIT[c] == 1 << c``, to build masks with ``sum(map(...))`` at C speed.
_BIT: tuple[int, ...] = tuple(1 << c for c in range(49))

# Where play_out resumes a turn: the engine's phases.
_PLAY = int(Phase.PLAY)
_TARGET = int(Phase.DRAWN_TARGET)
_DECISION = int(Phase.DECISION)


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
    hands, captured, calls = state.hands, state.captured, state.calls
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
        list(state.wild),
        state.willow_seen,
        choose,
    )


def random_rounds(rules: KoiKoiRules, n: int, seed: int) -> list[Playout]:
    """``n`` first rounds (round 1, seat 0 dealing), dealt and played at random, every random
    number drawn from one ``random.Random(seed)``: for each round, a deck shuffled by
    :func:`~hanafuda_referee.dealing.shuffled_deck` and dealt by
    :func:`~hanafuda_referee.dealing.deal_from_deck` (again for each redeal the deal checks ask
    for), then the round's choices by :func:`random_chooser`. Round ``i`` is the first round of
    ``new_game(rules, seed, deals, first_dealer=0)`` given those deals. A round that the deal
    checks end (void, teyaku) is listed without play.

    One random source for the whole batch, rather than one seeded per game as the engine's
    deals are, saves seeding a Mersenne Twister per deal, which costs nearly as much as the
    shuffle itself.

    >>> [p.result.round for p in random_rounds(KoiKoiRules.from_preset("nintendo"), 3, seed=5)]
    [1, 1, 1]
    """
    rng = random.Random(seed)
    choose = random_chooser(rng)
    start = rules.starting_points
    scores = (start, start)
    bit = _BIT.__getitem__
    hand_end, field_end = 2 * HAND_SIZE, 2 * HAND_SIZE + FIELD_SIZE
    out: list[Playout] = []
    for _ in range(n):
        while True:
            deck = shuffled_deck(rng)
            # As deal_from_deck deals it: hands first (seat 0 first), then the field.
            hand0 = sum(map(bit, deck[:HAND_SIZE]))
            hand1 = sum(map(bit, deck[HAND_SIZE:hand_end]))
            field = sum(map(bit, deck[hand_end:field_end]))
            verdict = (
                _deal_checks(rules, (hand0, hand1), field)
                if _deal_check_may_fire(hand0, hand1, field)
                else None
            )
            if verdict is None:
                # Round 1, seat 0 deals and plays: nothing captured, called or seen yet.
                played = _play_round(
                    (rules, 1, 0, scores), _PLAY, 0, hand0, hand1, field, deck[field_end:], 0,
                    0, 0, 0, 0, -1, 0, 0, [0, 0], False, choose,
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

#: Nibble masks for counting the cards of each month of a set at once (SWAR): card ``c`` is bit
#: ``c``, so month ``m`` is the nibble of bits ``4m - 3`` to ``4m``. They span three sets of 48
#: cards side by side (``_deal_check_may_fire``); one set uses the low twelve nibbles.
_PAIRS_OF_BITS = int("5" * 36, 16) << 1
_PAIRS_OF_PAIRS = int("3" * 36, 16) << 1
_ONES = int("1" * 36, 16) << 1
_FOURS = int("4" * 36, 16) << 1
#: The twelve nibbles of each of three sets side by side.
_SET_0, _SET_1, _SET_2 = (int("F" * 12, 16) << 1 + 48 * k for k in range(3))


def _month_nibbles(cards: int) -> int:
    """Each month's card count (0 to 4) in its own nibble."""
    cards -= (cards >> 1) & _PAIRS_OF_BITS
    return (cards & _PAIRS_OF_PAIRS) + ((cards >> 2) & _PAIRS_OF_PAIRS)


def _deal_check_may_fire(hand0: int, hand1: int, field: int) -> bool:
    """False when no deal check can fire on these 8-card sets: none holds four cards of a month
    or only even month counts (four pairs). A cheap filter in front of ``game._deal_checks``,
    which decides whenever this says True: most deals fire nothing, and the filter costs a tenth
    of the checks. The three sets are counted at once, side by side in one integer."""
    counts = _month_nibbles(hand0 | hand1 << 48 | field << 96)
    if counts & _FOURS:
        return True
    # Four pairs: a set without a month of odd count.
    odd = counts & _ONES
    return not odd & _SET_0 or not odd & _SET_1 or not odd & _SET_2


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


def _end_round(
    game: _Round,
    field: int,
    captured: list[int],
    calls: tuple[int, int],
    wild: list[int],
    ending: _Ending,
) -> Playout:
    """The round's end, as the engine's ``_stop`` / ``_void`` / ``_exhausted`` compute it:
    lightning collection, then the winner scored as a stop, or a fixed result. ``captured``,
    ``calls`` and ``wild`` (the month each seat's wild lightning took, 0: none) are by seat."""
    rules, round_number, dealer, scores = game
    outcome, detail, winner, by_yaku = ending
    month = round_month(round_number)
    for s in (0, 1):
        if wild[s]:
            cards = field & MONTH_MASKS[wild[s]]
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


def _first_willow(stock: Sequence[int], start: int) -> int:
    """The position of the first willow of ``stock`` from ``start`` on (its length: none)."""
    return next((i for i in range(start, len(stock)) if 1 << stock[i] & WILLOWS), len(stock))


def _play_round(
    game: _Round,
    step: int,
    seat: int,
    hand: int,
    other_hand: int,
    field: int,
    stock: Sequence[int],
    pos: int,
    cap: int,
    other_cap: int,
    calls: int,
    other_calls: int,
    last_caller: int,
    turn_points: int,
    drawn: int,
    wild: list[int],
    willow_seen: bool,
    choose: Chooser,
) -> Playout:
    """The play-out loop. ``seat`` is the seat to act; its values are the unprefixed locals, the
    other seat's are ``other_*``, and the two are swapped at each turn (cheaper than indexing
    pairs). ``step`` is the phase where the first turn resumes; ``wild`` (by seat) is the month
    each seat's wild lightning took. One pass of the loop is one turn."""
    rules, round_number, dealer, _ = game
    points = points_function(rules)
    month = round_month(round_number)
    wild_mode = rules.lightning_wild
    wild_always = wild_mode == "on"
    wild_possible = wild_always or wild_mode == "before-november"
    refill = rules.refill_empty_field
    empty_hand_stops = not rules.last_turn_koikoi
    limit = rules.koikoi_limit
    n_stock = len(stock)
    # Locals: the loop reads them on every turn.
    month_mask, month_of_bit, month_of = _MONTH_MASK, _MONTH_OF_BIT, MONTH_OF
    pairs_of_bits, pairs_of_pairs, ones = _PAIRS_OF_BITS, _PAIRS_OF_PAIRS, _ONES
    # Whether a willow has been seen matters only to a "before-november" wild lightning, so
    # rather than watch every card, it is worked out when that lightning is in a hand: a willow
    # was seen before, or has left a hand since (a hand card leaves only when played), or the
    # draws have gone past the first willow of the stock (read in order; a refill that turns
    # that willow up moves the mark to the next one, as a refill is no draw).
    hand_willows = (hand | other_hand) & WILLOWS
    first_willow = n_stock
    if wild_mode == "before-november":
        first_willow = _first_willow(stock, pos)
    # Each seat's yaku points for its current captures and calls, kept up to date so that a turn
    # that captures nothing needs no scoring: the engine's turn_points is ``pts`` at turn start.
    pts = points(cap, month, calls) if cap else 0
    other_pts = points(other_cap, month, other_calls) if other_cap else 0
    # The captures at the start of the turn: the yaku check scores only when they changed. -1
    # after a resumed draw (whatever happened before it must be checked); a resumed decision has
    # had its check.
    turn_cap = -1 if step == _TARGET else cap

    while True:
        if step == _PLAY:
            # 1. Play a hand card. legal_moves lists, for each hand card in card order, one play,
            # or two when it meets two field cards (lower target first), and after a wild
            # lightning one play per non-willow field card. Count them, then walk to the chosen
            # one, without building the list. ``two``: the cards of months with two on the field
            # (each month's field count in a nibble, as _month_nibbles; a hand card's month has
            # at most three there, so a count is two when its bit 1 is set and its bit 0 clear);
            # ``others``: the wild lightning's extra targets.
            counts = field - ((field >> 1) & pairs_of_bits)
            counts = (counts & pairs_of_pairs) + ((counts >> 2) & pairs_of_pairs)
            two = ((counts >> 1) & ~counts & ones) * 15
            others = 0
            if (
                wild_possible
                and hand & _LIGHTNING_BIT
                and (
                    wild_always
                    or not (
                        willow_seen or hand_willows & ~(hand | other_hand) or pos > first_willow
                    )
                )
            ):
                others = field & _NOT_WILLOWS
            # ``bit``: the card played; ``taken``: the field cards it takes (0: none).
            if not (hand & two or others):
                # The usual case: one play per hand card, in card order.
                rest = hand
                for _ in range(choose(hand.bit_count())):
                    rest &= rest - 1
                bit = rest & -rest
                taken = field & month_of_bit[bit]
            else:
                i = choose(hand.bit_count() + (hand & two).bit_count() + others.bit_count())
                rest = hand
                while True:
                    bit = rest & -rest
                    rest ^= bit
                    if bit & two:
                        if i < 2:
                            m = field & month_of_bit[bit]
                            low = m & -m
                            taken = low if i == 0 else m ^ low
                            break
                        i -= 2
                    elif i == 0:
                        taken = field & month_of_bit[bit]
                        break
                    else:
                        i -= 1
                    if bit == _LIGHTNING_BIT and others:
                        if i < others.bit_count():
                            # The wild lightning takes the i-th non-willow field card.
                            for _ in range(i):
                                others &= others - 1
                            taken = others & -others
                            wild[seat] = month_of[taken.bit_length() - 1]
                            break
                        i -= others.bit_count()
            hand ^= bit
            if taken:
                field ^= taken
                cap |= taken | bit
            else:
                field |= bit
            # 2. Draw (skipped when the stock is empty). A drawn card that meets two field cards
            # waits for its target: legal_moves lists the lower one first.
            if pos < n_stock:
                drawn = stock[pos]
                pos += 1
                bit = 1 << drawn
                taken = field & month_mask[drawn]
                if not taken:
                    field |= bit
                else:
                    if taken.bit_count() == 2:
                        low = taken & -taken
                        taken = taken ^ low if choose(2) else low
                    field ^= taken
                    cap |= taken | bit
        elif step == _TARGET:
            # Resuming at the drawn card's target (the rest of the turn as above).
            m = field & month_mask[drawn]
            low = m & -m
            taken = m ^ low if choose(2) else low
            field ^= taken
            cap |= taken | 1 << drawn
            step = _PLAY
        # 3. The yaku check: a rise over the turn's starting points asks for a decision, unless
        # the referee must stop for the player. No capture, no rise.
        if cap != turn_cap:
            pts = points(cap, month, calls)
            if pts > turn_points:
                if (empty_hand_stops and not hand) or (limit and calls >= limit):
                    return _end_round(
                        game, field, [cap, other_cap] if seat == 0 else [other_cap, cap],
                        (calls, other_calls) if seat == 0 else (other_calls, calls), wild,
                        ("stop", "automatic", seat, True),
                    )  # fmt: skip
                step = _DECISION
        if step == _DECISION:
            if choose(2):  # legal_moves lists koi-koi, then stop
                return _end_round(
                    game, field, [cap, other_cap] if seat == 0 else [other_cap, cap],
                    (calls, other_calls) if seat == 0 else (other_calls, calls), wild,
                    ("stop", "called", seat, True),
                )  # fmt: skip
            calls += 1
            last_caller = seat
            # A call may change his points (points_after_koikoi); the rise rule then compares
            # his next turn with the new level.
            pts = points(cap, month, calls)
            step = _PLAY
        # The next turn (game._next_turn), unless the round ends here: only after a turn that
        # emptied the hand (the dealer's last card, or both hands played out).
        if not hand:
            ending = _no_more_turns(rules, seat, dealer, last_caller, hand, other_hand)
            if ending is not None:
                return _end_round(
                    game, field, [cap, other_cap] if seat == 0 else [other_cap, cap],
                    (calls, other_calls) if seat == 0 else (other_calls, calls), wild, ending,
                )  # fmt: skip
        seat = 1 - seat
        hand, other_hand = other_hand, hand
        cap, other_cap = other_cap, cap
        calls, other_calls = other_calls, calls
        pts, other_pts = other_pts, pts
        turn_points = pts
        turn_cap = cap
        if refill and not field and pos < n_stock:
            field = 1 << stock[pos]
            if pos == first_willow:
                # A willow turned up by the refill is not drawn: the next one in the stock is
                # the first a draw can take.
                first_willow = _first_willow(stock, pos + 1)
            pos += 1
