"""Hachi-Hachi as a hosted game: the :class:`~.adapter.GameAdapter` over the Hachi-Hachi engine.

As for Koi-Koi, events are stored as the full truth (a deal holds every hand) in a
compact varint encoding, one blob per ``Event`` message; projection for a seat happens when an
event is read: a seat sees only its own hand, a spectator none, and nobody the stock order or a
dropped hand (those only reach ``GetGameLog``'s deal records once the game is over).

The engine's end-of-round drop-fee payment (dropper to winner) is reported as the contract's two
payments: ``PAYMENT_CAUSE_DROP_FEE`` (dropper to the table) then ``PAYMENT_CAUSE_DROP_FEES_TAKEN``
(the table to the winner), both made when the round ends.

Blob layout: the tag (an ``_Tag``) then its fields as varints (balances as zigzag varints);
card sets are bit masks. Tags and the word table are append-only: stored games use their numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import IntEnum
from functools import lru_cache
from typing import Any, TypeVar, cast

from hanafuda.v1 import events_pb2, game_pb2, rules_pb2, scoring_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.cards import cards_of
from hanafuda_referee.dealing import Deal
from hanafuda_referee.hachihachi import codec
from hanafuda_referee.hachihachi.dekiyaku import DEKIYAKU_VALUES, DekiyakuId, dekiyaku_of
from hanafuda_referee.hachihachi.events import (
    CardDrawn,
    CardPlayed,
    CardsCounted,
    DekiyakuFormed,
    Dropped,
    Event,
    FirstDealerDrawn,
    GameEnded,
    Joined,
    PaymentMade,
    PlayersChosen,
    Redeal,
    Resigned,
    RoundDealt,
    RoundEnded,
    RoundResult,
    SageCalled,
    SageOvertaken,
    ShobuCalled,
    TargetRequired,
    TeyakuDeclared,
)
from hanafuda_referee.hachihachi.game import (
    HachiHachiState,
    Phase,
    apply,
    legal_moves,
    new_game,
    seeded_deal,
    stock_after_drops,
)
from hanafuda_referee.hachihachi.rules import DEFAULT_PRESET, PRESETS, HachiHachiRules
from hanafuda_referee.hachihachi.settlement import Payment, PaymentReason
from hanafuda_referee.hachihachi.teyaku import TeyakuId
from hanafuda_referee.hachihachi.view import SeatInfo, view
from hanafuda_referee.hosting.adapter import GameInfo
from hanafuda_referee.hosting.convert import card_list, card_value, deal_to_proto
from hanafuda_referee.hosting.written_parts import WrittenParts
from hanafuda_referee.identity_cache import IdentityCache
from hanafuda_referee.moves import Move, MoveKind
from hanafuda_referee.varint import Reader, Writer, pack
from hanafuda_referee.writers.forms import MESSAGE, Form, WrittenEvent

__all__ = ["HACHI_HACHI", "HachiHachiAdapter"]

W = TypeVar("W")

_MIN_SEATS, _MAX_SEATS = 3, 6
#: The card count every player starts from (RULES.md 2.5).
_PAR_COUNT = 88


class _Tag(IntEnum):
    """The kinds of stored event (append-only: stored games use these numbers)."""

    GAME_CREATED = 1
    FIRST_DEALER_DRAWN = 2
    ROUND_DEALT = 3
    REDEALT = 4
    JOINED = 5
    DROPPED = 6
    PLAYERS_CHOSEN = 7  # reserved: never stored
    PAYMENT = 8
    TEYAKU_DECLARED = 9
    CARD_PLAYED = 10
    CARD_DRAWN = 11
    TARGET_REQUIRED = 12
    TARGET_CHOSEN = 13
    DEKIYAKU_FORMED = 14
    SAGE_CALLED = 15
    SHOBU_CALLED = 16
    SAGE_OVERTAKEN = 17
    CARDS_COUNTED = 18
    ROUND_ENDED = 19
    GAME_ENDED = 20
    #: ROUND_DEALT with its hands at a fixed width (written since format 3 of the states, see
    #: :mod:`hanafuda_referee.varint`): reading a log decodes every deal of it, and a varint
    #: hand's length would depend on its highest card. ROUND_DEALT is still read.
    ROUND_DEALT_FIXED = 21
    #: A seat resigned (seat, whether its clock resigned for it).
    RESIGNED = 22


#: Teyaku ids, dekiyaku ids and payment reasons are stored in events by their index in the
#: engine codec's append-only table, the one game states use.
_WORDS, _WORD_INDEX = codec.WORDS, codec.WORD_INDEX

_TEYAKU_WORDS = frozenset(t.value for t in TeyakuId)
_DEKIYAKU_WORDS = frozenset(d.value for d in DekiyakuId)
_DROP_FEES_TAKEN = "drop-fees-taken"
_CAUSES = {
    PaymentReason.CARD_COUNT.value: scoring_pb2.PAYMENT_CAUSE_CARD_COUNT,
    PaymentReason.ALL_EIGHTS.value: scoring_pb2.PAYMENT_CAUSE_ALL_EIGHTS,
    PaymentReason.DOUBLE_EIGHTS.value: scoring_pb2.PAYMENT_CAUSE_DOUBLE_EIGHTS,
    PaymentReason.SAGE_REFUND.value: scoring_pb2.PAYMENT_CAUSE_SAGE_REFUND,
    PaymentReason.SAGE_OVERTAKEN.value: scoring_pb2.PAYMENT_CAUSE_SAGE_OVERTAKEN,
    PaymentReason.DROP_FEE.value: scoring_pb2.PAYMENT_CAUSE_DROP_FEE,
    _DROP_FEES_TAKEN: scoring_pb2.PAYMENT_CAUSE_DROP_FEES_TAKEN,
}

_ROUND_END = {
    "shobu": game_pb2.ROUND_END_SHOBU,
    "overtaken": game_pb2.ROUND_END_SAGE_OVERTAKEN,
    "count": game_pb2.ROUND_END_CARD_COUNT,
}
_OUTCOMES = ("shobu", "overtaken", "count")

_WAITING = {
    Phase.DROP: game_pb2.WAITING_FOR_JOIN_DECISION,
    Phase.PLAY: game_pb2.WAITING_FOR_HAND_PLAY,
    Phase.DRAWN_TARGET: game_pb2.WAITING_FOR_TARGET_CHOICE,
    Phase.DECISION: game_pb2.WAITING_FOR_SAGE_DECISION,
    Phase.OVER: game_pb2.WAITING_FOR_NOTHING,
}


@lru_cache(maxsize=128)
def _rules_message(rules: HachiHachiRules) -> rules_pb2.Rules:
    """The rule set as a message, built once per rule set (callers copy it, never mutate it)."""
    return rules_pb2.Rules(
        preset=rules.preset, hachi_hachi=rules_pb2.HachiHachiRules(rounds=rules.rounds)
    )


# --- payments --------------------------------------------------------------------------------


def _split(payment: Payment) -> list[tuple[int, int, int, str]]:
    """An engine payment as the contract's (payer + 1, payee + 1, amount, word), 0 meaning the
    table: a drop fee becomes the dropper paying the table and the table paying the winner."""
    if payment.reason == PaymentReason.DROP_FEE.value:
        return [
            (payment.payer + 1, 0, payment.amount, payment.reason),
            (0, payment.payee + 1, payment.amount, _DROP_FEES_TAKEN),
        ]
    return [(payment.payer + 1, payment.payee + 1, payment.amount, payment.reason)]


def _write_payment(w: Writer, payer: int, payee: int, amount: int, word: str) -> None:
    w.uint(payer)
    w.uint(payee)
    w.uint(amount)
    w.uint(_WORD_INDEX[word])


def _read_payment(r: Reader) -> scoring_pb2.Payment:
    payer, payee, amount, word = r.uint(), r.uint(), r.uint(), _WORDS[r.uint()]
    message = scoring_pb2.Payment(amount_halves=amount)
    if payer:
        message.from_seat = payer - 1
    if payee:
        message.to_seat = payee - 1
    if word in _TEYAKU_WORDS:
        message.cause = scoring_pb2.PAYMENT_CAUSE_TEYAKU
        message.combination = word
    elif word in _DEKIYAKU_WORDS:
        message.cause = scoring_pb2.PAYMENT_CAUSE_DEKIYAKU
        message.combination = word
    else:
        message.cause = _CAUSES[word]
    return message


def _payments_to_proto(payments: Sequence[Payment]) -> list[scoring_pb2.Payment]:
    out: list[scoring_pb2.Payment] = []
    for payment in payments:
        for payer, payee, amount, word in _split(payment):
            w = Writer()
            _write_payment(w, payer, payee, amount, word)
            out.append(_read_payment(Reader(w.getvalue())))
    return out


# --- encoding events -------------------------------------------------------------------------


def _blob(tag: _Tag, *fields: int) -> bytes:
    return pack(tag, *fields)


def _write_result(w: Writer, result: RoundResult) -> None:
    w.uint(result.round)
    w.uint(result.dealer)
    w.uint(result.multiplier)
    for player in result.players:
        w.uint(player)
    w.uint(_OUTCOMES.index(result.outcome))
    w.uint(result.winner)
    w.uint(len(result.counts))
    for count in result.counts:
        w.uint(count)
    split = [p for payment in result.payments for p in _split(payment)]
    w.uint(len(split))
    for payer, payee, amount, word in split:
        _write_payment(w, payer, payee, amount, word)


def encode_events(
    move: Move | None, events: Sequence[Event], *, timed_out: bool = False
) -> list[bytes]:
    """The engine's events of one move (``move`` None: the creation) as stored blobs;
    ``timed_out``: the move is a resignation by the seat's clock."""
    blobs: list[bytes] = []
    choosing = move is not None and move.kind is MoveKind.CHOOSE_TARGET
    for index, event in enumerate(events):
        if isinstance(event, FirstDealerDrawn):
            blobs.append(_blob(_Tag.FIRST_DEALER_DRAWN, event.dealer))
        elif isinstance(event, RoundDealt):
            w = Writer()
            w.uint(_Tag.ROUND_DEALT_FIXED)
            for value in (event.round, event.deal_number, event.dealer, event.multiplier):
                w.uint(value)
            w.uint(len(event.hands))
            for hand in event.hands:
                w.mask(hand)
            w.uint(event.field)
            w.uint(event.stock_size)
            # An empty run where logs written before held the stock order (readers skip it):
            # the deal records rebuild every stock from the prepared deals or the seed.
            w.small_ints(())
            blobs.append(w.getvalue())
        elif isinstance(event, Redeal):
            blobs.append(_blob(_Tag.REDEALT, event.cards))
        elif isinstance(event, Joined):
            blobs.append(_blob(_Tag.JOINED, event.seat, int(event.forced)))
        elif isinstance(event, Dropped):
            blobs.append(_blob(_Tag.DROPPED, event.seat, event.fee, int(event.forced)))
        elif isinstance(event, PlayersChosen):
            # Not an event of the contract: the participations and the first play tell it.
            continue
        elif isinstance(event, PaymentMade):
            for payer, payee, amount, word in _split(event.payment):
                w = Writer()
                w.uint(_Tag.PAYMENT)
                _write_payment(w, payer, payee, amount, word)
                blobs.append(w.getvalue())
        elif isinstance(event, TeyakuDeclared):
            teyaku = event.teyaku
            blobs.append(
                _blob(
                    _Tag.TEYAKU_DECLARED,
                    event.seat,
                    _WORD_INDEX[teyaku.id.value],
                    teyaku.value,
                    teyaku.exposed,
                )
            )
        elif isinstance(event, CardPlayed):
            taken = event.captured & ~(1 << event.card)
            blobs.append(_blob(_Tag.CARD_PLAYED, event.seat, event.card, taken))
        elif isinstance(event, TargetRequired):
            blobs.append(_blob(_Tag.CARD_DRAWN, event.seat, event.card, 0))
            blobs.append(_blob(_Tag.TARGET_REQUIRED, event.seat, event.card, event.options))
        elif isinstance(event, CardDrawn):
            taken = event.captured & ~(1 << event.card)
            tag = _Tag.TARGET_CHOSEN if choosing else _Tag.CARD_DRAWN
            blobs.append(_blob(tag, event.seat, event.card, taken))
            choosing = False
        elif isinstance(event, DekiyakuFormed):
            w = Writer()
            w.uint(_Tag.DEKIYAKU_FORMED)
            w.uint(event.seat)
            w.uint(len(event.dues))
            for due in event.dues:
                w.uint(_WORD_INDEX[due.dekiyaku.id.value])
                w.uint(due.dekiyaku.value)
                w.uint(due.dekiyaku.cards)
            blobs.append(w.getvalue())
        elif isinstance(event, SageCalled):
            blobs.append(_blob(_Tag.SAGE_CALLED, event.seat))
        elif isinstance(event, ShobuCalled):
            blobs.append(_blob(_Tag.SHOBU_CALLED, event.seat))
        elif isinstance(event, SageOvertaken):
            refund = next(
                (
                    e.payment.amount
                    for e in events[index + 1 :]
                    if isinstance(e, PaymentMade)
                    and e.payment.reason == PaymentReason.SAGE_REFUND.value
                ),
                0,
            )
            blobs.append(_blob(_Tag.SAGE_OVERTAKEN, event.caller, event.maker, refund))
        elif isinstance(event, CardsCounted):
            blobs.append(_blob(_Tag.CARDS_COUNTED, *event.players, *event.counts))
        elif isinstance(event, RoundEnded):
            w = Writer()
            w.uint(_Tag.ROUND_ENDED)
            _write_result(w, event.result)
            blobs.append(w.getvalue())
        elif isinstance(event, Resigned):
            blobs.append(_blob(_Tag.RESIGNED, event.seat, int(timed_out)))
        elif isinstance(event, GameEnded):
            w = Writer()
            w.uint(_Tag.GAME_ENDED)
            w.uint(len(event.balances))
            for balance in event.balances:
                w.sint(balance)
            w.uint(event.winner + 1)
            if event.resigned >= 0:
                # An optional last field: games ended before resignation existed lack it.
                w.uint(event.resigned + 1)
            blobs.append(w.getvalue())
        else:  # pragma: no cover - every engine event is handled above
            raise TypeError(f"unknown Hachi-Hachi event {event!r}")
    return blobs


# --- projecting events -----------------------------------------------------------------------


def _read_result(r: Reader) -> game_pb2.RoundResult:
    number, dealer, multiplier = r.uint(), r.uint(), r.uint()
    players = (r.uint(), r.uint(), r.uint())
    outcome, winner = _OUTCOMES[r.uint()], r.uint()
    counts = [r.uint() for _ in range(r.uint())]
    message = game_pb2.RoundResult(
        round=number,
        dealer=dealer,
        end=_ROUND_END[outcome],
        winner=winner,
        field_multiplier=multiplier,
    )
    for player, count in zip(players, counts, strict=False):
        message.counts.append(
            scoring_pb2.CardCount(seat=player, count=count, difference=count - _PAR_COUNT)
        )
    message.payments.extend(_read_payment(r) for _ in range(r.uint()))
    return message


@lru_cache(maxsize=4096)
def _round_result_message(result: RoundResult) -> game_pb2.RoundResult:
    """:func:`round_result_to_proto`, built once per finished round: every view after it lists
    it (callers copy it, never mutate it)."""
    return round_result_to_proto(result)


def round_result_to_proto(result: RoundResult) -> game_pb2.RoundResult:
    """A finished round as ``RoundResult``."""
    w = Writer()
    _write_result(w, result)
    return _read_result(Reader(w.getvalue()))


def _game_result(balances: Sequence[int], winner: int, resigned: int = -1) -> game_pb2.GameResult:
    end = game_pb2.GAME_END_RESIGNED if resigned >= 0 else game_pb2.GAME_END_ROUNDS_PLAYED
    message = game_pb2.GameResult(end=end, balances_halves=list(balances), draw=winner < 0)
    if winner >= 0:
        message.winner = winner
    if resigned >= 0:
        message.resigned = resigned
    return message


def event_to_proto(
    rules: HachiHachiRules, blob: bytes, seat: int | None, game: GameInfo
) -> events_pb2.Event:
    """A stored event as ``seat`` (None: a spectator) may see it."""
    r = Reader(blob)
    tag = _Tag(r.uint())
    out = events_pb2.Event()
    if tag is _Tag.GAME_CREATED:
        out.game_created.kind = rules_pb2.GAME_KIND_HACHI_HACHI
        out.game_created.rules.CopyFrom(_rules_message(rules))
        out.game_created.players.extend(game.players)
    elif tag is _Tag.FIRST_DEALER_DRAWN:
        out.first_dealer_drawn.dealer = r.uint()
    elif tag is _Tag.ROUND_DEALT or tag is _Tag.ROUND_DEALT_FIXED:
        number, _, dealer, multiplier = r.uint(), r.uint(), r.uint(), r.uint()
        fixed = tag is _Tag.ROUND_DEALT_FIXED
        hands = [r.mask() if fixed else r.uint() for _ in range(r.uint())]
        field, stock_size = r.uint(), r.uint()
        r.small_ints()  # empty, or (in older logs) the stock order: never shown
        dealt = out.round_dealt
        dealt.round, dealt.dealer, dealt.field_multiplier = number, dealer, multiplier
        # The projection: a seat receives its own hand only, a spectator none.
        if seat is not None and 0 <= seat < len(hands):
            dealt.hand.extend(card_list(hands[seat]))
        dealt.field.extend(card_list(field))
        dealt.stock_size = stock_size
    elif tag is _Tag.REDEALT:
        r.uint()  # the four cards of a month are on the field the deal showed
        out.redealt.check = rules_pb2.DEAL_CHECK_FIELD_FOUR
    elif tag is _Tag.JOINED:
        who, forced = r.uint(), bool(r.uint())
        if not forced:
            out.actor = who
        decided = out.participation_decided
        decided.seat, decided.joined, decided.forced = who, True, forced
    elif tag is _Tag.DROPPED:
        who, fee, forced = r.uint(), r.uint(), bool(r.uint())
        if not forced:
            out.actor = who
        decided = out.participation_decided
        decided.seat, decided.joined, decided.forced, decided.fee_halves = who, False, forced, fee
    elif tag is _Tag.PAYMENT:
        out.payment_made.payment.CopyFrom(_read_payment(r))
    elif tag is _Tag.TEYAKU_DECLARED:
        who, word, value, exposed = r.uint(), _WORDS[r.uint()], r.uint(), r.uint()
        out.teyaku_declared.seat = who
        out.teyaku_declared.teyaku.CopyFrom(
            scoring_pb2.Teyaku(id=word, value=value, cards=card_list(exposed))
        )
    elif tag is _Tag.CARD_PLAYED:
        actor, card, taken = r.uint(), r.uint(), r.uint()
        out.actor = actor
        out.card_played.card = card_value(card)
        out.card_played.captured.extend(card_list(taken))
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
    elif tag is _Tag.DEKIYAKU_FORMED:
        who, count = r.uint(), r.uint()
        out.dekiyaku_formed.seat = who
        for _ in range(count):
            word, value, cards = _WORDS[r.uint()], r.uint(), r.uint()
            out.dekiyaku_formed.dekiyaku.append(
                scoring_pb2.Dekiyaku(id=word, value=value, cards=card_list(cards))
            )
    elif tag is _Tag.SAGE_CALLED:
        out.actor = out.sage_called.seat = r.uint()
    elif tag is _Tag.SHOBU_CALLED:
        out.actor = out.shobu_called.seat = r.uint()
    elif tag is _Tag.SAGE_OVERTAKEN:
        caller, maker, refund = r.uint(), r.uint(), r.uint()
        overtaken = out.sage_overtaken
        overtaken.sage_caller, overtaken.overtaker, overtaken.refund_halves = caller, maker, refund
    elif tag is _Tag.CARDS_COUNTED:
        players = (r.uint(), r.uint(), r.uint())
        counts = (r.uint(), r.uint(), r.uint())
        for player, count in zip(players, counts, strict=True):
            out.cards_counted.counts.append(
                scoring_pb2.CardCount(seat=player, count=count, difference=count - _PAR_COUNT)
            )
    elif tag is _Tag.ROUND_ENDED:
        out.round_ended.result.CopyFrom(_read_result(r))
    elif tag is _Tag.RESIGNED:
        who, timed_out = r.uint(), bool(r.uint())
        if not timed_out:
            out.actor = who
        out.resigned.seat, out.resigned.timed_out = who, timed_out
    elif tag is _Tag.GAME_ENDED:
        balances = [r.sint() for _ in range(r.uint())]
        winner = r.uint() - 1
        resigned = r.uint() - 1 if r.position < len(blob) else -1
        out.game_ended.result.CopyFrom(_game_result(balances, winner, resigned))
    r.done()
    return out


# --- the adapter -----------------------------------------------------------------------------


_VIEW = game_pb2.GameView.DESCRIPTOR
_SEAT_INFO = game_pb2.SeatInfo.DESCRIPTOR
_TEYAKU = scoring_pb2.Teyaku.DESCRIPTOR
_DEKIYAKU = scoring_pb2.Dekiyaku.DESCRIPTOR


class _WrittenParts(WrittenParts[W]):
    """The parts of Hachi-Hachi's views and events in one form (see :class:`.WrittenParts`),
    with each seat's line, which changes only when that seat plays, declares or is paid."""

    def __init__(self, rules: HachiHachiRules, form: Form[W]) -> None:
        super().__init__(
            form,
            _rules_message(rules),
            lambda blob, seat, game: event_to_proto(rules, blob, seat, game),
            _round_result_message,
            created_tag=_Tag.GAME_CREATED,
            dealt_tags=(_Tag.ROUND_DEALT, _Tag.ROUND_DEALT_FIXED),
        )
        self.seat = lru_cache(maxsize=4096)(self._seat)

    def _seat(self, info: SeatInfo, name: str) -> W:
        """A seat's line: its teyaku once declared, and the dekiyaku it has been paid for, each
        with the cards of its captures that form it now."""
        form = self.form
        formed = {d.id: d.cards for d in dekiyaku_of(info.captured)} if info.dekiyaku else {}
        dekiyaku = [
            form.compose(
                _DEKIYAKU,
                {"id": d.value, "value": DEKIYAKU_VALUES[d], "cards": card_list(formed.get(d, 0))},
            )
            for d in info.dekiyaku
        ]
        teyaku = info.teyaku
        values = {
            "seat": info.seat,
            "name": name,
            "balance_halves": info.balance,
            "captured": card_list(info.captured),
            "hand_size": info.hand_size,
            "participation": int(info.participation),
            "teyaku": None
            if teyaku is None
            else form.compose(
                _TEYAKU,
                {"id": teyaku.id.value, "value": teyaku.value, "cards": card_list(teyaku.exposed)},
            ),
            "dekiyaku": form.list(dekiyaku),
            "sage": info.sage,
        }
        return form.compose(_SEAT_INFO, values)


@lru_cache(maxsize=128)
def _parts_of_equal(rules: HachiHachiRules) -> dict[int, _WrittenParts[Any]]:
    """The parts of ``rules`` kept so far, by the id of their form."""
    return {}


#: :func:`_parts_of_equal` by the identity of a rule set object (bounded: past it, the parts
#: are found again by equality).
_PARTS_BY_ID: IdentityCache[HachiHachiRules, dict[int, _WrittenParts[Any]]] = IdentityCache(1024)


def _written(rules: HachiHachiRules, form: Form[W]) -> _WrittenParts[W]:
    """The parts of ``rules`` written in ``form`` (one of the module constants of
    :mod:`hanafuda_referee.writers.forms`). A game's states share one rule set object, so it is
    looked up by identity first: that spares hashing the rule set for every event and view."""
    by_form = _PARTS_BY_ID.get(rules)
    if by_form is None:
        by_form = _PARTS_BY_ID.put(rules, _parts_of_equal(rules))
    parts = by_form.get(id(form))
    if parts is None:
        parts = by_form[id(form)] = _WrittenParts(rules, form)
    return parts


class HachiHachiAdapter:
    """Hachi-Hachi for the hosted-games layer (see :class:`~.adapter.GameAdapter`)."""

    kind: int = rules_pb2.GAME_KIND_HACHI_HACHI

    def rules_of(self, request: service_pb2.CreateGameRequest) -> HachiHachiRules:
        """The rule set a creation request asks for (preset plus overrides)."""
        which = request.WhichOneof("overrides")
        if which == "koi_koi":
            raise ApiError("INVALID_ARGUMENT", "Koi-Koi overrides for a Hachi-Hachi game")
        overrides: dict[str, object] = {}
        if which == "hachi_hachi" and request.hachi_hachi.HasField("rounds"):
            overrides["rounds"] = request.hachi_hachi.rounds
        return HachiHachiRules.from_preset(request.preset or DEFAULT_PRESET, overrides)

    def new_game(
        self, request: service_pb2.CreateGameRequest, seed: int, deals: Sequence[Deal]
    ) -> tuple[HachiHachiState, list[bytes]]:
        """See :meth:`.adapter.GameAdapter.new_game`."""
        count = len(request.players)
        if not _MIN_SEATS <= count <= _MAX_SEATS:
            raise ApiError("INVALID_ARGUMENT", f"Hachi-Hachi has 3 to 6 players, not {count}")
        rules = self.rules_of(request)
        first = request.first_dealer if request.HasField("first_dealer") else None
        if first is not None and first >= count:
            raise ApiError(
                "UNKNOWN_SEAT", f"first dealer must be a seat 0 to {count - 1}, not {first}"
            )
        state, events = new_game(rules, seed, count, deals, first)
        return state, [_blob(_Tag.GAME_CREATED), *encode_events(None, events)]

    def apply(
        self, state: HachiHachiState, seat: int, move: Move, *, timed_out: bool = False
    ) -> tuple[HachiHachiState, list[bytes]]:
        """See :meth:`.adapter.GameAdapter.apply`."""
        after, events = apply(state, seat, move)
        return after, encode_events(move, events, timed_out=timed_out)

    def to_act(self, state: HachiHachiState) -> int | None:
        """See :meth:`.adapter.GameAdapter.to_act`."""
        return None if state.phase is Phase.OVER else state.turn

    def engine_view(self, state: HachiHachiState, seat: int) -> Any:
        """See :meth:`.adapter.GameAdapter.engine_view`."""
        return view(state, seat)

    def advance(self, state: HachiHachiState, seat: int, move: Move) -> HachiHachiState:
        """See :meth:`.adapter.GameAdapter.advance`."""
        return apply(state, seat, move)[0]

    def legal_moves(self, state: HachiHachiState, seat: int) -> list[Move]:
        """See :meth:`.adapter.GameAdapter.legal_moves`."""
        return list(legal_moves(state, seat))

    def seat_count(self, state: HachiHachiState) -> int:
        """The number of participants (3 to 6)."""
        return state.participants

    def is_over(self, state: HachiHachiState) -> bool:
        """See :meth:`.adapter.GameAdapter.is_over`."""
        return state.phase is Phase.OVER

    def view(
        self,
        state: HachiHachiState,
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
        state: HachiHachiState,
        seat: int | None,
        game: GameInfo,
        version: int,
        form: Form[W],
        extra: Mapping[str, object] | None = None,
    ) -> W:
        """See :meth:`.adapter.GameAdapter.written_view`: composed from its parts, kept per
        rule set and form (the rules, seat lines, round results, moves), without the message."""
        written = _written(state.rules, form)
        seen = view(state, seat)
        over = state.phase is Phase.OVER
        players = game.players
        values: dict[str, object] = {
            "game": game.game_id,
            "kind": rules_pb2.GAME_KIND_HACHI_HACHI,
            "rules": written.rules,
            "version": version,
            "status": game_pb2.GAME_STATUS_OVER if over else game_pb2.GAME_STATUS_IN_PROGRESS,
            "round": seen.round,
            "dealer": seen.dealer,
            "seats": form.list([written.seat(i, players[i.seat]) for i in seen.seats]),
            "viewer_seat": seat,
            "hand": card_list(seen.hand),
            "field": card_list(seen.field),
            "stock_size": seen.stock_size,
            "legal_moves": form.list([written.move(m) for m in seen.legal_moves]),
            "field_multiplier": seen.multiplier,
            "table_halves": seen.table,
            "rounds_finished": len(seen.results),
            "floor_multiplier": seen.floor,
            "dealt_field": card_list(seen.dealt_field),
            "first_dekiyaku_points": seen.first_points,
        }
        if seen.results:
            values["last_result"] = written.last_result(seen.results[-1])
        if over:
            values["waiting"] = written.waiting(game_pb2.WAITING_FOR_NOTHING, 0, 0)
            values["game_result"] = form.message(
                _game_result(state.balances, state.winner, state.resigned)
            )
        else:
            values["turn"] = seen.turn
            if state.phase is Phase.DRAWN_TARGET:
                values["waiting"] = written.waiting(
                    _WAITING[state.phase], seen.drawn, seen.target_options
                )
            else:
                values["waiting"] = written.waiting(_WAITING[state.phase], 0, 0)
        if extra:
            values.update(extra)
        return form.compose(_VIEW, values)

    def event(
        self, state: HachiHachiState, blob: bytes, seat: int | None, game: GameInfo
    ) -> events_pb2.Event:
        """See :meth:`.adapter.GameAdapter.event`."""
        return event_to_proto(state.rules, blob, seat, game)

    def written_event(
        self, state: HachiHachiState, blob: bytes, seat: int | None, game: GameInfo, form: Form[W]
    ) -> WrittenEvent[W]:
        """See :meth:`.adapter.GameAdapter.written_event`: kept per rule set and form (see
        :meth:`.WrittenParts.event`)."""
        return _written(state.rules, form).event(blob, seat, game.players)

    def encode_state(self, state: HachiHachiState) -> bytes:
        """The engine's own compact codec."""
        return codec.encode(state)

    def decode_state(self, data: bytes) -> HachiHachiState:
        """See :meth:`encode_state`."""
        return codec.decode(data)

    def seed(self, state: HachiHachiState) -> int:
        """The game's seed."""
        return state.seed

    def deal_records(
        self, state: HachiHachiState, blobs: Sequence[bytes], first: int = 0
    ) -> list[game_pb2.DealRecord]:
        """The deals of ``blobs``: each one's hands and field from its ROUND_DEALT event, its
        stock from the prepared deal or the seed, and its stock after drops rebuilt as the game
        built it, from the hands its DROPPED events put aside
        (:func:`.hachihachi.game.stock_after_drops`). Prepared again, in order and with the
        first dealer, they replay the game exactly. A deal event carries its own number, so
        ``first`` is not needed; drops before the first deal of ``blobs`` are an earlier deal's."""
        dealt: list[tuple[int, int, int, list[int], int]] = []
        aside: list[int] = []
        for blob in blobs:
            r = Reader(blob)
            tag = r.uint()
            if tag == _Tag.ROUND_DEALT or tag == _Tag.ROUND_DEALT_FIXED:
                number, deal_number, dealer, _ = r.uint(), r.uint(), r.uint(), r.uint()
                fixed = tag == _Tag.ROUND_DEALT_FIXED
                hands = [r.mask() if fixed else r.uint() for _ in range(r.uint())]
                dealt.append((number, deal_number, dealer, hands, r.uint()))
                aside.append(0)
            elif tag == _Tag.DROPPED and dealt:
                aside[-1] |= dealt[-1][3][r.uint()]
        records: list[game_pb2.DealRecord] = []
        for (number, deal_number, dealer, hands, field), dropped in zip(dealt, aside, strict=True):
            made = (
                state.prepared[deal_number]
                if deal_number < len(state.prepared)
                else seeded_deal(state.seed, deal_number, len(hands), dealer)
            )
            after = (
                stock_after_drops(
                    state.seed, deal_number, made.stock, dropped, made.stock_after_drops
                )
                if dropped
                else ()
            )
            deal = Deal(
                tuple(tuple(int(c) for c in cards_of(h)) for h in hands),
                tuple(int(c) for c in cards_of(field)),
                made.stock,
                after,
            )
            records.append(
                game_pb2.DealRecord(round=number, dealer=dealer, deal=deal_to_proto(deal))
            )
        return records

    def deals_in(self, blobs: Sequence[bytes]) -> int:
        """See :meth:`.adapter.GameAdapter.deals_in` (every tag is one varint byte)."""
        return sum(1 for b in blobs if b[0] in (_Tag.ROUND_DEALT, _Tag.ROUND_DEALT_FIXED))

    def presets(self) -> list[rules_pb2.Preset]:
        """The Hachi-Hachi presets, the default first."""
        names = [DEFAULT_PRESET, *(n for n in PRESETS if n != DEFAULT_PRESET)]
        return [
            rules_pb2.Preset(
                name=name,
                kind=rules_pb2.GAME_KIND_HACHI_HACHI,
                description="The rules as the fuda-wiki describes them; the default.",
                is_default=name == DEFAULT_PRESET,
                rules=_rules_message(PRESETS[name]),
            )
            for name in names
        ]


#: The Hachi-Hachi adapter (stateless; one instance serves every game).
HACHI_HACHI = HachiHachiAdapter()
