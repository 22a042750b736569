"""Koi-Koi as a hosted game: the :class:`~.adapter.GameAdapter` over the Koi-Koi engine.

Events are stored as the full truth (a deal holds both hands) in a compact varint encoding, one
blob per ``Event`` message, so that a stored event maps to exactly one message whoever reads it
(the sequence numbers are then the same for every viewer). Projection for a seat happens when an
event is read: a spectator sees no hand, a seat only its own.

Blob layout: the tag (an ``_Tag``) followed by the fields that tag lists, as unsigned varints
(scores as zigzag varints); card sets are bit masks. Tags and the word tables are append-only:
stored games use their numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from functools import lru_cache
from typing import Any, TypeVar, cast

from hanafuda.v1 import events_pb2, game_pb2, rules_pb2, scoring_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.cards import MONTH_OF
from hanafuda_referee.dealing import Deal, shuffled_deal
from hanafuda_referee.hosting.adapter import GameInfo
from hanafuda_referee.hosting.convert import (
    card_list,
    card_value,
    deal_to_proto,
    koikoi_overrides,
    koikoi_rules_to_proto,
    score_to_proto,
)
from hanafuda_referee.hosting.written_parts import WrittenParts
from hanafuda_referee.identity_cache import IdentityCache
from hanafuda_referee.koikoi import codec
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
from hanafuda_referee.koikoi.game import (
    FIELD_SIZE,
    HAND_SIZE,
    KoiKoiState,
    Phase,
    apply,
    legal_moves,
    new_game,
    result_breakdown,
    round_month,
)
from hanafuda_referee.koikoi.rules import DEFAULT_PRESET, PRESETS, YAKU_IDS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import Yaku, yaku_of
from hanafuda_referee.koikoi.view import SeatInfo, view
from hanafuda_referee.moves import Move, MoveKind
from hanafuda_referee.varint import Reader, Writer, mask_bytes, pack
from hanafuda_referee.writers.forms import MESSAGE, Form, WrittenEvent

__all__ = ["KOI_KOI", "KoiKoiAdapter"]

W = TypeVar("W")

_SEATS = 2

#: One-line descriptions of the presets, by name, in the order ListPresets gives them.
PRESET_DESCRIPTIONS: dict[str, str] = {
    "fudawiki": "The rules as the fuda-wiki describes them; the default.",
    "wikipedia-fr": "The rules of the French Wikipedia article on Koi-Koi.",
    "hanafuda-legends": "The rules of the Hanafuda Legends game.",
    "coins": "A transfer game from 30 points each, as played for coins.",
    "koikoi-japan": "The rules of the PC game Koi-Koi Japan: 8 rounds, koi-koi bonus points.",
    "nintendo": "The rules of Nintendo's Koi-Koi games.",
}


class _Tag(IntEnum):
    """The kinds of stored event (append-only: stored games use these numbers)."""

    GAME_CREATED = 1
    FIRST_DEALER_DRAWN = 2
    ROUND_DEALT = 3
    DEAL_CHECK_FIRED = 4
    REDEALT = 5
    CARD_PLAYED = 6
    CARD_DRAWN = 7
    TARGET_REQUIRED = 8
    TARGET_CHOSEN = 9
    FIELD_REFILLED = 10
    YAKU_FORMED = 11
    KOIKOI_CALLED = 12
    STOPPED = 13
    LIGHTNING_COLLECTED = 14
    ROUND_ENDED = 15
    GAME_ENDED = 16
    #: ROUND_DEALT with its hands at a fixed width (written since format 2 of the states, see
    #: :mod:`hanafuda_referee.varint`): reading a log decodes every deal of it, and a varint
    #: hand's length would depend on its highest card. ROUND_DEALT is still read.
    ROUND_DEALT_FIXED = 17
    #: A seat resigned (seat, whether its clock resigned for it).
    RESIGNED = 18


#: Deal checks, numbered as the ``DealCheck`` enum (1 to 4).
_CHECKS = ("", "field_four", "field_pairs", "hand_four", "hand_pairs")
#: Deal check outcomes, numbered as the ``DealCheckAction`` enum (1 to 4).
_OUTCOMES = ("", "redeal", "void", "win", "ignore")
#: Words of round results, stored by index (append-only).
_WORDS = (
    "stop",
    "exhaustion",
    "dealer-empty",
    "teyaku",
    "void",
    "called",
    "automatic",
    "last-koikoi-wins",
    "dealer-points",
    "field_four",
    "field_pairs",
    "hand_four",
    "hand_pairs",
)
_WORD_INDEX = {w: i for i, w in enumerate(_WORDS)}

_ROUND_END = {
    "stop": game_pb2.ROUND_END_STOP,
    "exhaustion": game_pb2.ROUND_END_EXHAUSTION,
    "dealer-empty": game_pb2.ROUND_END_DEALER_EMPTY,
    "teyaku": game_pb2.ROUND_END_DEAL_CHECK,
}

_WAITING = {
    Phase.PLAY: game_pb2.WAITING_FOR_HAND_PLAY,
    Phase.DRAWN_TARGET: game_pb2.WAITING_FOR_TARGET_CHOICE,
    Phase.DECISION: game_pb2.WAITING_FOR_KOIKOI_DECISION,
    Phase.OVER: game_pb2.WAITING_FOR_NOTHING,
}

#: How a game ended, stored in GAME_ENDED by these numbers (the ``GameEnd`` enum's).
_GAME_END_ROUNDS = game_pb2.GAME_END_ROUNDS_PLAYED
_GAME_END_OUT = game_pb2.GAME_END_OUT_OF_POINTS
_GAME_END_TARGET = game_pb2.GAME_END_TARGET_REACHED
_GAME_END_RESIGNED = game_pb2.GAME_END_RESIGNED


def _game_end(rules: KoiKoiRules, scores: tuple[int, int], resigned: int = -1) -> int:
    """Why a game with these final scores ended (a resignation, else the first reason that
    holds, as the engine checks them after the last round played)."""
    if resigned >= 0:
        return _GAME_END_RESIGNED
    if rules.transfer and min(scores) <= 0:
        return _GAME_END_OUT
    if rules.target_score and max(scores) >= rules.target_score:
        return _GAME_END_TARGET
    return _GAME_END_ROUNDS


_VIEW = game_pb2.GameView.DESCRIPTOR
_SEAT_INFO = game_pb2.SeatInfo.DESCRIPTOR
_YAKU_SCORE = scoring_pb2.YakuScore.DESCRIPTOR


class _WrittenParts(WrittenParts[W]):
    """The parts of Koi-Koi's views and events in one form (see :class:`.WrittenParts`), with
    each seat's line, which changes only when that seat plays."""

    def __init__(self, parts: _RuleSetParts, form: Form[W]) -> None:
        rules = parts.rules
        super().__init__(
            form,
            parts.message,
            lambda blob, seat, game: event_to_proto(rules, blob, seat, game),
            parts.round_result,
            created_tag=_Tag.GAME_CREATED,
            dealt_tags=(_Tag.ROUND_DEALT, _Tag.ROUND_DEALT_FIXED),
        )
        self._parts = parts
        self.seat = lru_cache(maxsize=4096)(self._seat)
        self._seat_yaku = lru_cache(maxsize=4096)(self._seat_yaku_uncached)
        self._yaku = lru_cache(maxsize=4096)(self._yaku_uncached)

    def _yaku_uncached(self, yaku: Yaku) -> W:
        values = {"id": yaku.id, "cards": card_list(yaku.cards), "points": yaku.points}
        return self.form.compose(_YAKU_SCORE, values)

    def _seat_yaku_uncached(self, captured: int, month: int, koikoi_calls: int) -> tuple[Any, int]:
        """A seat's yaku as a repeated field's value, and their points."""
        yaku = yaku_of(self._parts.rules, captured, month, koikoi_calls)
        return self.form.list([self._yaku(y) for y in yaku]), sum(y.points for y in yaku)

    def _seat(self, info: SeatInfo, month: int, name: str) -> W:
        """A seat's line (:meth:`_RuleSetParts.seat_info`), composed."""
        yaku, yaku_points = self._seat_yaku(info.captured, month, info.koikoi_calls)
        values = {
            "seat": info.seat,
            "name": name,
            "score": info.score,
            "captured": card_list(info.captured),
            "koikoi_calls": info.koikoi_calls,
            "hand_size": info.hand_size,
            "participation": game_pb2.PARTICIPATION_JOINED,
            "yaku": yaku,
            "yaku_points": yaku_points,
            "wild_month": info.wild,
        }
        return self.form.compose(_SEAT_INFO, values)


class _RuleSetParts:
    """What views and events of one rule set share: the rules and each finished round's result
    as messages, built once (callers copy them, never mutate them), and, per form, the parts
    views are composed from (:meth:`written`).

    Kept per rule set, each with caches of its own (see :func:`_parts`).
    """

    def __init__(self, rules: KoiKoiRules) -> None:
        self.rules = rules
        self.message = koikoi_rules_to_proto(rules)
        self.round_result = lru_cache(maxsize=4096)(self._round_result)
        self._written: dict[int, _WrittenParts[Any]] = {}

    def written(self, form: Form[W]) -> _WrittenParts[W]:
        """The parts written in ``form`` (one of the module constants of
        :mod:`hanafuda_referee.writers.forms`)."""
        parts = self._written.get(id(form))
        if parts is None:
            parts = self._written[id(form)] = _WrittenParts(self, form)
        return parts

    def _round_result(self, result: RoundResult) -> game_pb2.RoundResult:
        return round_result_to_proto(self.rules, result)


@lru_cache(maxsize=128)
def _parts_of_equal(rules: KoiKoiRules) -> _RuleSetParts:
    return _RuleSetParts(rules)


#: :func:`_parts` by the identity of a rule set object (bounded: past it, the parts are found
#: again by equality).
_PARTS_BY_ID: IdentityCache[KoiKoiRules, _RuleSetParts] = IdentityCache(1024)


def _parts(rules: KoiKoiRules) -> _RuleSetParts:
    """The parts of ``rules``. A game's states share one rule set object, so that object is
    looked up first, by identity: hashing a rule set (every option and yaku) on every view
    costs a few percent of a move. An equal rule set object from elsewhere (another game, a
    decoded state) finds the same parts by equality."""
    known = _PARTS_BY_ID.get(rules)
    if known is not None:
        return known
    return _PARTS_BY_ID.put(rules, _parts_of_equal(rules))


def _rules_message(rules: KoiKoiRules) -> rules_pb2.Rules:
    """The rule set as a message, built once per rule set (callers copy it, never mutate it)."""
    return _parts(rules).message


# --- encoding events -------------------------------------------------------------------------


def _write_result(w: Writer, r: RoundResult) -> None:
    w.uint(r.round)
    w.uint(r.dealer)
    w.uint(_WORD_INDEX[r.outcome])
    w.uint(_WORD_INDEX[r.detail])
    w.uint(r.winner + 1)
    for value in (r.points, r.captured, r.own_calls, r.opponent_calls, r.opponent_points):
        w.uint(value)


def _read_result(r: Reader) -> RoundResult:
    number, dealer = r.uint(), r.uint()
    outcome, detail = _WORDS[r.uint()], _WORDS[r.uint()]
    winner = r.uint() - 1
    points, taken, own, opp, opp_points = (r.uint() for _ in range(5))
    return RoundResult(
        number,
        round_month(number),
        dealer,
        outcome,
        detail,
        winner,
        points,
        taken,
        own,
        opp,
        opp_points,
    )


def _blob(tag: _Tag, *fields: int) -> bytes:
    return pack(tag, *fields)


def encode_events(
    before: KoiKoiState,
    after: KoiKoiState,
    move: Move | None,
    events: Sequence[Event],
    *,
    timed_out: bool = False,
) -> list[bytes]:
    """The engine's events of one move (``move`` None: the creation) as stored blobs.

    ``before`` is the state the move was applied to: it tells whether a yaku is a first one or
    an improvement (the seat had yaku points at the start of its turn). ``after`` tells how a
    finished game ended. ``timed_out``: the move is a resignation by the seat's clock.
    """
    blobs: list[bytes] = []
    choosing = move is not None and move.kind is MoveKind.CHOOSE_TARGET
    hands = (0, 0)
    for event in events:
        if isinstance(event, FirstDealerDrawn):
            for i, (a, b) in enumerate(event.draws):
                last = i == len(event.draws) - 1
                blobs.append(_blob(_Tag.FIRST_DEALER_DRAWN, a, b, event.dealer + 1 if last else 0))
        elif isinstance(event, RoundDealt):
            hands = event.hands
            blobs.append(
                b"".join(
                    (
                        pack(_Tag.ROUND_DEALT_FIXED, event.round, event.dealer),
                        mask_bytes(event.hands[0]),
                        mask_bytes(event.hands[1]),
                        pack(event.field, event.stock_size),
                    )
                )
            )
        elif isinstance(event, DealCheck):
            check, outcome = _CHECKS.index(event.check), _OUTCOMES.index(event.outcome)
            if event.seats:
                # One message per seat whose hand met the check, each showing that hand.
                for seat in event.seats:
                    cards = event.cards & hands[seat]
                    blobs.append(_blob(_Tag.DEAL_CHECK_FIRED, check, outcome, seat + 1, cards))
            else:
                blobs.append(_blob(_Tag.DEAL_CHECK_FIRED, check, outcome, 0, event.cards))
            if event.outcome == "redeal":
                blobs.append(_blob(_Tag.REDEALT, check))
        elif isinstance(event, FieldRefilled):
            blobs.append(_blob(_Tag.FIELD_REFILLED, event.card))
        elif isinstance(event, CardPlayed):
            taken = event.captured & ~(1 << event.card)
            blobs.append(_blob(_Tag.CARD_PLAYED, event.seat, event.card, taken, int(event.wild)))
        elif isinstance(event, TargetRequired):
            # The contract reports the draw itself first (nothing taken yet), then the choice.
            blobs.append(_blob(_Tag.CARD_DRAWN, event.seat, event.card, 0))
            blobs.append(_blob(_Tag.TARGET_REQUIRED, event.seat, event.card, event.options))
        elif isinstance(event, CardDrawn):
            taken = event.captured & ~(1 << event.card)
            tag = _Tag.TARGET_CHOSEN if choosing else _Tag.CARD_DRAWN
            blobs.append(_blob(tag, event.seat, event.card, taken))
            # Only the first draw of a target choice is the chosen one.
            choosing = False
        elif isinstance(event, YakuImproved):
            blobs.append(_yaku_blob(event, improved=before.turn_points > 0))
        elif isinstance(event, KoiKoiCalled):
            blobs.append(_blob(_Tag.KOIKOI_CALLED, event.seat, event.calls))
        elif isinstance(event, Stopped):
            blobs.append(_blob(_Tag.STOPPED, event.seat, int(event.automatic)))
        elif isinstance(event, LightningCollected):
            blobs.append(_blob(_Tag.LIGHTNING_COLLECTED, event.seat, event.cards))
        elif isinstance(event, RoundEnded):
            w = Writer()
            w.uint(_Tag.ROUND_ENDED)
            _write_result(w, event.result)
            w.sint(event.scores[0])
            w.sint(event.scores[1])
            blobs.append(w.getvalue())
        elif isinstance(event, Resigned):
            blobs.append(_blob(_Tag.RESIGNED, event.seat, int(timed_out)))
        elif isinstance(event, GameEnded):
            w = Writer()
            w.uint(_Tag.GAME_ENDED)
            w.sint(event.scores[0])
            w.sint(event.scores[1])
            w.uint(event.winner + 1)
            w.uint(_game_end(after.rules, event.scores, event.resigned))
            if event.resigned >= 0:
                # An optional last field: games ended before resignation existed lack it.
                w.uint(event.resigned + 1)
            blobs.append(w.getvalue())
        else:  # pragma: no cover - every engine event is handled above
            raise TypeError(f"unknown Koi-Koi event {event!r}")
    return blobs


def _yaku_blob(event: YakuImproved, *, improved: bool) -> bytes:
    w = Writer()
    w.uint(_Tag.YAKU_FORMED)
    w.uint(event.seat)
    w.uint(event.points)
    w.uint(int(improved))
    w.uint(len(event.yaku))
    for yaku in event.yaku:
        w.uint(YAKU_IDS.index(yaku.id))
        w.uint(yaku.points)
        w.uint(yaku.cards)
    return w.getvalue()


# --- projecting events -----------------------------------------------------------------------


def round_result_to_proto(rules: KoiKoiRules, result: RoundResult) -> game_pb2.RoundResult:
    """A finished round as ``RoundResult``, with the score's arithmetic when yaku decided it."""
    message = game_pb2.RoundResult(round=result.round, month=result.month, dealer=result.dealer)
    if result.outcome == "void":
        if result.detail in _CHECKS[1:]:
            message.end = game_pb2.ROUND_END_DEAL_CHECK
            message.deal_check = _CHECKS.index(result.detail)  # type: ignore[assignment]
        elif result.detail == "dealer-empty":
            message.end = game_pb2.ROUND_END_DEALER_EMPTY
        else:
            message.end = game_pb2.ROUND_END_EXHAUSTION
    else:
        message.end = _ROUND_END[result.outcome]
        if result.outcome == "teyaku":
            message.deal_check = _CHECKS.index(result.detail)  # type: ignore[assignment]
    if result.winner >= 0:
        message.winner = result.winner
        breakdown = result_breakdown(rules, result)
        if breakdown is not None:
            message.score.CopyFrom(score_to_proto(breakdown))
        else:
            # A hand check won at the deal, or dealer points: a fixed score, no multiplier.
            message.score.CopyFrom(
                scoring_pb2.ScoreBreakdown(base=result.points, points=result.points)
            )
    return message


def _game_result(
    scores: tuple[int, int], winner: int, end: int, resigned: int = -1
) -> game_pb2.GameResult:
    message = game_pb2.GameResult(
        end=end,  # type: ignore[arg-type]
        scores=list(scores),
        draw=winner < 0,
    )
    if winner >= 0:
        message.winner = winner
    if resigned >= 0:
        message.resigned = resigned
    return message


def event_to_proto(
    rules: KoiKoiRules, blob: bytes, seat: int | None, game: GameInfo
) -> events_pb2.Event:
    """A stored event as ``seat`` (None: a spectator) may see it."""
    r = Reader(blob)
    tag = _Tag(r.uint())
    out = events_pb2.Event()
    if tag is _Tag.GAME_CREATED:
        out.game_created.kind = rules_pb2.GAME_KIND_KOI_KOI
        out.game_created.rules.CopyFrom(_rules_message(rules))
        out.game_created.players.extend(game.players)
    elif tag is _Tag.FIRST_DEALER_DRAWN:
        a, b, dealer = r.uint(), r.uint(), r.uint()
        out.first_dealer_drawn.cards.extend([card_value(a), card_value(b)])
        if dealer:
            out.first_dealer_drawn.dealer = dealer - 1
    elif tag is _Tag.ROUND_DEALT or tag is _Tag.ROUND_DEALT_FIXED:
        number, dealer = r.uint(), r.uint()
        if tag is _Tag.ROUND_DEALT_FIXED:
            hand0, hand1 = r.mask(), r.mask()
        else:
            hand0, hand1 = r.uint(), r.uint()
        field, stock = r.uint(), r.uint()
        dealt = out.round_dealt
        dealt.round, dealt.month, dealt.dealer = number, round_month(number), dealer
        # The projection: a seat receives its own hand only, a spectator none.
        if seat == 0:
            dealt.hand.extend(card_list(hand0))
        elif seat == 1:
            dealt.hand.extend(card_list(hand1))
        dealt.field.extend(card_list(field))
        dealt.stock_size = stock
    elif tag is _Tag.DEAL_CHECK_FIRED:
        check, outcome, who, cards = (r.uint() for _ in range(4))
        fired = out.deal_check_fired
        fired.check, fired.outcome = check, outcome  # type: ignore[assignment]
        if who:
            fired.seat = who - 1
        fired.cards.extend(card_list(cards))
    elif tag is _Tag.REDEALT:
        out.redealt.check = r.uint()  # type: ignore[assignment]
    elif tag is _Tag.CARD_PLAYED:
        actor, card, taken, wild = r.uint(), r.uint(), r.uint(), r.uint()
        out.actor = actor
        out.card_played.card = card_value(card)
        out.card_played.captured.extend(card_list(taken))
        out.card_played.wild = bool(wild)
    elif tag is _Tag.CARD_DRAWN:
        _, card, taken = r.uint(), r.uint(), r.uint()
        out.card_drawn.card = card_value(card)
        out.card_drawn.captured.extend(card_list(taken))
    elif tag is _Tag.TARGET_REQUIRED:
        who, card, options = r.uint(), r.uint(), r.uint()
        out.target_required.seat = who
        out.target_required.card = card_value(card)
        out.target_required.targets.extend(card_list(options))
    elif tag is _Tag.TARGET_CHOSEN:
        actor, card, taken = r.uint(), r.uint(), r.uint()
        out.actor = actor
        out.target_chosen.card = card_value(card)
        out.target_chosen.captured.extend(card_list(taken))
    elif tag is _Tag.FIELD_REFILLED:
        out.field_refilled.card = card_value(r.uint())
    elif tag is _Tag.YAKU_FORMED:
        who, points, improved, count = (r.uint() for _ in range(4))
        formed = out.yaku_formed
        formed.seat, formed.points, formed.improved = who, points, bool(improved)
        for _ in range(count):
            yaku_id, yaku_points, cards = YAKU_IDS[r.uint()], r.uint(), r.uint()
            formed.yaku.append(
                scoring_pb2.YakuScore(id=yaku_id, cards=card_list(cards), points=yaku_points)
            )
    elif tag is _Tag.KOIKOI_CALLED:
        actor, calls = r.uint(), r.uint()
        out.actor = actor
        out.koikoi_called.seat, out.koikoi_called.calls = actor, calls
    elif tag is _Tag.STOPPED:
        who, automatic = r.uint(), bool(r.uint())
        if not automatic:
            out.actor = who
        out.stopped.seat, out.stopped.automatic = who, automatic
    elif tag is _Tag.LIGHTNING_COLLECTED:
        who, cards = r.uint(), r.uint()
        collected = out.lightning_collected
        collected.seat = who
        # The engine collects one month's cards: the month of any of them.
        collected.month = MONTH_OF[(cards & -cards).bit_length() - 1] if cards else 0
        collected.cards.extend(card_list(cards))
    elif tag is _Tag.ROUND_ENDED:
        result = _read_result(r)
        r.sint(), r.sint()  # the scores after the round: the view carries them
        out.round_ended.result.CopyFrom(round_result_to_proto(rules, result))
    elif tag is _Tag.RESIGNED:
        who, timed_out = r.uint(), bool(r.uint())
        if not timed_out:
            out.actor = who
        out.resigned.seat, out.resigned.timed_out = who, timed_out
    elif tag is _Tag.GAME_ENDED:
        scores = (r.sint(), r.sint())
        winner, end = r.uint() - 1, r.uint()
        resigned = r.uint() - 1 if r.position < len(blob) else -1
        out.game_ended.result.CopyFrom(_game_result(scores, winner, end, resigned))
    r.done()
    return out


# --- the adapter -----------------------------------------------------------------------------


class KoiKoiAdapter:
    """Koi-Koi for the hosted-games layer (see :class:`~.adapter.GameAdapter`)."""

    kind: int = rules_pb2.GAME_KIND_KOI_KOI

    def rules_of(self, request: service_pb2.CreateGameRequest) -> KoiKoiRules:
        """The rule set a creation request asks for (preset plus overrides)."""
        which = request.WhichOneof("overrides")
        if which == "hachi_hachi":
            raise ApiError("INVALID_ARGUMENT", "Hachi-Hachi overrides for a Koi-Koi game")
        overrides = koikoi_overrides(request.koi_koi) if which == "koi_koi" else {}
        return KoiKoiRules.from_preset(request.preset or DEFAULT_PRESET, overrides)

    def new_game(
        self,
        request: service_pb2.CreateGameRequest,
        seed: int,
        deals: Sequence[Deal],
    ) -> tuple[KoiKoiState, list[bytes]]:
        """See :meth:`.adapter.GameAdapter.new_game`."""
        if len(request.players) != _SEATS:
            raise ApiError("INVALID_ARGUMENT", f"Koi-Koi has 2 players, not {len(request.players)}")
        rules = self.rules_of(request)
        first = request.first_dealer if request.HasField("first_dealer") else None
        if first is not None and first >= _SEATS:
            raise ApiError("UNKNOWN_SEAT", f"first dealer must be seat 0 or 1, not {first}")
        state, events = new_game(rules, seed, deals, first)
        blobs = [_blob(_Tag.GAME_CREATED)]
        blobs += encode_events(state, state, None, events)
        return state, blobs

    def apply(
        self, state: KoiKoiState, seat: int, move: Move, *, timed_out: bool = False
    ) -> tuple[KoiKoiState, list[bytes]]:
        """See :meth:`.adapter.GameAdapter.apply`."""
        after, events = apply(state, seat, move)
        return after, encode_events(state, after, move, events, timed_out=timed_out)

    def to_act(self, state: KoiKoiState) -> int | None:
        """See :meth:`.adapter.GameAdapter.to_act`."""
        return None if state.phase is Phase.OVER else state.turn

    def engine_view(self, state: KoiKoiState, seat: int) -> Any:
        """See :meth:`.adapter.GameAdapter.engine_view`."""
        return view(state, seat)

    def advance(self, state: KoiKoiState, seat: int, move: Move) -> KoiKoiState:
        """See :meth:`.adapter.GameAdapter.advance`."""
        return apply(state, seat, move)[0]

    def legal_moves(self, state: KoiKoiState, seat: int) -> list[Move]:
        """See :meth:`.adapter.GameAdapter.legal_moves`."""
        return legal_moves(state, seat)

    def seat_count(self, state: KoiKoiState) -> int:
        """Always two."""
        return _SEATS

    def is_over(self, state: KoiKoiState) -> bool:
        """See :meth:`.adapter.GameAdapter.is_over`."""
        return state.phase is Phase.OVER

    def view(
        self,
        state: KoiKoiState,
        seat: int | None,
        game: GameInfo,
        version: int,
        extra: Mapping[str, object] | None = None,
    ) -> game_pb2.GameView:
        """See :meth:`.adapter.GameAdapter.view`: :meth:`written_view` as a message."""
        return cast(
            game_pb2.GameView, self.written_view(state, seat, game, version, MESSAGE, extra)
        )

    def written_view(
        self,
        state: KoiKoiState,
        seat: int | None,
        game: GameInfo,
        version: int,
        form: Form[W],
        extra: Mapping[str, object] | None = None,
    ) -> W:
        """See :meth:`.adapter.GameAdapter.written_view`: composed from its parts, kept per
        rule set and form (the rules, seat lines, round results, moves), without the message."""
        rules = state.rules
        written = _parts(rules).written(form)
        seen = view(state, seat)
        over = state.phase is Phase.OVER
        month = seen.month
        players = game.players
        values: dict[str, object] = {
            "game": game.game_id,
            "kind": rules_pb2.GAME_KIND_KOI_KOI,
            "rules": written.rules,
            "version": version,
            "status": game_pb2.GAME_STATUS_OVER if over else game_pb2.GAME_STATUS_IN_PROGRESS,
            "round": seen.round,
            "round_month": month,
            "dealer": seen.dealer,
            "seats": form.list([written.seat(i, month, players[i.seat]) for i in seen.seats]),
            "viewer_seat": seat,
            "hand": card_list(seen.hand),
            "field": card_list(seen.field),
            "stock_size": seen.stock_size,
            "legal_moves": form.list([written.move(m) for m in seen.legal_moves]),
            "rounds_finished": len(seen.results),
            "turn_start_points": seen.turn_points,
            "willow_seen": seen.willow_seen,
        }
        if seen.results:
            values["last_result"] = written.last_result(seen.results[-1])
        if over:
            values["waiting"] = written.waiting(game_pb2.WAITING_FOR_NOTHING, 0, 0)
            end = _game_end(rules, state.scores, state.resigned)
            values["game_result"] = form.message(
                _game_result(state.scores, state.winner, end, state.resigned)
            )
        else:
            values["turn"] = seen.turn
            if state.phase is Phase.DRAWN_TARGET:
                values["waiting"] = written.waiting(
                    _WAITING[state.phase], seen.drawn, seen.target_options
                )
            else:
                values["waiting"] = written.waiting(_WAITING[state.phase], 0, 0)
        if state.last_caller >= 0:
            values["last_koikoi_caller"] = state.last_caller
        if extra:
            values.update(extra)
        return form.compose(_VIEW, values)

    def event(
        self, state: KoiKoiState, blob: bytes, seat: int | None, game: GameInfo
    ) -> events_pb2.Event:
        """See :meth:`.adapter.GameAdapter.event`."""
        return event_to_proto(state.rules, blob, seat, game)

    def written_event(
        self, state: KoiKoiState, blob: bytes, seat: int | None, game: GameInfo, form: Form[W]
    ) -> WrittenEvent[W]:
        """See :meth:`.adapter.GameAdapter.written_event`: kept per rule set and form (see
        :meth:`.WrittenParts.event`)."""
        return _parts(state.rules).written(form).event(blob, seat, game.players)

    def encode_state(self, state: KoiKoiState) -> bytes:
        """The engine's own compact codec."""
        return codec.encode(state)

    def decode_state(self, data: bytes) -> KoiKoiState:
        """See :meth:`encode_state`."""
        return codec.decode(data)

    def seed(self, state: KoiKoiState) -> int:
        """The game's seed."""
        return state.seed

    def deal_records(
        self, state: KoiKoiState, blobs: Sequence[bytes], first: int = 0
    ) -> list[game_pb2.DealRecord]:
        """The deals, rebuilt from the prepared deals and the seed; their round and dealer come
        from the ROUND_DEALT events, which the game logs once per deal, in order."""
        records: list[game_pb2.DealRecord] = []
        for blob in blobs:
            r = Reader(blob)
            if r.uint() not in (_Tag.ROUND_DEALT, _Tag.ROUND_DEALT_FIXED):
                continue
            number, dealer = r.uint(), r.uint()
            index = first + len(records)
            deal = (
                state.prepared[index]
                if index < len(state.prepared)
                else shuffled_deal(state.seed, index, _SEATS, HAND_SIZE, FIELD_SIZE)
            )
            records.append(
                game_pb2.DealRecord(round=number, dealer=dealer, deal=deal_to_proto(deal))
            )
        return records

    def deals_in(self, blobs: Sequence[bytes]) -> int:
        """See :meth:`.adapter.GameAdapter.deals_in` (every tag is one varint byte)."""
        return sum(1 for b in blobs if b[0] in (_Tag.ROUND_DEALT, _Tag.ROUND_DEALT_FIXED))

    def presets(self) -> list[rules_pb2.Preset]:
        """The six presets, the default first."""
        names = [DEFAULT_PRESET, *(n for n in PRESETS if n != DEFAULT_PRESET)]
        return [
            rules_pb2.Preset(
                name=name,
                kind=rules_pb2.GAME_KIND_KOI_KOI,
                description=PRESET_DESCRIPTIONS.get(name, ""),
                is_default=name == DEFAULT_PRESET,
                rules=_rules_message(PRESETS[name]),
            )
            for name in names
        ]


#: The Koi-Koi adapter (stateless; one instance serves every game).
KOI_KOI = KoiKoiAdapter()
