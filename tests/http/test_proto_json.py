"""The fast proto3 JSON writer and reader give exactly what ``json_format`` gives.

The HTTP transport's wire format is defined by ``json_format`` (``MessageToDict`` with every
field without presence, dumped compactly; ``ParseDict`` with unknown fields refused). The fast
paths must match it byte for byte and message for message: on the responses of real games, and
on messages of every type of the contract filled at random (odd strings, extreme integers,
unknown enum numbers, oneofs, optional fields), including documents ``ParseDict`` refuses.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
    timestamp_pb2,
)
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hanafuda.v1 import events_pb2, game_pb2, rules_pb2, service_pb2
from hypothesis import example, given
from hypothesis import strategies as st

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore
from hanafuda_referee.writers.forms import JSON, MESSAGE, Form
from hanafuda_referee.writers.proto_json import JsonWriter, list_text, message_json, read_simple
from tests.service.conftest import cards

_SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]
_MEMOIZED = ("hanafuda.v1.Rules", "hanafuda.v1.RoundResult", "google.protobuf.Timestamp")
_TEXTS: tuple[str, ...] = ("", "Ann", "é à ü", "ß\u2028\u2029", "tab\there", 'quote" back\\slash')
_TEXTS += ("\x00\x1f\x7f", "😀 emoji", "/slash/", "<script>", "長い名前")


def reference(message: Message) -> str:
    """The HTTP transport's definition of a message's JSON."""
    document = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def contract_types() -> list[Descriptor]:
    """Every message type of the service's requests and responses, nested ones included."""
    found: dict[str, Descriptor] = {}

    def visit(descriptor: Descriptor) -> None:
        if descriptor.full_name in found or descriptor.full_name.startswith("google.protobuf."):
            return
        found[descriptor.full_name] = descriptor
        for field in descriptor.fields:
            if field.message_type is not None:
                visit(field.message_type)

    for method in _SERVICE.methods:
        visit(method.input_type)
        visit(method.output_type)
    return list(found.values())


def fill(message: Message, rng: random.Random, depth: int = 0) -> None:
    """Set a random selection of ``message``'s fields to random values."""
    for field in cast(Descriptor, message.DESCRIPTOR).fields:
        if rng.random() < 0.35:
            continue
        nested = field.message_type
        if field.is_repeated:
            target = getattr(message, field.name)
            for _ in range(rng.randrange(4)):
                if nested is not None:
                    if depth < 4:
                        fill(target.add(), rng, depth + 1)
                else:
                    target.append(scalar(field, rng))
        elif nested is not None:
            if nested.full_name == "google.protobuf.Timestamp":
                stamp = getattr(message, field.name)
                stamp.seconds = rng.randrange(0, 4_000_000_000)
                stamp.nanos = rng.choice((0, 1_000_000, rng.randrange(1_000_000_000)))
            elif depth < 4:
                getattr(message, field.name).SetInParent()
                fill(getattr(message, field.name), rng, depth + 1)
        else:
            setattr(message, field.name, scalar(field, rng))


def scalar(field: FieldDescriptor, rng: random.Random) -> Any:
    """A random value of a scalar field's type, extremes included."""
    cpp = field.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_STRING:
        if field.type == FieldDescriptor.TYPE_BYTES:
            return rng.randbytes(rng.randrange(6))
        return rng.choice(_TEXTS) + "".join(rng.choices(string.printable, k=rng.randrange(4)))
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return rng.random() < 0.5
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        assert field.enum_type is not None
        numbers = [value.number for value in field.enum_type.values]
        return rng.choice([*numbers, 999])  # 999: unknown to the contract (open enums)
    bits = {
        FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
        FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
        FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
        FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
    }
    if cpp in bits:
        low, high = bits[cpp]
        return rng.choice((low, high, 0, 1, rng.randrange(low, high)))
    return rng.choice((0.0, -1.5, 3.25, 1e300, float("inf")))  # pragma: no cover - none in v1


def random_messages(seeds: int) -> Iterator[Message]:
    rng = random.Random(20240607)
    for descriptor in contract_types():
        message_class = message_factory.GetMessageClass(descriptor)
        for _ in range(seeds):
            message = message_class()
            fill(message, rng)
            yield message


async def game_responses() -> list[Message]:
    """Every kind of response of a few complete games of both kinds, as seats and spectators."""
    referee = Referee(MemoryStore(), allow_testing=True)
    rng = random.Random(7)
    out: list[Message] = [
        await referee.ListPresets(service_pb2.ListPresetsRequest(), Caller()),
    ]
    games = (
        (rules_pb2.GAME_KIND_KOI_KOI, ["Ann", "Bob"]),
        (rules_pb2.GAME_KIND_HACHI_HACHI, ["Ann", "Bob", "Cy"]),
    )
    for kind, players in games:
        request = service_pb2.CreateGameRequest(kind=kind, players=players, seed=11)
        created = await referee.CreateGame(request, Caller())
        out.append(created)
        tokens = list(created.player_tokens)
        view = created.view
        while view.status != game_pb2.GAME_STATUS_OVER:
            token = tokens[view.turn]
            got = await referee.GetGame(
                service_pb2.GetGameRequest(game=created.game), Caller(token=token)
            )
            out.append(got)
            move = rng.choice(list(got.view.legal_moves))
            answer = await referee.SubmitMove(
                service_pb2.SubmitMoveRequest(
                    game=created.game, move=move, request_id=f"r{view.version}"
                ),
                Caller(token=token),
            )
            out.append(answer)
            view = answer.view
        log = service_pb2.GetGameLogRequest(game=created.game)
        out.append(await referee.GetGameLog(log, Caller()))
        out.append(await referee.GetGameLog(log, Caller(token=tokens[0])))
    return out


async def test_real_responses_are_written_as_json_format_writes_them() -> None:
    responses = await game_responses()
    assert len(responses) > 100
    memoizing = JsonWriter(memoized=_MEMOIZED, memo_size=8)  # small: entries are evicted too
    for response in responses:
        expected = reference(response)
        assert message_json(response) == expected
        assert memoizing.message(response) == expected


def test_random_messages_of_every_contract_type_are_written_exactly() -> None:
    memoizing = JsonWriter(memoized=[*(d.full_name for d in contract_types()), *_MEMOIZED])
    count = 0
    for message in random_messages(seeds=12):
        expected = reference(message)
        assert message_json(message) == expected, message
        assert memoizing.message(message) == expected, message
        count += 1
    assert count > 300


def field_values(message: Message, rng: random.Random, form: Form[Any]) -> dict[str, Any]:
    """The values of ``message``'s fields as a composer of ``form`` takes them: Python values,
    messages or, at random, the message fields written in ``form``; unset fields with presence
    as None or missing, unset fields without presence missing or at their zero value."""
    values: dict[str, Any] = {}
    for field in message.DESCRIPTOR.fields:
        value = getattr(message, field.name)
        if field.has_presence and not message.HasField(field.name):
            if rng.random() < 0.5:
                values[field.name] = None
            continue
        if not field.has_presence and rng.random() < 0.2 and not value:
            continue  # missing: written at its zero value all the same
        if field.message_type is not None and rng.random() < 0.7:
            if field.is_repeated:
                values[field.name] = form.list([form.message(item) for item in value])
            else:
                values[field.name] = form.message(value)
        elif field.is_repeated:
            values[field.name] = list(value)
        else:
            values[field.name] = value
    return values


@pytest.mark.parametrize(
    ("form", "written"),
    [(JSON, reference), (MESSAGE, lambda message: message)],
    ids=["json", "message"],
)
def test_composing_field_values_writes_what_the_message_gives(
    form: Form[Any], written: Callable[[Message], Any]
) -> None:
    rng = random.Random(5)
    count = 0
    for message in random_messages(seeds=12):
        descriptor = cast(Descriptor, message.DESCRIPTOR)
        try:
            form.compose(descriptor, {})
        except ValueError:
            continue  # a type left to json_format: JSON's compose refuses it
        values = field_values(message, rng, form)
        assert form.compose(descriptor, values) == written(message), message
        count += 1
    assert count > 300


def test_compose_writes_zero_values_with_presence_and_skips_empty_lists() -> None:
    writer = JsonWriter()
    view = game_pb2.GameView(viewer_seat=0, turn=0)
    values = {"viewer_seat": 0, "turn": 0, "hand": [], "seats": list_text([]), "version": 0}
    assert writer.compose(game_pb2.GameView.DESCRIPTOR, values) == reference(view)
    with pytest.raises(ValueError, match="not a type compose writes"):
        writer.compose(timestamp_pb2.Timestamp.DESCRIPTOR, {})


def out_of_order_type() -> Any:
    """A proto3 message class whose fields are declared out of field number order (no contract
    type is): ``late = 3``, ``first = 1``, ``names = 2`` (repeated), ``maybe = 4`` (optional)."""
    file = descriptor_pb2.FileDescriptorProto(name="order_test.proto", package="t", syntax="proto3")
    message = file.message_type.add(name="Order")
    types = descriptor_pb2.FieldDescriptorProto
    for name, number, repeated in (("late", 3, False), ("first", 1, False), ("names", 2, True)):
        message.field.add(
            name=name,
            number=number,
            type=types.TYPE_STRING if repeated else types.TYPE_INT32,
            label=types.LABEL_REPEATED if repeated else types.LABEL_OPTIONAL,
        )
    message.oneof_decl.add(name="_maybe")
    message.field.add(
        name="maybe",
        number=4,
        type=types.TYPE_INT32,
        label=types.LABEL_OPTIONAL,
        oneof_index=0,
        proto3_optional=True,
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("t.Order"))


def test_compose_writes_zero_values_in_declaration_order_when_numbers_differ() -> None:
    order = out_of_order_type()
    writer = JsonWriter()
    cases: list[dict[str, Any]] = [
        {},
        {"first": 5},
        {"late": 7, "names": ["a"]},
        {"names": ["b", "c"], "maybe": 0},
        {"first": 0, "late": 2, "maybe": None},
    ]
    for values in cases:
        message = order(**values)
        assert writer.compose(order.DESCRIPTOR, values) == reference(message), values


def test_a_field_is_written_as_the_json_of_the_whole_message_holds_it() -> None:
    writer = JsonWriter()
    view = game_pb2.GameView(game="g", version=3, hand=cards([1, 5]))
    response = service_pb2.GetGameResponse(view=view)
    assert writer.field(response, "view") == reference(view)
    assert writer.field(service_pb2.GetGameResponse(), "view") == "null"
    assert writer.field(view, "hand") == '["CARD_PINE_CRANE","CARD_PLUM_WARBLER"]'
    assert writer.field(view, "version") == '"3"'


def mutations(document: dict[str, Any], rng: random.Random, descriptor: Descriptor) -> None:
    """Respell a canonical document the ways clients do (proto names, numbers for 64-bit
    integers, enum numbers) and the ways ParseDict refuses (nulls, floats, unknown keys)."""
    for key in list(document):
        field = next((f for f in descriptor.fields if f.json_name == key), None)
        if field is None:
            continue
        value = document[key]
        roll = rng.random()
        if roll < 0.15 and field.name != key:
            document[field.name] = document.pop(key)
        elif roll < 0.2:
            document[key] = None
        elif roll < 0.25 and isinstance(value, str) and value.lstrip("-").isdigit():
            document[key] = int(value)
        elif roll < 0.3 and field.enum_type is not None and not field.is_repeated:
            document[key] = rng.choice((0, 1, 1.0, True))
        elif roll < 0.33:
            document[key] = rng.choice((1.5, [], {}, "12 3", " 5", "+4", "١٢"))
        elif isinstance(value, dict) and field.message_type is not None:
            mutations(value, rng, field.message_type)
    if rng.random() < 0.05:
        document["noSuchField"] = 1


def parsed(document: dict[str, Any], message_class: type[Message]) -> Message | str:
    """What ParseDict makes of a document: the message, or its refusal."""
    message = message_class()
    try:
        json_format.ParseDict(document, message, ignore_unknown_fields=False)
    except json_format.ParseError as error:
        return f"refused: {error}"
    return message


def test_plain_documents_are_read_as_parse_dict_reads_them() -> None:
    rng = random.Random(99)
    quick = 0
    for message in random_messages(seeds=12):
        document = json_format.MessageToDict(message)
        mutations(document, rng, cast(Descriptor, message.DESCRIPTOR))
        expected = parsed(document, type(message))
        mine = type(message)()
        if read_simple(json.loads(json.dumps(document)), mine):
            quick += 1
            assert isinstance(expected, Message), (document, expected)
            assert mine == expected, document
    assert quick > 100  # the quick path is taken for most plain documents


@pytest.mark.parametrize(
    "document",
    [
        {"move": {"kind": "MOVE_KIND_PLAY", "card": "CARD_PINE_CRANE"}, "requestId": "r-1"},
        {"game": "g", "move": {"kind": "MOVE_KIND_KOIKOI"}, "expectedVersion": "12", "seat": 1},
        {"game": "g", "expected_version": 3, "request_id": "x"},
        {"move": {"kind": 1, "card": 37, "target": 0}, "requestId": "r-2"},
        {"move": {"kind": 99, "card": 4096}},
    ],
)
def test_move_requests_take_the_quick_path(document: dict[str, Any]) -> None:
    message = service_pb2.SubmitMoveRequest()
    assert read_simple(document, message)
    assert message == parsed(document, service_pb2.SubmitMoveRequest)


@pytest.mark.parametrize(
    "document",
    [
        {"requestId": None},
        {"expectedVersion": "1 2"},
        {"expectedVersion": 1.0},
        {"seat": True},
        {"seat": -1},
        {"seat": 2**40},
        {"move": {"kind": 2**40}},
        {"move": {"kind": 1.0}},
        {"move": {"kind": "3"}},
        {"move": {"kind": "NOT_A_KIND"}},
        {"move": []},
        {"requestId": "a", "request_id": "b"},
        {"requestId": "\ud800"},
        {"unknown": 1},
    ],
)
def test_anything_unusual_is_left_to_parse_dict(document: dict[str, Any]) -> None:
    assert not read_simple(document, service_pb2.SubmitMoveRequest())


@given(
    st.integers(-62_135_596_800, 253_402_300_799),
    st.sampled_from([0, 1, 999, 1_000, 123_000, 1_000_000, 59_000_000, 999_999_999])
    | st.integers(0, 999_999_999),
)
@example(0, 0)
@example(-62_135_596_800, 0)
@example(253_402_300_799, 999_999_999)
@example(-1, 500_000_000)
def test_timestamps_are_written_as_to_json_string_writes_them(seconds: int, nanos: int) -> None:
    writer = JsonWriter()
    stamp = timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)
    expected = json.dumps(stamp.ToJsonString())
    assert writer.message(stamp) == expected
    assert writer.message(stamp) == expected  # the second of the last one written
    event = events_pb2.Event(version=1, time=stamp)
    reference = json_format.MessageToDict(event, always_print_fields_with_no_presence=True)
    assert writer.message(event) == json.dumps(reference, separators=(",", ":"))


@pytest.mark.parametrize(
    ("seconds", "nanos"),
    [(-62_135_596_801, 0), (253_402_300_800, 0), (0, -1), (0, 1_000_000_000)],
)
def test_timestamps_out_of_range_are_refused_as_to_json_string_refuses_them(
    seconds: int, nanos: int
) -> None:
    stamp = timestamp_pb2.Timestamp(seconds=seconds, nanos=nanos)
    with pytest.raises(ValueError, match="Timestamp is not valid") as expected:
        stamp.ToJsonString()
    with pytest.raises(ValueError, match="Timestamp is not valid") as refused:
        JsonWriter().message(stamp)
    assert str(refused.value) == str(expected.value)
