"""The public API's view of a seat (``hanafuda.v1.GameView``) as the engine view the bots take.

An external client holds a ``GameView`` (from ``GetGame``, ``SubmitMove`` or ``WatchGame``);
:func:`engine_view` turns it into the :class:`~hanafuda_referee.koikoi.view.KoiKoiView` or
:class:`~hanafuda_referee.hachihachi.view.HachiHachiView` that
:func:`~hanafuda_referee.bots.decide` takes. For a game in progress, the result equals the view the
engine gives the same seat, except ``results`` (the finished rounds, which no bot reads, and which a
``GameView`` carries in the API's own form): it is left empty. So a bot playing over the API
decides exactly as a built-in one (``tests/bots/test_proto_view.py``).
"""

from __future__ import annotations

import dataclasses

from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2

from hanafuda_referee.hachihachi.dekiyaku import DekiyakuId
from hanafuda_referee.hachihachi.game import Phase as HachiHachiPhase
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.teyaku import Teyaku, TeyakuId
from hanafuda_referee.hachihachi.view import HachiHachiView, Participation
from hanafuda_referee.hachihachi.view import SeatInfo as HachiHachiSeat
from hanafuda_referee.koikoi.game import Phase as KoiKoiPhase
from hanafuda_referee.koikoi.game import round_month
from hanafuda_referee.koikoi.rules import KoiKoiRules, YakuRule
from hanafuda_referee.koikoi.view import KoiKoiView
from hanafuda_referee.koikoi.view import SeatInfo as KoiKoiSeat
from hanafuda_referee.moves import Move, MoveKind

__all__ = ["engine_view", "hachihachi_view", "koikoi_rules", "koikoi_view", "move_message"]

_KOIKOI_PHASES = {
    game_pb2.WAITING_FOR_HAND_PLAY: KoiKoiPhase.PLAY,
    game_pb2.WAITING_FOR_TARGET_CHOICE: KoiKoiPhase.DRAWN_TARGET,
    game_pb2.WAITING_FOR_KOIKOI_DECISION: KoiKoiPhase.DECISION,
    game_pb2.WAITING_FOR_NOTHING: KoiKoiPhase.OVER,
}
_HACHIHACHI_PHASES = {
    game_pb2.WAITING_FOR_JOIN_DECISION: HachiHachiPhase.DROP,
    game_pb2.WAITING_FOR_HAND_PLAY: HachiHachiPhase.PLAY,
    game_pb2.WAITING_FOR_TARGET_CHOICE: HachiHachiPhase.DRAWN_TARGET,
    game_pb2.WAITING_FOR_SAGE_DECISION: HachiHachiPhase.DECISION,
    game_pb2.WAITING_FOR_NOTHING: HachiHachiPhase.OVER,
}
_KOIKOI_FIELDS = rules_pb2.KoiKoiRules.DESCRIPTOR.fields_by_name


def _mask(cards: object) -> int:
    mask = 0
    for card in cards:  # type: ignore[attr-defined]
        mask |= 1 << int(card)
    return mask


def _moves(message: game_pb2.GameView) -> tuple[Move, ...]:
    return tuple(Move(MoveKind(m.kind), int(m.card), int(m.target)) for m in message.legal_moves)


def move_message(move: Move) -> moves_pb2.Move:
    """A bot's move as the API takes it."""
    return moves_pb2.Move(
        kind=moves_pb2.MoveKind.ValueType(int(move.kind)),
        card=move.card,  # type: ignore[arg-type]
        target=move.target,  # type: ignore[arg-type]
    )


def koikoi_rules(message: rules_pb2.Rules) -> KoiKoiRules:
    """A resolved Koi-Koi rule set as a view carries it (every option set)."""
    options = message.koi_koi
    changes: dict[str, object] = {"preset": message.preset}
    for name, field in _KOIKOI_FIELDS.items():
        if name == "yaku":
            continue
        value = getattr(options, name)
        if field.enum_type is not None:
            prefix = field.enum_type.values_by_number[0].name.removesuffix("UNSPECIFIED")
            name_of = field.enum_type.values_by_number[value].name
            value = name_of.removeprefix(prefix).lower().replace("_", "-")
        changes[name] = value
    changes["yaku"] = tuple(
        YakuRule(y.id, y.enabled, y.points, y.extra, y.points_after_koikoi) for y in options.yaku
    )
    return dataclasses.replace(KoiKoiRules(), **changes)  # type: ignore[arg-type]


def _seat(message: game_pb2.GameView) -> int | None:
    return message.viewer_seat if message.HasField("viewer_seat") else None


def _winner(message: game_pb2.GameView) -> int | None:
    if message.status != game_pb2.GAME_STATUS_OVER:
        return None
    result = message.game_result
    return result.winner if result.HasField("winner") else -1


def koikoi_view(message: game_pb2.GameView) -> KoiKoiView:
    """The Koi-Koi engine view of a ``GameView``."""
    waiting = message.waiting
    seats = tuple(
        KoiKoiSeat(s.seat, s.score, _mask(s.captured), s.koikoi_calls, s.hand_size, s.wild_month)
        for s in message.seats
    )
    return KoiKoiView(
        seat=_seat(message),
        rules=koikoi_rules(message.rules),
        phase=_KOIKOI_PHASES[waiting.kind],
        round=message.round,
        month=round_month(message.round),
        dealer=message.dealer,
        turn=message.turn,
        seats=(seats[0], seats[1]),
        hand=_mask(message.hand),
        field=_mask(message.field),
        stock_size=message.stock_size,
        drawn=int(waiting.drawn_card),
        target_options=_mask(waiting.targets),
        legal_moves=_moves(message),
        results=(),
        winner=_winner(message),
        last_caller=(message.last_koikoi_caller if message.HasField("last_koikoi_caller") else -1),
        turn_points=message.turn_start_points,
        willow_seen=message.willow_seen,
    )


def _players(message: game_pb2.GameView, phase: HachiHachiPhase) -> tuple[int, ...]:
    """The round's players in playing order from the dealer: the joined seats once the drop
    phase is over (as the engine picks them)."""
    if phase is HachiHachiPhase.DROP:
        return ()
    n = len(message.seats)
    order = [(message.dealer + i) % n for i in range(n)]
    return tuple(
        s for s in order if message.seats[s].participation == game_pb2.PARTICIPATION_JOINED
    )


def hachihachi_view(message: game_pb2.GameView) -> HachiHachiView:
    """The Hachi-Hachi engine view of a ``GameView``."""
    waiting = message.waiting
    phase = _HACHIHACHI_PHASES[waiting.kind]
    seats = tuple(
        HachiHachiSeat(
            s.seat,
            s.balance_halves,
            Participation(s.participation),
            _mask(s.captured),
            s.hand_size,
            Teyaku(TeyakuId(s.teyaku.id), s.teyaku.value, _mask(s.teyaku.cards))
            if s.HasField("teyaku")
            else None,
            tuple(DekiyakuId(d.id) for d in s.dekiyaku),
            s.sage,
        )
        for s in message.seats
    )
    return HachiHachiView(
        seat=_seat(message),
        rules=HachiHachiRules(preset=message.rules.preset, rounds=message.rules.hachi_hachi.rounds),
        participants=len(seats),
        phase=phase,
        round=message.round,
        dealer=message.dealer,
        turn=message.turn,
        multiplier=message.field_multiplier,
        floor=message.floor_multiplier,
        dealt_field=_mask(message.dealt_field),
        players=_players(message, phase),
        seats=seats,
        hand=_mask(message.hand),
        field=_mask(message.field),
        stock_size=message.stock_size,
        drawn=int(waiting.drawn_card),
        target_options=_mask(waiting.targets),
        table=message.table_halves,
        legal_moves=_moves(message),
        results=(),
        winner=_winner(message),
        first_points=message.first_dekiyaku_points,
    )


def engine_view(message: game_pb2.GameView) -> KoiKoiView | HachiHachiView:
    """The engine view of a ``GameView`` of either game."""
    if message.kind == rules_pb2.GAME_KIND_KOI_KOI:
        return koikoi_view(message)
    if message.kind == rules_pb2.GAME_KIND_HACHI_HACHI:
        return hachihachi_view(message)
    raise ValueError(f"unknown game kind {message.kind}")
