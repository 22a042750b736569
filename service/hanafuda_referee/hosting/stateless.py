"""The stateless rules methods: presets, scoring, hand classification, captures. No store.

Each function takes the request message and returns the response message; inputs are checked
(cards known and distinct, sizes, ranges) before any rules function sees them.
"""

from __future__ import annotations

from hanafuda.v1 import rules_pb2, scoring_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.capture import capture_options, matches
from hanafuda_referee.cards import MONTH_MASKS, WILLOWS, Card, cards_of
from hanafuda_referee.hachihachi import (
    balance_deltas,
    card_points,
    classify_teyaku,
    dekiyaku_of,
    payment_score,
    settle,
)
from hanafuda_referee.hachihachi.field import MULTIPLIERS
from hanafuda_referee.hachihachi.settlement import PaymentReason
from hanafuda_referee.hachihachi.teyaku import TeyakuId
from hanafuda_referee.hosting.convert import (
    card_list,
    card_value,
    engine_refusals,
    koikoi_overrides,
    mask_from_cards,
    score_to_proto,
)
from hanafuda_referee.hosting.kinds import adapter_for
from hanafuda_referee.koikoi.game import HAND_SIZE as KOIKOI_HAND_SIZE
from hanafuda_referee.koikoi.game import classify_hand
from hanafuda_referee.koikoi.rules import DEFAULT_PRESET, KoiKoiRules
from hanafuda_referee.koikoi.scoring import score_stop

__all__ = [
    "classify_hachihachi_hand",
    "classify_koikoi_hand",
    "list_captures",
    "list_presets",
    "score_hachihachi_captures",
    "score_koikoi",
    "settle_hachihachi_round",
]

_HACHIHACHI_HAND_SIZE = 7
_HACHIHACHI_PLAYERS = 3
#: Koi-koi calls beyond this are not a position any game reaches (8 hand cards).
_MAX_CALLS = 64
_MAX_YAKU_POINTS = 10_000


def list_presets(request: service_pb2.ListPresetsRequest) -> service_pb2.ListPresetsResponse:
    """``ListPresets``: Koi-Koi's presets then Hachi-Hachi's, each game's default first."""
    kinds = (
        [rules_pb2.GAME_KIND_KOI_KOI, rules_pb2.GAME_KIND_HACHI_HACHI]
        if request.kind == rules_pb2.GAME_KIND_UNSPECIFIED
        else [request.kind]
    )
    response = service_pb2.ListPresetsResponse()
    for kind in kinds:
        response.presets.extend(adapter_for(kind).presets())
    return response


def score_koikoi(request: service_pb2.ScoreKoiKoiRequest) -> service_pb2.ScoreKoiKoiResponse:
    """``ScoreKoiKoi``: the score of a stop with the given captures and round context."""
    if not 1 <= request.round_month <= 12:
        raise ApiError("INVALID_ARGUMENT", "round_month must be 1 to 12")
    for name in ("own_koikoi_calls", "opponent_koikoi_calls"):
        if getattr(request, name) > _MAX_CALLS:
            raise ApiError("INVALID_ARGUMENT", f"{name} must be at most {_MAX_CALLS}")
    if request.opponent_yaku_points > _MAX_YAKU_POINTS:
        raise ApiError(
            "INVALID_ARGUMENT", f"opponent_yaku_points must be at most {_MAX_YAKU_POINTS}"
        )
    captured = mask_from_cards(request.captured, "captured")
    with engine_refusals():
        rules = KoiKoiRules.from_preset(
            request.preset or DEFAULT_PRESET,
            koikoi_overrides(request.overrides) if request.HasField("overrides") else {},
        )
    score = score_stop(
        rules,
        captured,
        request.round_month,
        request.own_koikoi_calls,
        request.opponent_koikoi_calls,
        request.opponent_yaku_points,
    )
    return service_pb2.ScoreKoiKoiResponse(score=score_to_proto(score))


def classify_koikoi_hand(
    request: service_pb2.ClassifyKoiKoiHandRequest,
) -> service_pb2.ClassifyKoiKoiHandResponse:
    """``ClassifyKoiKoiHand``: teshi (four of a month) and kuttsuki (four pairs)."""
    hand = mask_from_cards(request.hand, "hand", size=KOIKOI_HAND_SIZE)
    response = service_pb2.ClassifyKoiKoiHandResponse()
    for check in classify_hand(hand):
        if check == "hand_four":
            months = [m for m in range(1, 13) if hand & MONTH_MASKS[m] == MONTH_MASKS[m]]
            number = rules_pb2.DEAL_CHECK_HAND_FOUR
        else:
            months = [m for m in range(1, 13) if hand & MONTH_MASKS[m]]
            number = rules_pb2.DEAL_CHECK_HAND_PAIRS
        response.matches.append(scoring_pb2.DealCheckMatch(check=number, months=months))
    return response


def classify_hachihachi_hand(
    request: service_pb2.ClassifyHachiHachiHandRequest,
) -> service_pb2.ClassifyHachiHachiHandResponse:
    """``ClassifyHachiHachiHand``: the hand's highest teyaku."""
    hand = mask_from_cards(request.hand, "hand", size=_HACHIHACHI_HAND_SIZE)
    with engine_refusals():
        teyaku = classify_teyaku(hand)
    response = service_pb2.ClassifyHachiHachiHandResponse()
    if teyaku is not None:
        response.teyaku.CopyFrom(
            scoring_pb2.Teyaku(
                id=teyaku.id.value, value=teyaku.value, cards=card_list(teyaku.exposed)
            )
        )
    return response


def score_hachihachi_captures(
    request: service_pb2.ScoreHachiHachiCapturesRequest,
) -> service_pb2.ScoreHachiHachiCapturesResponse:
    """``ScoreHachiHachiCaptures``: dekiyaku, card count, difference from 88."""
    captured = mask_from_cards(request.captured, "captured")
    with engine_refusals():
        formed = dekiyaku_of(captured)
        count = card_points(captured)
        difference = payment_score(captured)
    return service_pb2.ScoreHachiHachiCapturesResponse(
        dekiyaku=[
            scoring_pb2.Dekiyaku(id=d.id.value, value=d.value, cards=card_list(d.cards))
            for d in formed
        ],
        count=count,
        difference=difference,
    )


_TEYAKU_IDS = frozenset(t.value for t in TeyakuId)
_CAUSES = {
    PaymentReason.CARD_COUNT.value: scoring_pb2.PAYMENT_CAUSE_CARD_COUNT,
    PaymentReason.ALL_EIGHTS.value: scoring_pb2.PAYMENT_CAUSE_ALL_EIGHTS,
    PaymentReason.DOUBLE_EIGHTS.value: scoring_pb2.PAYMENT_CAUSE_DOUBLE_EIGHTS,
    PaymentReason.SAGE_REFUND.value: scoring_pb2.PAYMENT_CAUSE_SAGE_REFUND,
    PaymentReason.SAGE_OVERTAKEN.value: scoring_pb2.PAYMENT_CAUSE_SAGE_OVERTAKEN,
}
_END_OF_ROUND = {
    PaymentReason.ALL_EIGHTS.value: 50,
    PaymentReason.DOUBLE_EIGHTS.value: 50,
}


def settle_hachihachi_round(
    request: service_pb2.SettleHachiHachiRoundRequest,
) -> service_pb2.SettleHachiHachiRoundResponse:
    """``SettleHachiHachiRound``: card-count payments and end-of-round dekiyaku."""
    if len(request.counts) != _HACHIHACHI_PLAYERS:
        raise ApiError("BAD_CARDS", f"three card counts are needed, not {len(request.counts)}")
    counts = (request.counts[0], request.counts[1], request.counts[2])
    if request.field_multiplier not in MULTIPLIERS:
        raise ApiError("INVALID_ARGUMENT", "field_multiplier must be 1, 2 or 4")
    if request.dealer >= _HACHIHACHI_PLAYERS:
        raise ApiError("INVALID_ARGUMENT", "dealer must be 0, 1 or 2")
    with engine_refusals():
        payments = settle(counts, request.field_multiplier, dealer=request.dealer)
    response = service_pb2.SettleHachiHachiRoundResponse(
        counts=[
            scoring_pb2.CardCount(seat=seat, count=count, difference=count - 88)
            for seat, count in enumerate(counts)
        ],
        net_halves=list(balance_deltas(payments)),
    )
    seen: set[tuple[str, int]] = set()
    for payment in payments:
        reason = str(payment.reason)
        message = scoring_pb2.Payment(
            from_seat=payment.payer, to_seat=payment.payee, amount_halves=payment.amount
        )
        if reason in _CAUSES:
            message.cause = _CAUSES[reason]
            if reason in _END_OF_ROUND:
                message.combination = reason
                # One dekiyaku per player who made it, however many pay him.
                if (reason, payment.payee) not in seen:
                    seen.add((reason, payment.payee))
                    response.dekiyaku.append(
                        scoring_pb2.Dekiyaku(id=reason, value=_END_OF_ROUND[reason])
                    )
        elif reason in _TEYAKU_IDS:
            message.cause, message.combination = scoring_pb2.PAYMENT_CAUSE_TEYAKU, reason
        else:
            message.cause, message.combination = scoring_pb2.PAYMENT_CAUSE_DEKIYAKU, reason
        response.payments.append(message)
    return response


def list_captures(request: service_pb2.ListCapturesRequest) -> service_pb2.ListCapturesResponse:
    """``ListCaptures``: every way ``card`` can capture on ``field``."""
    card = int(request.card)
    if not 1 <= card <= 48:
        raise ApiError("BAD_CARDS", "card: not a card")
    field = mask_from_cards(request.field, "field")
    if field & (1 << card):
        raise ApiError("BAD_CARDS", f"field: holds the card {Card(card).code} itself")
    response = service_pb2.ListCapturesResponse()
    options = capture_options(field, card)
    choose = len(options) == 2
    for taken in options:
        if not taken:
            continue  # no match: the card joins the field, no option to list
        captured = taken & ~(1 << card)
        response.options.add(
            target=card_value(cards_of(captured)[0]) if choose else card_value(0),
            captured=card_list(captured),
        )
    if request.lightning_wild and card == Card.WILLOW_LIGHTNING:
        # A wild lightning may also take any one field card of another month.
        for other in cards_of(field & ~WILLOWS):
            response.options.add(target=card_value(other), captured=card_list(1 << other))
        if response.options and not matches(field, card):
            # It may still simply join the field.
            response.options.add(target=card_value(0))
    return response
