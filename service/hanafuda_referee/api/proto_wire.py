"""Protobuf binary messages composed from field values, some already serialized: the gRPC
counterpart of :meth:`~.proto_json.JsonWriter.compose`.

A serialized message is the concatenation of its fields' encodings, in field number order for
the bytes ``SerializeToString`` gives. :meth:`WireWriter.compose` writes exactly those bytes for
the message whose fields hold the given values, where a message field's value may be its
serialized bytes, kept from one response to the next, so that a response is assembled without
building its message (the same idea, and the same presence rules, as the JSON composition).
Every field's key and encoder is derived once per type from its descriptor.

>>> from hanafuda.v1 import moves_pb2
>>> writer = WireWriter()
>>> move = {"kind": moves_pb2.MOVE_KIND_PLAY, "card": 5}
>>> writer.compose(moves_pb2.Move.DESCRIPTOR, move) == moves_pb2.Move(**move).SerializeToString()
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

__all__ = ["WireWriter", "wire_list"]

_Encoder = Callable[[Any], bytes]

_VARINT_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_ENUM,
        FieldDescriptor.TYPE_BOOL,
    }
)
_ZIGZAG_TYPES = frozenset({FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64})
_LENGTH_TYPES = frozenset(
    {FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE}
)
_WIRE_VARINT = 0
_WIRE_LENGTH = 2


def wire_list(items: Iterable[bytes]) -> list[bytes]:
    """The serialized elements of a repeated message field."""
    return list(items)


def _varint(value: int) -> bytes:
    """The base-128 varint of ``value``; a negative value as its 64-bit two's complement (ten
    bytes), as protobuf writes negative int32 and int64 values."""
    if value < 0:
        value += 1 << 64
    if value < 0x80:
        return _SMALL[value]
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = tuple(bytes((n,)) for n in range(0x80))


def _zigzag(value: int) -> bytes:
    return _varint(value << 1 if value >= 0 else (-value << 1) - 1)


def _length(payload: bytes) -> bytes:
    size = len(payload)
    return (_SMALL[size] if size < 0x80 else _varint(size)) + payload


def _packed_varints(values: Sequence[int]) -> bytes:
    """Packed varints; values under 128 (cards, small counts) are their own bytes."""
    if min(values) >= 0 and max(values) < 0x80:
        return bytes(values)
    return b"".join([_varint(v) for v in values])


@dataclass(frozen=True, slots=True)
class _Layout:
    """Every field of a type as (name, whether it has presence, whether it is repeated, its
    key bytes, its encoder (with the key for a repeated length-delimited field)), in field
    number order."""

    fields: tuple[tuple[str, bool, bool, bytes, _Encoder], ...]
    #: Each field's (position in ``fields``, presence, repeated, key, encoder), by name.
    by_name: dict[str, tuple[int, bool, bool, bytes, _Encoder]]


def _composable(descriptor: Descriptor) -> bool:
    for field in descriptor.fields:
        if field.type not in _VARINT_TYPES | _ZIGZAG_TYPES | _LENGTH_TYPES:
            return False
        nested = field.message_type
        if nested is not None and nested.GetOptions().map_entry:
            return False
    return True


class WireWriter:
    """Composes serialized messages (see the module docstring)."""

    def __init__(self) -> None:
        self._layouts: dict[str, _Layout] = {}

    def compose(self, descriptor: Descriptor, values: dict[str, Any]) -> bytes:
        """The bytes ``SerializeToString`` gives for the message of type ``descriptor`` whose
        fields hold ``values``, by field name.

        A value is a field's Python value (an int for an enum, a list for a repeated field, a
        message for a message field) or, for a message field, its serialized ``bytes`` (a
        repeated one: a list of them). As in a message, a field without presence is left out at its
        zero value (or empty); a field with presence is written when its value is not None.
        Types with fixed-width, floating point, map or group fields are refused.
        """
        layout = self._layouts.get(descriptor.full_name)
        if layout is None:
            layout = self._layout(descriptor)
        if 3 * len(values) < len(layout.fields):
            return _compose_sparse(layout, values)
        parts: list[bytes] = []
        for name, presence, repeated, key, encode in layout.fields:
            value = values.get(name)
            if value is None or not (presence or value):
                continue
            if repeated:
                parts.append(encode(value))
            else:
                parts.append(key + encode(value))
        return b"".join(parts)

    def _layout(self, descriptor: Descriptor) -> _Layout:
        if not _composable(descriptor):
            raise ValueError(f"{descriptor.full_name} is not a type compose writes")
        fields = []
        for field in sorted(descriptor.fields, key=lambda f: f.number):
            fields.append(
                (
                    field.name,
                    field.has_presence,
                    field.is_repeated,
                    _varint(field.number << 3 | _wire_type(field)),
                    self._encoder(field),
                )
            )
        layout = _Layout(
            tuple(fields),
            {entry[0]: (i, *entry[1:]) for i, entry in enumerate(fields)},
        )
        self._layouts[descriptor.full_name] = layout
        return layout

    def _encoder(self, field: FieldDescriptor) -> _Encoder:
        single = _single_encoder(field)
        if not field.is_repeated:
            return single
        if field.type in _LENGTH_TYPES:
            # One key and length-delimited payload per element.
            key = _varint(field.number << 3 | _WIRE_LENGTH)
            return lambda values: b"".join([key + single(v) for v in values])
        if field.is_packed:
            key = _varint(field.number << 3 | _WIRE_LENGTH)
            if single is _varint:
                return lambda values: key + _length(_packed_varints(values))
            return lambda values: key + _length(b"".join([single(v) for v in values]))
        key = _varint(field.number << 3 | _WIRE_VARINT)
        return lambda values: b"".join([key + single(v) for v in values])


def _compose_sparse(layout: _Layout, values: dict[str, Any]) -> bytes:
    """:meth:`WireWriter.compose` for a few values of a type with many fields: the values'
    fields only, put in field number order, rather than a pass over every field."""
    by_name = layout.by_name
    chosen: list[tuple[int, bytes]] = []
    for name, value in values.items():
        entry = by_name.get(name)
        if value is None or entry is None:
            continue
        position, presence, repeated, key, encode = entry
        if presence or value:
            chosen.append((position, encode(value) if repeated else key + encode(value)))
    chosen.sort()
    return b"".join([encoded for _, encoded in chosen])


def _wire_type(field: FieldDescriptor) -> int:
    if field.type in _LENGTH_TYPES or (field.is_repeated and field.is_packed):
        return _WIRE_LENGTH
    return _WIRE_VARINT


def _message_payload(value: Any) -> bytes:
    if type(value) is bytes:  # serialized already
        return _length(value)
    assert isinstance(value, Message)
    return _length(value.SerializeToString())


def _single_encoder(field: FieldDescriptor) -> _Encoder:
    """The encoding of one value of ``field`` (without its key)."""
    kind = field.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        return _message_payload
    if kind == FieldDescriptor.TYPE_STRING:
        return lambda value: _length(value.encode("utf-8"))
    if kind == FieldDescriptor.TYPE_BYTES:
        return _length
    if kind in _ZIGZAG_TYPES:
        return _zigzag
    if kind == FieldDescriptor.TYPE_BOOL:
        return lambda value: b"\x01" if value else b"\x00"
    return _varint
