"""The Koi-Koi game: a pure state machine.

``apply(state, seat, move)`` gives ``(new_state, events)`` or raises
:class:`~hanafuda_referee.errors.MoveRejected` (states are immutable values, so a rejected move
changes nothing). The referee performs every step that needs no choice — the draw, captures with
one match, the yaku check, automatic stops, round ends, the next deal — and stops only where a
seat must choose: a hand card to play, the target of a drawn card, koi-koi or stop.

>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> state, events = new_game(KoiKoiRules.from_preset("nintendo"), seed=42, first_dealer=0)
>>> state.turn, state.phase.name, len(legal_moves(state)) >= 8
(0, 'PLAY', True)
>>> state, events = apply(state, 0, legal_moves(state)[0])
>>> state.turn in (0, 1)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import NamedTuple

from hanafuda_referee.capture import check_hand_play, matches, resolve, take_chosen
from hanafuda_referee.cards import (
    MONTH_MASKS,
    MONTH_OF,
    WILLOWS,
    Card,
    cards_of,
    full_months,
    mask_of,
)
from hanafuda_referee.dealing import (
    FIRST_DEALER_STREAM,
    Deal,
    check_deal,
    rng_for,
    shuffled_deal,
    shuffled_deck,
)
from hanafuda_referee.errors import MoveRejected, Reason
from hanafuda_referee.koikoi.events import (
    CardDrawn,
    CardPlayed,
    DealCheck,
    Event,
    FieldRefilled,
    FirstDealerDrawn,
    GameEnded,
    KoiKoiCalled,
    LightningCollected,
    Resigned,
    RoundDealt,
    RoundEnded,
    RoundResult,
    Stopped,
    TargetRequired,
    YakuImproved,
)
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.koikoi.scoring import (
    PointsFunction,
    ScoreBreakdown,
    points_function,
    score_stop,
    yaku_of,
)
from hanafuda_referee.moves import KOIKOI, RESIGN, STOP, Move, MoveKind

__all__ = [
    "HAND_SIZE",
    "KoiKoiState",
    "Phase",
    "apply",
    "classify_hand",
    "legal_moves",
    "new_game",
    "resign",
    "result_breakdown",
    "round_month",
]

HAND_SIZE = 8
FIELD_SIZE = 8
_LIGHTNING = int(Card.WILLOW_LIGHTNING)
_WILLOW_MONTH = 11


class Phase(IntEnum):
    """What the game waits for."""

    #: The seat to act plays a hand card.
    PLAY = 1
    #: The seat to act names the field card its drawn card takes.
    DRAWN_TARGET = 2
    #: The seat to act calls koi-koi or stops.
    DECISION = 3
    #: The game is over.
    OVER = 4


class KoiKoiState(NamedTuple):
    """A whole Koi-Koi game at one instant. Card sets are bit masks.

    ``stock`` is the current deal's stock (top first) and ``stock_pos`` the next card to draw;
    ``turn_points`` is the yaku points of the seat to act at the start of its turn (after its own
    earlier calls), the level a yaku check must exceed; ``drawn`` is the drawn card waiting for
    its target; ``wild`` is, per seat, the month the lightning took (0: none).
    """

    rules: KoiKoiRules
    seed: int
    prepared: tuple[Deal, ...]
    deals_made: int
    round: int
    dealer: int
    scores: tuple[int, int]
    results: tuple[RoundResult, ...]
    phase: Phase
    turn: int
    hands: tuple[int, int]
    field: int
    stock: tuple[int, ...]
    stock_pos: int
    captured: tuple[int, int]
    calls: tuple[int, int]
    last_caller: int
    turn_points: int
    drawn: int
    wild: tuple[int, int]
    willow_seen: bool
    #: The seat that resigned (PLAY.md), -1 while nobody has: the game is then over.
    resigned: int = -1

    @property
    def month(self) -> int:
        """The round month (for ``tsukifuda``)."""
        return round_month(self.round)

    @property
    def stock_size(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def winner(self) -> int:
        """Once the game is over: the seat with more points, or -1 for a drawn game; the other
        seat when one resigned, whatever the scores."""
        if self.resigned >= 0:
            return 1 - self.resigned
        a, b = self.scores
        return 0 if a > b else 1 if b > a else -1


def round_month(round_number: int) -> int:
    """Round *k* is played in month ((k - 1) mod 12) + 1."""
    return (round_number - 1) % 12 + 1


class _Work:
    """A mutable scratch copy of a state: one move's steps edit it, then it is frozen again."""

    __slots__ = (*KoiKoiState._fields, "events", "score")

    rules: KoiKoiRules
    seed: int
    prepared: tuple[Deal, ...]
    deals_made: int
    round: int
    dealer: int
    scores: tuple[int, int]
    results: tuple[RoundResult, ...]
    phase: Phase
    turn: int
    hands: tuple[int, int]
    field: int
    stock: tuple[int, ...]
    stock_pos: int
    captured: tuple[int, int]
    calls: tuple[int, int]
    last_caller: int
    turn_points: int
    drawn: int
    wild: tuple[int, int]
    willow_seen: bool
    resigned: int
    events: list[Event]
    score: PointsFunction

    def __init__(self, state: KoiKoiState) -> None:
        # Spelled out rather than looped over the fields: this runs on every move.
        (
            self.rules,
            self.seed,
            self.prepared,
            self.deals_made,
            self.round,
            self.dealer,
            self.scores,
            self.results,
            self.phase,
            self.turn,
            self.hands,
            self.field,
            self.stock,
            self.stock_pos,
            self.captured,
            self.calls,
            self.last_caller,
            self.turn_points,
            self.drawn,
            self.wild,
            self.willow_seen,
            self.resigned,
        ) = state
        self.events = []
        self.score = points_function(state.rules)

    def freeze(self) -> KoiKoiState:
        return KoiKoiState(
            self.rules,
            self.seed,
            self.prepared,
            self.deals_made,
            self.round,
            self.dealer,
            self.scores,
            self.results,
            self.phase,
            self.turn,
            self.hands,
            self.field,
            self.stock,
            self.stock_pos,
            self.captured,
            self.calls,
            self.last_caller,
            self.turn_points,
            self.drawn,
            self.wild,
            self.willow_seen,
            self.resigned,
        )

    def points(self, seat: int) -> int:
        return self.score(self.captured[seat], round_month(self.round), self.calls[seat])


def _set(pair: tuple[int, int], seat: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


# --- creating a game -------------------------------------------------------------------------


def new_game(
    rules: KoiKoiRules,
    seed: int,
    deals: Sequence[Deal] = (),
    first_dealer: int | None = None,
) -> tuple[KoiKoiState, tuple[Event, ...]]:
    """A new game, dealt and waiting for the first dealer's play.

    ``seed`` drives every shuffle (and the first-dealer draw); ``deals`` are prepared deals,
    taken in order by the game's deals (a redeal takes the next one), shuffles following them.
    ``first_dealer`` (0 or 1) overrides the rule set's ``first_dealer`` option.
    """
    prepared = tuple(check_deal(d, 2, HAND_SIZE, FIELD_SIZE) for d in deals)
    if first_dealer is not None and first_dealer not in (0, 1):
        raise MoveRejected(
            Reason.UNKNOWN_SEAT, f"first dealer must be seat 0 or 1, not {first_dealer}"
        )
    start = rules.starting_points
    state = KoiKoiState(
        rules=rules,
        seed=seed,
        prepared=prepared,
        deals_made=0,
        round=0,
        dealer=0,
        scores=(start, start),
        results=(),
        phase=Phase.PLAY,
        turn=0,
        hands=(0, 0),
        field=0,
        stock=(),
        stock_pos=0,
        captured=(0, 0),
        calls=(0, 0),
        last_caller=-1,
        turn_points=0,
        drawn=0,
        wild=(0, 0),
        willow_seen=False,
    )
    w = _Work(state)
    w.dealer = _choose_first_dealer(w, first_dealer)
    _start_round(w)
    return w.freeze(), tuple(w.events)


def _choose_first_dealer(w: _Work, given: int | None) -> int:
    if given is not None:
        return given
    option = w.rules.first_dealer
    if option.startswith("seat-"):
        return int(option[5:])
    rng = rng_for(w.seed, FIRST_DEALER_STREAM)
    if option == "random":
        return rng.randrange(2)
    # "draw": each seat draws a card of a shuffled deck; the earlier month deals; same month:
    # draw again (from the same deck, so a try never repeats a card).
    deck = shuffled_deck(rng)
    draws: list[tuple[int, int]] = []
    for i in range(0, 48, 2):
        a, b = deck[i], deck[i + 1]
        draws.append((a, b))
        if MONTH_OF[a] != MONTH_OF[b]:
            dealer = 0 if MONTH_OF[a] < MONTH_OF[b] else 1
            w.events.append(FirstDealerDrawn(tuple(draws), dealer))
            return dealer
    raise AssertionError("twelve months cannot fill 24 same-month pairs")


# --- rounds ----------------------------------------------------------------------------------


def _next_deal(w: _Work) -> Deal:
    n = w.deals_made
    w.deals_made = n + 1
    if n < len(w.prepared):
        return w.prepared[n]
    return shuffled_deal(w.seed, n, 2, HAND_SIZE, FIELD_SIZE)


def _four_pairs(cards: int) -> bool:
    """Whether eight cards are four pairs of four different months (seed 000: "4 paires de
    cartes de suites différentes"), so four cards of one month are no two pairs.

    Every month is looked at, with no early exit: a deal's hands are checked when it is made
    and whenever a request replays the game, and the time that takes must not tell where a
    hidden hand's first odd month lies (docs/api.md, "Timing")."""
    paired = sum((cards & m).bit_count() in (0, 2) for m in MONTH_MASKS[1:])
    return cards.bit_count() == 8 and paired == 12


def classify_hand(hand: int) -> tuple[str, ...]:
    """The Koi-Koi starting-hand combinations of an 8-card hand: ``hand_four`` (teshi: four
    cards of one month) and ``hand_pairs`` (kuttsuki: four pairs of months).

    >>> from hanafuda_referee.cards import Card, MONTH_MASKS, mask_of
    >>> classify_hand(MONTH_MASKS[1] | MONTH_MASKS[2])
    ('hand_four',)
    >>> classify_hand(mask_of([Card.PINE_CRANE, Card.PINE_RIBBON, Card.PLUM_WARBLER,
    ...     Card.PLUM_RIBBON, Card.CHERRY_CURTAIN, Card.CHERRY_RIBBON, Card.IRIS_BRIDGE,
    ...     Card.IRIS_RIBBON]))
    ('hand_pairs',)
    """
    found = []
    if full_months(hand):
        found.append("hand_four")
    if _four_pairs(hand):
        found.append("hand_pairs")
    return tuple(found)


def _start_round(w: _Work) -> None:
    """Deal round ``w.round + 1`` (redealing as the checks say) and wait for the dealer's play."""
    w.round += 1
    rules = w.rules
    while True:
        deal = _next_deal(w)
        hands = deal.hand_masks()
        hand_pair = (hands[0], hands[1])
        field = mask_of(deal.field)
        w.hands, w.field = hand_pair, field
        w.stock, w.stock_pos = deal.stock, 0
        w.captured, w.calls, w.last_caller = (0, 0), (0, 0), -1
        w.drawn, w.wild, w.willow_seen = 0, (0, 0), False
        w.events.append(
            RoundDealt(w.round, round_month(w.round), w.dealer, hand_pair, field, len(deal.stock))
        )
        verdict = _deal_checks(rules, hand_pair, field)
        if verdict is None:
            break
        check, outcome, seats, cards = verdict
        w.events.append(DealCheck(check, outcome, seats, cards))
        if outcome == "redeal":
            continue
        if outcome == "void" or len(seats) == 2:
            _end_round(w, _result(w, "void", check, -1, 0))
        else:
            seat = seats[0]
            _end_round(w, _result(w, "teyaku", check, seat, rules.teyaku_points, hands[seat]))
        return
    w.turn = w.dealer
    w.phase = Phase.PLAY
    w.turn_points = 0


def _deal_checks(
    rules: KoiKoiRules, hands: tuple[int, int], field: int
) -> tuple[str, str, tuple[int, ...], int] | None:
    """The first deal check that fires, in the spec's order, or None.

    When a hand check fires with ``win``, every seat whose hand qualifies for a ``win`` check
    is a winner; two winners make the round void (RULES.md 1.2).
    """
    if rules.field_four != "ignore":
        four = full_months(field)
        if four:
            return ("field_four", rules.field_four, (), four)
    if rules.field_pairs != "ignore" and _four_pairs(field):
        return ("field_pairs", rules.field_pairs, (), field)
    qualifies = {
        "hand_four": [bool(full_months(h)) for h in hands],
        "hand_pairs": [_four_pairs(h) for h in hands],
    }
    for check in ("hand_four", "hand_pairs"):
        outcome = getattr(rules, check)
        seats = tuple(s for s in (0, 1) if qualifies[check][s])
        if outcome == "ignore" or not seats:
            continue
        if outcome == "win":
            seats = tuple(
                s
                for s in (0, 1)
                if any(getattr(rules, c) == "win" and qualifies[c][s] for c in qualifies)
            )
        cards = 0
        for s in seats:
            cards |= hands[s]
        return (check, outcome, seats, cards)
    return None


def _result(
    w: _Work,
    outcome: str,
    detail: str,
    winner: int,
    points: int,
    captured: int = 0,
    breakdown_context: tuple[int, int, int] = (0, 0, 0),
) -> RoundResult:
    own, opp, opp_points = breakdown_context
    return RoundResult(
        w.round,
        round_month(w.round),
        w.dealer,
        outcome,
        detail,
        winner,
        points,
        captured,
        own,
        opp,
        opp_points,
    )


def _end_round(w: _Work, result: RoundResult) -> None:
    rules = w.rules
    winner, points = result.winner, result.points
    if winner >= 0 and points:
        scores = list(w.scores)
        scores[winner] += points
        if rules.transfer:
            scores[1 - winner] -= points
        w.scores = (scores[0], scores[1])
    w.results += (result,)
    w.events.append(RoundEnded(result, w.scores))
    if winner >= 0:
        w.dealer = winner
    elif rules.dealer_after_void == "rotate":
        w.dealer = 1 - w.dealer
    over = w.round >= rules.rounds
    if rules.transfer and min(w.scores) <= 0:
        over = True
    if rules.target_score and max(w.scores) >= rules.target_score:
        over = True
    if over:
        w.phase = Phase.OVER
        w.drawn = 0
        a, b = w.scores
        w.events.append(GameEnded(w.scores, 0 if a > b else 1 if b > a else -1))
        return
    _start_round(w)


def _collect_lightning(w: _Work) -> None:
    """At the round's end, a seat whose lightning took a card takes that month's field cards."""
    for seat in (0, 1):
        month = w.wild[seat]
        if month:
            cards = w.field & MONTH_MASKS[month]
            if cards:
                w.field &= ~cards
                w.captured = _set(w.captured, seat, w.captured[seat] | cards)
                w.events.append(LightningCollected(seat, cards))


def _stop(w: _Work, seat: int, outcome: str, detail: str) -> None:
    """End the round with ``seat`` scoring as if he had stopped."""
    _collect_lightning(w)
    other = 1 - seat
    context = (w.calls[seat], w.calls[other], w.points(other))
    breakdown = score_stop(w.rules, w.captured[seat], round_month(w.round), *context)
    _end_round(
        w,
        _result(w, outcome, detail, seat, breakdown.total, w.captured[seat], context),
    )


def _void(w: _Work, outcome: str, detail: str) -> None:
    _collect_lightning(w)
    _end_round(w, _result(w, outcome, detail, -1, 0))


def _exhausted(w: _Work) -> None:
    """Both hands are played out and nobody stopped (RULES.md 1.3, exhaustion)."""
    mode = w.rules.exhaustion
    if mode == "last-koikoi-wins" and w.last_caller >= 0:
        _stop(w, w.last_caller, "exhaustion", mode)
    elif mode == "dealer-points":
        _collect_lightning(w)
        _end_round(w, _result(w, "exhaustion", mode, w.dealer, w.rules.dealer_points))
    else:
        _void(w, "void", "exhaustion")


# --- turns -----------------------------------------------------------------------------------


def _begin_turn(w: _Work, seat: int) -> None:
    w.turn = seat
    w.phase = Phase.PLAY
    w.turn_points = w.points(seat)
    if w.rules.refill_empty_field and not w.field and w.stock_pos < len(w.stock):
        card = w.stock[w.stock_pos]
        w.stock_pos += 1
        # Turned up, not played or drawn: a willow here leaves a before-november lightning
        # wild (RULES.md 1.3 "played or drawn"; seed 001: "jouée").
        w.field = 1 << card
        w.events.append(FieldRefilled(card))


def _next_turn(w: _Work) -> None:
    seat = w.turn
    if w.rules.end_when_dealer_empty and seat == w.dealer and not w.hands[seat]:
        other = 1 - seat
        if w.last_caller == other:
            _stop(w, other, "dealer-empty", "last-koikoi-wins")
        else:
            _void(w, "void", "dealer-empty")
        return
    if not w.hands[0] and not w.hands[1]:
        _exhausted(w)
        return
    _begin_turn(w, 1 - seat)


def _end_turn(w: _Work) -> None:
    """Step 3, the yaku check, then the next turn or the decision."""
    seat = w.turn
    points = w.points(seat)
    if points > w.turn_points:
        yaku = yaku_of(w.rules, w.captured[seat], round_month(w.round), w.calls[seat])
        w.events.append(YakuImproved(seat, yaku, points))
        rules = w.rules
        empty = not w.hands[seat] and not rules.last_turn_koikoi
        limited = rules.koikoi_limit and w.calls[seat] >= rules.koikoi_limit
        if empty or limited:
            w.events.append(Stopped(seat, True))
            _stop(w, seat, "stop", "automatic")
        else:
            w.phase = Phase.DECISION
        return
    _next_turn(w)


def _take(w: _Work, seat: int, cards: int) -> None:
    w.field &= ~cards
    w.captured = _set(w.captured, seat, w.captured[seat] | cards)


def _lightning_is_wild(rules: KoiKoiRules, willow_seen: bool) -> bool:
    """Whether the lightning played from the hand may take a card of any month now."""
    mode = rules.lightning_wild
    return mode == "on" or (mode == "before-november" and not willow_seen)


def _play(w: _Work, seat: int, card: int, target: int) -> None:
    hand = w.hands[seat]
    check_hand_play(hand, card, target)
    wild = (
        card == _LIGHTNING
        and target
        and (w.field >> target) & 1
        and MONTH_OF[target] != _WILLOW_MONTH
        and _lightning_is_wild(w.rules, w.willow_seen)
    )
    if wild:
        taken = (1 << card) | (1 << target)
        w.wild = _set(w.wild, seat, MONTH_OF[target])
    else:
        taken = resolve(w.field, card, target)
    w.hands = _set(w.hands, seat, hand & ~(1 << card))
    if MONTH_OF[card] == _WILLOW_MONTH:
        w.willow_seen = True
    if taken:
        _take(w, seat, taken)
    else:
        w.field |= 1 << card
    w.events.append(CardPlayed(seat, card, taken, bool(wild)))
    _draw(w, seat)


def _draw(w: _Work, seat: int) -> None:
    if w.stock_pos >= len(w.stock):
        _end_turn(w)
        return
    card = w.stock[w.stock_pos]
    w.stock_pos += 1
    if MONTH_OF[card] == _WILLOW_MONTH:
        w.willow_seen = True
    m = matches(w.field, card)
    if m.bit_count() == 2:
        w.drawn = card
        w.phase = Phase.DRAWN_TARGET
        w.events.append(TargetRequired(seat, card, m))
        return
    taken = (1 << card) | m if m else 0
    if taken:
        _take(w, seat, taken)
    else:
        w.field |= 1 << card
    w.events.append(CardDrawn(seat, card, taken))
    _end_turn(w)


def _choose(w: _Work, seat: int, target: int) -> None:
    card = w.drawn
    taken = take_chosen(w.field, card, target)
    _take(w, seat, taken)
    w.drawn = 0
    w.events.append(CardDrawn(seat, card, taken))
    _end_turn(w)


#: Every play move, interned: ``_PLAYS[card][target]`` (listing legal moves is a hot path).
_PLAYS = tuple(tuple(Move(MoveKind.PLAY, c, t) for t in range(49)) for c in range(49))

_AWAITED = {
    Phase.PLAY: "a hand card to play",
    Phase.DRAWN_TARGET: "the target of the drawn card",
    Phase.DECISION: "koi-koi or stop",
}


def apply(state: KoiKoiState, seat: int, move: Move) -> tuple[KoiKoiState, tuple[Event, ...]]:
    """The state after ``seat`` makes ``move``, and what happened.

    Raises :class:`MoveRejected` (the state is untouched: it is a value) with one of
    ``GAME_OVER``, ``UNKNOWN_SEAT``, ``NOT_YOUR_TURN``, ``MOVE_NOT_IN_GAME``, ``WRONG_MOVE``,
    ``NO_DECISION_PENDING``, ``MALFORMED_MOVE``, ``CARD_NOT_IN_HAND``, ``TARGET_REQUIRED``,
    ``TARGET_DOES_NOT_MATCH``.
    """
    phase = state.phase
    if phase is Phase.OVER:
        raise MoveRejected(Reason.GAME_OVER, "the game is over")
    if seat not in (0, 1):
        raise MoveRejected(Reason.UNKNOWN_SEAT, f"Koi-Koi has seats 0 and 1, not {seat}")
    if move.kind is MoveKind.RESIGN:
        return resign(state, seat, move)
    if seat != state.turn:
        raise MoveRejected(Reason.NOT_YOUR_TURN, f"seat {state.turn} is to act")
    kind = move.kind
    if kind > MoveKind.STOP:
        raise MoveRejected(Reason.MOVE_NOT_IN_GAME, f"Koi-Koi has no {kind.name.lower()} move")
    expected = (
        MoveKind.PLAY
        if phase is Phase.PLAY
        else MoveKind.CHOOSE_TARGET
        if phase is Phase.DRAWN_TARGET
        else None
    )
    if expected is None and kind not in (MoveKind.KOIKOI, MoveKind.STOP):
        raise MoveRejected(Reason.WRONG_MOVE, f"the game waits for {_AWAITED[phase]}")
    if expected is not None and kind != expected:
        reason = Reason.NO_DECISION_PENDING if phase is Phase.PLAY else Reason.WRONG_MOVE
        raise MoveRejected(reason, f"the game waits for {_AWAITED[phase]}")
    if (kind is not MoveKind.PLAY and move.card) or (
        kind in (MoveKind.KOIKOI, MoveKind.STOP) and move.target
    ):
        takes = "a target only" if kind is MoveKind.CHOOSE_TARGET else "no card and no target"
        raise MoveRejected(Reason.MALFORMED_MOVE, f"a {kind.name.lower()} move takes {takes}")
    w = _Work(state)
    if kind is MoveKind.PLAY:
        _play(w, seat, move.card, move.target)
    elif kind is MoveKind.CHOOSE_TARGET:
        _choose(w, seat, move.target)
    elif kind is MoveKind.KOIKOI:
        w.calls = _set(w.calls, seat, w.calls[seat] + 1)
        w.last_caller = seat
        w.events.append(KoiKoiCalled(seat, w.calls[seat]))
        _next_turn(w)
    else:
        w.events.append(Stopped(seat, False))
        _stop(w, seat, "stop", "called")
    return w.freeze(), tuple(w.events)


def resign(
    state: KoiKoiState, seat: int, move: Move = RESIGN
) -> tuple[KoiKoiState, tuple[Event, ...]]:
    """``seat`` gives up (PLAY.md): the round in progress ends void, with no result recorded
    (nobody scores it), and the game ends, won by the other seat whatever the scores. Open to
    either seat in any phase, on turn or not.

    >>> from hanafuda_referee.koikoi.rules import KoiKoiRules
    >>> state, _ = new_game(KoiKoiRules(), seed=1, first_dealer=0)
    >>> over, events = apply(state, 1, RESIGN)
    >>> over.phase.name, over.winner, events[-1]
    ('OVER', 0, GameEnded(scores=(0, 0), winner=0, resigned=1))
    """
    if state.phase is Phase.OVER:
        raise MoveRejected(Reason.GAME_OVER, "the game is over")
    if seat not in (0, 1):
        raise MoveRejected(Reason.UNKNOWN_SEAT, f"Koi-Koi has seats 0 and 1, not {seat}")
    if move.card or move.target:
        raise MoveRejected(Reason.MALFORMED_MOVE, "a resign move takes no card and no target")
    over = state._replace(phase=Phase.OVER, drawn=0, resigned=seat)
    return over, (Resigned(seat), GameEnded(state.scores, 1 - seat, seat))


def legal_moves(state: KoiKoiState, seat: int | None = None) -> list[Move]:
    """Every move the seat to act may make (none for another ``seat``, or once the game is over).
    A resignation, open to every seat at any time, is not listed.

    A play lists a target only where one is required (two matches) or where the lightning takes a
    card of another month; :func:`apply` also accepts a play naming its single match, or one of
    three matches, as the same move.
    """
    phase = state.phase
    if phase is Phase.OVER or (seat is not None and seat != state.turn):
        return []
    if phase is Phase.DECISION:
        return [KOIKOI, STOP]
    field = state.field
    if phase is Phase.DRAWN_TARGET:
        return [Move.choose(c) for c in cards_of(matches(field, state.drawn))]
    moves: list[Move] = []
    hand = state.hands[state.turn]
    while hand:
        low = hand & -hand
        card = low.bit_length() - 1
        hand ^= low
        m = field & MONTH_MASKS[MONTH_OF[card]]
        if m.bit_count() == 2:
            low_m = m & -m
            plays = _PLAYS[card]
            moves.append(plays[low_m.bit_length() - 1])
            moves.append(plays[(m ^ low_m).bit_length() - 1])
        else:
            moves.append(_PLAYS[card][0])
        if card == _LIGHTNING and _lightning_is_wild(state.rules, state.willow_seen):
            others = field & ~WILLOWS
            moves.extend(_PLAYS[card][c] for c in cards_of(others))
    return moves


def result_breakdown(rules: KoiKoiRules, result: RoundResult) -> ScoreBreakdown | None:
    """The arithmetic of a round won by yaku (stop, exhaustion, dealer-empty), else None."""
    if result.outcome not in ("stop", "exhaustion", "dealer-empty") or result.detail == (
        "dealer-points"
    ):
        return None
    return score_stop(
        rules,
        result.captured,
        result.month,
        result.own_calls,
        result.opponent_calls,
        result.opponent_points,
    )
