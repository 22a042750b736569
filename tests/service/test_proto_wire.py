"""Composed protobuf bytes are the bytes ``SerializeToString`` gives for the same message (random
messages of every contract type: ``tests/http/test_proto_json.py``)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from google.protobuf import struct_pb2
from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2

from hanafuda_referee.api.proto_wire import WireWriter, wire_list
from tests.http.test_proto_json import out_of_order_type


def test_zero_values_with_presence_are_written_and_without_presence_left_out() -> None:
    writer = WireWriter()
    view = game_pb2.GameView(viewer_seat=0, turn=0, rules=rules_pb2.Rules())
    values = {"viewer_seat": 0, "turn": 0, "rules": b"", "version": 0}
    values |= {"hand": [], "seats": wire_list([]), "game": ""}
    assert writer.compose(game_pb2.GameView.DESCRIPTOR, values) == view.SerializeToString()
    seat = game_pb2.SeatInfo(score=-3)  # a negative int32: ten bytes
    assert writer.compose(game_pb2.SeatInfo.DESCRIPTOR, {"score": -3}) == seat.SerializeToString()
    move = moves_pb2.Move(
        kind=moves_pb2.MOVE_KIND_PLAY, card=cast(Any, 300)
    )  # an unknown, long number
    assert writer.compose(moves_pb2.Move.DESCRIPTOR, {"kind": 1, "card": 300}) == (
        move.SerializeToString()
    )


def test_fields_go_out_in_number_order_whatever_their_declaration() -> None:
    order = out_of_order_type()
    writer = WireWriter()
    values = {"late": 7, "first": 5, "names": ["a", "b"], "maybe": 0}
    assert writer.compose(order.DESCRIPTOR, values) == order(**values).SerializeToString()


def test_types_it_cannot_compose_are_refused() -> None:
    with pytest.raises(ValueError, match="not a type compose writes"):
        WireWriter().compose(struct_pb2.Value.DESCRIPTOR, {})  # a double field
