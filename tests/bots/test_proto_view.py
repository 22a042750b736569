"""The proto-view adapter against the engine: the ``GameView`` the service writes for a seat, read
back by :func:`proto_view.engine_view`, is the engine's view of that seat (its finished rounds
aside), so that a bot playing over the API decides as a built-in one does. Over positions of both
games in every phase, for the seat on turn, another seat and a spectator, and through the JSON a
client over HTTP reads."""

from __future__ import annotations

import random

from google.protobuf import json_format
from hanafuda.v1 import game_pb2

from hanafuda_referee.bots import Budget, Level, decide
from hanafuda_referee.bots.proto_view import engine_view, move_message
from hanafuda_referee.hachihachi.view import view as hachihachi_view
from hanafuda_referee.hosting.adapter import GameInfo
from hanafuda_referee.hosting.convert import move_from_proto
from hanafuda_referee.hosting.hachihachi import HACHI_HACHI
from hanafuda_referee.hosting.koikoi import KOI_KOI
from hanafuda_referee.koikoi.view import view as koikoi_view
from hanafuda_referee.moves import Move, MoveKind
from tests.bots.positions import hachihachi_positions, koikoi_positions


def _through_json(message: game_pb2.GameView) -> game_pb2.GameView:
    """The view as a JSON client reads it."""
    return json_format.Parse(json_format.MessageToJson(message), game_pb2.GameView())


def test_koikoi_views_round_trip() -> None:
    info = GameInfo("g", ("ann", "bob"))
    rng = random.Random(1)
    for state in koikoi_positions(200, seed=41):
        for seat in (state.turn, 1 - state.turn, None):
            message = KOI_KOI.view(state, seat, info, version=rng.randrange(1, 500))
            expected = koikoi_view(state, seat)._replace(results=())
            assert engine_view(message) == expected
            assert engine_view(_through_json(message)) == expected


def test_hachihachi_views_round_trip() -> None:
    info = GameInfo("g", tuple(f"p{i}" for i in range(6)))
    rng = random.Random(2)
    for state in hachihachi_positions(200, seed=42):
        for seat in (state.turn, rng.randrange(state.participants), None):
            message = HACHI_HACHI.view(state, seat, info, version=rng.randrange(1, 500))
            expected = hachihachi_view(state, seat)._replace(results=())
            assert engine_view(message) == expected
            assert engine_view(_through_json(message)) == expected


def test_a_bot_over_the_api_decides_as_a_built_in_one() -> None:
    info = GameInfo("g", ("ann", "bob"))
    for state in koikoi_positions(30, seed=43):
        seen = koikoi_view(state, state.turn)
        message = KOI_KOI.view(state, state.turn, info, version=1)
        for level in Level:
            move = decide(seen, level, 5, budget=Budget(playouts=20))
            assert decide(engine_view(message), level, 5, budget=Budget(playouts=20)) == move


def test_moves_go_back_as_the_api_takes_them() -> None:
    for move in (Move.play(3, 4), Move.choose(17), Move(MoveKind.SAGE)):
        assert move_from_proto(move_message(move)) == move
