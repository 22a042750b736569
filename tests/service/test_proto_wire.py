"""Composed protobuf bytes are the bytes ``SerializeToString`` gives for the same message."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest
from google.protobuf import struct_pb2
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2

from hanafuda_referee.api.proto_wire import WireWriter, wire_list
from tests.http.test_proto_json import out_of_order_type, random_messages


def field_values(message: Message, rng: random.Random) -> dict[str, Any]:
    """The values of ``message``'s fields as :meth:`WireWriter.compose` takes them: Python
    values, messages or, at random, their bytes; unset fields as None or missing, fields
    without presence sometimes at their zero value."""
    values: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.has_presence and not message.HasField(field.name):
            if rng.random() < 0.5:
                values[field.name] = None
            continue
        if not field.has_presence and not value and rng.random() < 0.3:
            continue
        if field.message_type is not None and rng.random() < 0.7:
            if field.is_repeated:
                values[field.name] = wire_list([item.SerializeToString() for item in value])
            else:
                values[field.name] = value.SerializeToString()
        elif field.is_repeated:
            values[field.name] = list(value)
        else:
            values[field.name] = value
    return values


def test_random_messages_of_every_contract_type_are_composed_exactly() -> None:
    writer = WireWriter()
    rng = random.Random(11)
    count = 0
    for message in random_messages(seeds=12):
        descriptor = cast(Descriptor, message.DESCRIPTOR)
        values = field_values(message, rng)
        assert writer.compose(descriptor, values) == message.SerializeToString(), message
        count += 1
    assert count > 300


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
