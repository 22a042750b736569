"""Conversions between the engine's values and the ``hanafuda.v1`` messages, shared by both games.

The engine speaks card numbers, bit masks and kebab-case option values; the contract speaks enum
values and repeated fields. Everything here is pure and checks what it reads from a request:
a value no engine function should ever see (an unknown card number, a duplicate card, an enum
number the contract does not define) is refused with an :class:`ApiError` before the rules run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from hanafuda.v1 import (
    cards_pb2,
    game_pb2,
    moves_pb2,
    rules_pb2,
    scoring_pb2,
)

from hanafuda_referee.calls.errors import ApiError, ErrorTranslation
from hanafuda_referee.cards import DECK, cards_of
from hanafuda_referee.dealing import Deal
from hanafuda_referee.errors import MoveRejected, RulesError
from hanafuda_referee.hachihachi.inputs import BadCardsError
from hanafuda_referee.koikoi.rules import YAKU_IDS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import ScoreBreakdown
from hanafuda_referee.moves import Move, MoveKind

__all__ = [
    "MAX_DEALS",
    "card_list",
    "card_value",
    "deal_from_proto",
    "deal_to_proto",
    "engine_refusals",
    "koikoi_overrides",
    "koikoi_rules_to_proto",
    "mask_from_cards",
    "move_from_proto",
    "move_message",
    "move_to_proto",
    "score_to_proto",
]

#: The most prepared deals a game may be created with (a deal is 48 cards; redeals are rare).
MAX_DEALS = 64

_LAST_CARD = 48


def card_value(card: int) -> cards_pb2.Card.ValueType:
    """A card number as the protobuf enum value (the numbers are the same by contract)."""
    return cards_pb2.Card.ValueType(card)


@lru_cache(maxsize=16384)  # at most a few MB: a set has at most 48 cards
def card_list(mask: int) -> tuple[cards_pb2.Card.ValueType, ...]:
    """The cards of a set, in card order, as enum values for a repeated ``Card`` field.

    Cached: every view and event lists several sets, mostly the same ones as the previous
    move's (a hand, the field, each seat's captures), and a hit costs less than one card's turn
    of the loop.
    """
    # The card numbers are the enum's values: the set bits, lowest first (as ``cards_of``, but
    # without making a ``Card`` of each).
    cards: list[cards_pb2.Card.ValueType] = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)  # type: ignore[arg-type]
        mask ^= low
    return tuple(cards)


def mask_from_cards(
    cards: Iterable[int],
    what: str,
    *,
    size: int | None = None,
    reason: str = "BAD_CARDS",
) -> int:
    """The set of a request's card list; refuses unknown cards, duplicates and a wrong size.

    ``reason`` is the refusal's reason (``BAD_CARDS`` for the stateless methods, ``BAD_DEAL``
    for prepared deals).
    """
    mask = 0
    count = 0
    for card in cards:
        count += 1
        if not 1 <= card <= _LAST_CARD:
            raise ApiError(reason, f"{what}: {card} is not a card")
        bit = 1 << card
        if mask & bit:
            raise ApiError(reason, f"{what}: {cards_of(bit)[0].code} appears twice")
        mask |= bit
    if size is not None and count != size:
        raise ApiError(reason, f"{what}: {count} cards, expected {size}")
    return mask


# --- moves -----------------------------------------------------------------------------------


def move_from_proto(move: moves_pb2.Move) -> Move:
    """The engine move of a request; refuses a move without a kind or with a non-card."""
    kind = int(move.kind)
    if kind == moves_pb2.MOVE_KIND_UNSPECIFIED:
        raise ApiError("INVALID_ARGUMENT", "the move needs a kind")
    if kind not in MoveKind._value2member_map_:
        raise ApiError("INVALID_ARGUMENT", f"unknown move kind {kind}")
    for name, value in (("card", int(move.card)), ("target", int(move.target))):
        if not 0 <= value <= _LAST_CARD:
            raise ApiError("INVALID_ARGUMENT", f"the move's {name} {value} is not a card")
    return Move(MoveKind(kind), int(move.card), int(move.target))


def move_to_proto(move: Move) -> moves_pb2.Move:
    """An engine move as a message (for legal moves)."""
    return moves_pb2.Move(
        kind=moves_pb2.MoveKind.ValueType(int(move.kind)),
        card=card_value(move.card),
        target=card_value(move.target),
    )


@lru_cache(maxsize=2048)
def move_message(move: Move) -> moves_pb2.Move:
    """:func:`move_to_proto`, built once per move (there are a few hundred): for lists of legal
    moves, which copy it. Never mutate the result."""
    return move_to_proto(move)


# --- deals -----------------------------------------------------------------------------------


def deal_from_proto(deal: game_pb2.Deal, index: int) -> Deal:
    """A prepared deal of a request, with its card numbers checked (sizes are the game's job)."""
    what = f"prepared deal {index}"
    hands = tuple(
        tuple(_deal_cards(h.cards, f"{what}, hand {seat}")) for seat, h in enumerate(deal.hands)
    )
    field = tuple(_deal_cards(deal.field, f"{what}, field"))
    stock = tuple(_deal_cards(deal.stock, f"{what}, stock"))
    every = [c for h in hands for c in h] + list(field) + list(stock)
    # Checked here, whatever the game, so that no engine ever sees a duplicate or a non-card.
    if mask_from_cards(every, what, reason="BAD_DEAL") != DECK:
        raise ApiError("BAD_DEAL", f"{what}: a deal holds all 48 cards exactly once")
    # Its sizes and cards are the game's to check: only a game with a drop phase takes it.
    after_drops = tuple(_deal_cards(deal.stock_after_drops, f"{what}, stock after drops"))
    return Deal(hands, field, stock, after_drops)


def _deal_cards(cards: Iterable[int], what: str) -> list[int]:
    out = [int(c) for c in cards]
    for c in out:
        if not 1 <= c <= _LAST_CARD:
            raise ApiError("BAD_DEAL", f"{what}: {c} is not a card")
    return out


def deal_to_proto(deal: Deal) -> game_pb2.Deal:
    """A deal as a message: hands by seat, the field, the stock top card first (and the stock
    after drops, likewise)."""
    return game_pb2.Deal(
        hands=[game_pb2.Hand(cards=[card_value(c) for c in hand]) for hand in deal.hands],
        field=[card_value(c) for c in deal.field],
        stock=[card_value(c) for c in deal.stock],
        stock_after_drops=[card_value(c) for c in deal.stock_after_drops],
    )


# --- Koi-Koi rule sets -----------------------------------------------------------------------

_KOIKOI_FIELDS: Mapping[str, FieldDescriptor] = rules_pb2.KoiKoiRules.DESCRIPTOR.fields_by_name
_YAKU_SETTINGS = ("enabled", "points", "extra", "points_after_koikoi")


def _enum_prefix(enum: EnumDescriptor) -> str:
    """``FIRST_DEALER_`` for ``FirstDealer``: its zero value's name without ``UNSPECIFIED``."""
    return enum.values_by_number[0].name.removesuffix("UNSPECIFIED")


def _enum_number(enum: EnumDescriptor, value: str) -> int:
    """The enum number of an option value in the spec's spelling (``seat-0`` -> ``..._SEAT_0``)."""
    name = _enum_prefix(enum) + value.upper().replace("-", "_")
    return enum.values_by_name[name].number


def _enum_text(enum: EnumDescriptor, number: int, option: str) -> str:
    """The spec's spelling of an enum number, refusing numbers the contract does not define."""
    value = enum.values_by_number.get(number)
    if value is None:
        raise ApiError(
            "BAD_OPTION_VALUE", f"option {option!r} cannot be {number}", {"option": option}
        )
    return value.name.removeprefix(_enum_prefix(enum)).lower().replace("_", "-")


def koikoi_rules_to_proto(rules: KoiKoiRules) -> rules_pb2.Rules:
    """A resolved Koi-Koi rule set as ``Rules``: every option set, every yaku listed."""
    message = rules_pb2.KoiKoiRules()
    for name, value in rules.options().items():
        if name in ("preset", "yaku"):
            continue
        field = _KOIKOI_FIELDS[name]
        if field.enum_type is not None:
            setattr(message, name, _enum_number(field.enum_type, value))
        else:
            setattr(message, name, value)
    for rule in rules.yaku:
        message.yaku.append(
            rules_pb2.YakuRule(
                id=rule.id,
                enabled=rule.enabled,
                points=rule.points,
                extra=rule.extra,
                points_after_koikoi=rule.points_after_koikoi,
            )
        )
    return rules_pb2.Rules(preset=rules.preset, koi_koi=message)


def koikoi_overrides(message: rules_pb2.KoiKoiRules) -> dict[str, Any]:
    """The overrides a partial ``KoiKoiRules`` names, as :meth:`KoiKoiRules.from_preset` takes
    them: set scalars, enums other than ``*_UNSPECIFIED``, and the yaku entries' set fields.

    Unknown yaku ids and out-of-range values are left for the rule set to refuse, so that the
    refusal names the option exactly as the engine does.
    """
    overrides: dict[str, Any] = {}
    for name, field in _KOIKOI_FIELDS.items():
        if name == "yaku":
            continue
        if field.enum_type is not None:
            number = getattr(message, name)
            if number:
                overrides[name] = _enum_text(field.enum_type, number, name)
        elif message.HasField(name):  # type: ignore[arg-type]
            overrides[name] = getattr(message, name)
    yaku: dict[str, dict[str, Any]] = {}
    for entry in message.yaku:
        if entry.id in yaku:
            # Two entries for one yaku may disagree: which one was meant is not guessed at.
            raise ApiError(
                "BAD_OPTION_VALUE",
                f"yaku {entry.id!r} is given more than once",
                {"option": f"yaku.{entry.id}"},
            )
        settings = yaku[entry.id] = {}
        for key in _YAKU_SETTINGS:
            if entry.HasField(key):  # type: ignore[arg-type]
                settings[key] = getattr(entry, key)
    if yaku:
        unknown = [y for y in yaku if y not in YAKU_IDS]
        if unknown:
            option = f"yaku.{unknown[0]}"
            raise ApiError(
                "UNKNOWN_OPTION",
                f"unknown yaku {unknown[0]!r}; yaku: {', '.join(YAKU_IDS)}",
                {"option": option},
            )
        overrides["yaku"] = yaku
    return overrides


# --- scores ----------------------------------------------------------------------------------

#: The engine's multiplier ids, named as the rules option that caused them (the contract's name).
_MULTIPLIER_NAMES: Mapping[str, str] = {
    "own-koikoi-bonus": "own_koikoi",
    "own-koikoi": "own_koikoi",
    "seven-or-more": "seven_or_more",
    "opponent-koikoi": "opponent_koikoi",
    "all-calls-plus-one": "all_calls_plus_one",
    "counter-seven": "counter_seven",
}


def score_to_proto(score: ScoreBreakdown) -> scoring_pb2.ScoreBreakdown:
    """A Koi-Koi score's arithmetic as ``ScoreBreakdown``, each step with its running result."""
    message = scoring_pb2.ScoreBreakdown(base=score.base, points=score.total)
    for yaku in score.yaku:
        message.yaku.append(
            scoring_pb2.YakuScore(id=yaku.id, cards=card_list(yaku.cards), points=yaku.points)
        )
    running = score.base
    for step in score.multipliers:
        running = running * step.factor + step.added
        message.multipliers.append(
            scoring_pb2.Multiplier(
                name=_MULTIPLIER_NAMES.get(step.id, step.id.replace("-", "_")),
                factor=step.factor,
                added_points=step.added,
                result=running,
            )
        )
    return message


# --- refusals --------------------------------------------------------------------------------


class _EngineRefusals(ErrorTranslation):
    """The translation of :func:`engine_refusals`."""

    __slots__ = ()

    def translate(self, error: BaseException) -> ApiError | None:
        if isinstance(error, MoveRejected):
            return ApiError(error.reason.value, error.message)
        if isinstance(error, RulesError):
            metadata = {"option": error.option} if error.option else {}
            return ApiError(error.reason.value, error.message, metadata)
        if isinstance(error, BadCardsError):
            return ApiError("BAD_CARDS", error.message)
        return None


_ENGINE_REFUSALS = _EngineRefusals()


def engine_refusals() -> AbstractContextManager[None]:
    """Turn the engines' refusals into :class:`ApiError` with the same reason.

    ``MoveRejected`` and ``RulesError`` carry an engine ``Reason`` (spelled as the contract's);
    a rule-set refusal names its option in the ``option`` metadata; Hachi-Hachi's
    ``BadCardsError`` is ``BAD_CARDS``.

    >>> from hanafuda_referee.errors import Reason
    >>> try:
    ...     with engine_refusals():
    ...         raise MoveRejected(Reason.NOT_YOUR_TURN, "seat 1 is to play")
    ... except ApiError as error:
    ...     print(error.reason, error.message)
    NOT_YOUR_TURN seat 1 is to play
    """
    return _ENGINE_REFUSALS
