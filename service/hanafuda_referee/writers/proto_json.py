"""Canonical proto3 JSON of messages, fast: the HTTP transport's response writer and the quick
path of its request reader.

:func:`message_json` returns exactly the text that ``json.dumps(json_format.MessageToDict(message,
always_print_fields_with_no_presence=True), ensure_ascii=False, separators=(",", ":"))`` gives (the
HTTP transport's wire format, see :func:`~hanafuda_referee.http.routes.message_to_json`), key order
included, in a fraction of the time: ``json_format`` looks every field's type up again for every
value of every message, which made JSON encoding the largest cost of an HTTP move.

Here each message type is compiled once, from its descriptor, into a plan: for each field its
JSON key and a writer for its values (enum names and zero values precomputed). Writing a message
then mirrors ``json_format`` step by step: first the fields ``ListFields`` reports (the set ones,
in field number order), then every field without presence that was not set, at its zero value,
in declaration order. Strings are escaped by the ``json`` module's own encoder.

What the plans do not cover is written by ``json_format`` itself, so the output stays exact:
well-known types other than Timestamp, Duration and FieldMask, map fields, floating point fields,
closed enums and extensions.

Some messages repeat from response to response (a game's rule set is in every view, a finished
round's result in every view after it): :class:`JsonWriter` can memoize the text of chosen
types, keyed by their serialized bytes (equal bytes are equal messages, so equal text).

Composing: :meth:`JsonWriter.compose` writes a message of a type from its field values without
the message, its message fields' values already written: a response assembled from texts kept
from one response to the next costs a fraction of building its message and writing it. The text
is the one the message would have given, as the message writer's own field order and writers are
used.

Reading: :func:`read_simple` fills a message from a plain JSON document exactly as
``json_format.ParseDict`` would, and leaves anything unusual (and every refusal, with its
message) to ``ParseDict``. It reads each field through what it took from the field's descriptor
once (:class:`_ReadField`), not through the descriptor: reading a move's body that way costs half
as much.
"""

from __future__ import annotations

import base64
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, cast

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

__all__ = [
    "UNPAIRED_SURROGATE",
    "JsonWriter",
    "list_text",
    "message_json",
    "read_simple",
    "timestamp_text",
]

# The json module's own string encoder, as ``json.dumps(..., ensure_ascii=False)`` uses it (the
# C version when available): the escaping is then the same by construction.
_encode_string: Callable[[str], str] = (
    getattr(json.encoder, "c_encode_basestring", None) or json.encoder.py_encode_basestring
)

# json_format's own internals are used where the output must be its own, exactly: its pattern of
# the unpaired surrogates it refuses in a string, its printer's conversion of single values (for
# the texts computed once per type) and its list of the well-known types it writes specially.
#: The unpaired surrogates json_format refuses in a string.
UNPAIRED_SURROGATE: re.Pattern[str] = json_format._UNPAIRED_SURROGATE_PATTERN  # type: ignore[attr-defined]
_PRINTER: Any = json_format._Printer  # type: ignore[attr-defined]
_SPECIAL_TYPES: frozenset[str] = frozenset(json_format._WKTJSONMETHODS)  # type: ignore[attr-defined]

_TIMESTAMP = "google.protobuf.Timestamp"
_TEXT_TYPES = frozenset({_TIMESTAMP, "google.protobuf.Duration", "google.protobuf.FieldMask"})
_FLOATS = frozenset({FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE})
_INT64S = frozenset({FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64})
_INT32S = frozenset({FieldDescriptor.CPPTYPE_INT32, FieldDescriptor.CPPTYPE_UINT32})

_Writer = Callable[[Any], str]


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _reference(message: Message) -> str:
    """The text ``json_format`` gives: the definition the plans reproduce."""
    return _dumps(json_format.MessageToDict(message, always_print_fields_with_no_presence=True))


def _is_map(field: FieldDescriptor) -> bool:
    nested = field.message_type
    return nested is not None and nested.GetOptions().map_entry


def _zero_text(field: FieldDescriptor) -> str:
    """The text of a field without presence that is not set, as ``json_format`` prints it."""
    if field.is_repeated:
        return "{}" if _is_map(field) else "[]"
    return _dumps(_PRINTER()._FieldToJsonObject(field, field.default_value))


def _string(value: str) -> str:
    return _encode_string(value)


def _bytes(value: bytes) -> str:
    return '"' + base64.b64encode(value).decode() + '"'


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _int64(value: int) -> str:
    return '"' + str(value) + '"'


def _text_message(value: Any) -> str:
    return _encode_string(value.ToJsonString())


# The range ``Timestamp.ToJsonString`` writes: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
_MIN_SECONDS = -62_135_596_800
_MAX_SECONDS = 253_402_300_799
_EPOCH = datetime(1970, 1, 1)


class _LastSecond:
    """The whole second a Timestamp was last written at, with its date and time of day: the
    events of a move, and the moves of one second, share it."""

    __slots__ = ("written",)

    def __init__(self) -> None:
        # One attribute for both: a reader never sees one of them without the other.
        self.written: tuple[int, str] = (0, '"1970-01-01T00:00:00')


_LAST_SECOND = _LastSecond()


def _timestamp(value: Any) -> str:
    """A ``Timestamp`` message's JSON text: see :func:`timestamp_text`."""
    return timestamp_text(value.seconds, value.nanos)


def timestamp_text(seconds: int, nanos: int) -> str:
    """The JSON text of the ``Timestamp`` of ``seconds`` and ``nanos``, as ``ToJsonString``
    writes it (fraction digits by 3, 6 or 9, none for a whole second), with the date and time
    of day formatted once per second; without the message, which an event's time need not build.

    >>> timestamp_text(1_790_000_000, 250_000_000)
    '"2026-09-21T14:13:20.250Z"'
    """
    if not (_MIN_SECONDS <= seconds <= _MAX_SECONDS and 0 <= nanos <= 999_999_999):
        # Out of range: refused as ToJsonString refuses it.
        return _text_message(Timestamp(seconds=seconds, nanos=nanos))
    second, prefix = _LAST_SECOND.written
    if second != seconds:
        prefix = '"' + (_EPOCH + timedelta(seconds=seconds)).isoformat()
        _LAST_SECOND.written = (seconds, prefix)
    if nanos == 0:
        return prefix + 'Z"'
    if nanos % 1_000_000 == 0:
        return f'{prefix}.{nanos // 1_000_000:03d}Z"'
    if nanos % 1_000 == 0:
        return f'{prefix}.{nanos // 1_000:06d}Z"'
    return f'{prefix}.{nanos:09d}Z"'


#: An empty list, written.
_EMPTY_LIST = "[]"


def list_text(items: Iterable[str]) -> str:
    """The JSON list of values already written.

    >>> list_text(['"a"', "1"])
    '["a",1]'
    """
    return "[" + ",".join(items) + "]"


@dataclass(frozen=True, slots=True)
class _Layout:
    """How :meth:`JsonWriter.compose` writes one message type: every field as (name, JSON key
    text, value writer, whether it has presence, its zero-value text or None for a field with
    presence, whether its value may be given written: a message field's), in field number
    order (the order ``ListFields`` reports the set ones in).

    ``zeros``: the zero-value texts in declaration order (the order they follow the set fields
    in), only when that is not field number order; None when it is (the zeros are then
    gathered during the same pass)."""

    fields: tuple[tuple[str, str, _Writer, bool, str | None, bool], ...]
    zeros: tuple[tuple[str, str], ...] | None
    #: Each field's (position in ``fields``, key text, writer, presence, written), by name.
    by_name: dict[str, tuple[int, str, _Writer, bool, bool]]
    #: The fields without presence as (position in ``fields``, zero-value text), in
    #: declaration order.
    zero_positions: tuple[tuple[int, str], ...]


@dataclass(slots=True)
class _Plan:
    """How to write one message type: ``fields`` by descriptor as (JSON key text, writer), and
    the zero-value texts of the fields without presence, in declaration order. (Descriptors are
    compared by identity: the runtime hands out one object per field.)"""

    fields: dict[FieldDescriptor, tuple[str, _Writer]]
    zeros: tuple[tuple[FieldDescriptor, str], ...]


def _planned_writer(plan: _Plan) -> _Writer:
    """The writer of a plan (filled in later: a recursive type's fields refer to the writer
    while the plan is being compiled)."""

    def write(message: Message) -> str:
        fields = plan.fields
        listed = message.ListFields()
        parts: list[str] = []
        for field, value in listed:
            try:
                key, writer = fields[field]
            except KeyError:  # an extension: json_format knows how to name it
                return _reference(message)
            parts.append(key + writer(value))
        if plan.zeros:
            written = {field for field, _ in listed}
            parts += [text for field, text in plan.zeros if field not in written]
        return "{" + ",".join(parts) + "}"

    return write


class JsonWriter:
    """Writes messages as canonical proto3 JSON text (see the module docstring).

    ``memoized``: full names of message types whose text is kept (at most ``memo_size``
    entries, least recently used out) and reused for an equal message.
    """

    def __init__(self, memoized: Iterable[str] = (), memo_size: int = 4096) -> None:
        self._memoized = frozenset(memoized)
        # The writer of each message type met so far, compiled on first use.
        self._writers: dict[str, _Writer] = {}
        self._memo_size = memo_size
        # Memoized texts by (type name, serialized bytes), least recently used first.
        self._memo: OrderedDict[tuple[str, bytes], str] = OrderedDict()
        self._layouts: dict[str, _Layout] = {}

    def message(self, message: Message) -> str:
        """The JSON text of ``message``."""
        return self._writer(cast(Descriptor, message.DESCRIPTOR))(message)

    def field(self, message: Message, name: str) -> str:
        """The JSON text of one top-level field, as ``MessageToDict(message).get(json_name)``
        dumped: ``null`` when that dict would not have it (a field with presence, unset)."""
        field = cast(Descriptor, message.DESCRIPTOR).fields_by_name[name]
        if field.has_presence and not message.HasField(name):
            return "null"
        return self._value_writer(field)(getattr(message, name))

    def compose(self, descriptor: Descriptor, values: dict[str, Any]) -> str:
        """The JSON text of the message of type ``descriptor`` whose fields hold ``values``, by
        field name: what :meth:`message` gives for that message.

        A value is a field's Python value (an int for an enum, a list for a repeated field, a
        message for a message field) or, for a message field (repeated or not), its JSON text:
        a ``str`` there is taken as written. As in a message, a field without presence is
        written with its value when that is not the zero value (or an empty list, written or
        not), and at its zero value otherwise, missing or not; a field with presence is written
        when its value is not None. Only types the plans write are composed (no maps, floats or
        well-known types other than the plans' ones at the top level).

        >>> from hanafuda.v1 import moves_pb2
        >>> writer = JsonWriter()
        >>> writer.compose(moves_pb2.Move.DESCRIPTOR, {"kind": moves_pb2.MOVE_KIND_STOP})
        '{"kind":"MOVE_KIND_STOP","card":"CARD_UNSPECIFIED","target":"CARD_UNSPECIFIED"}'
        """
        layout = self._layouts.get(descriptor.full_name)
        if layout is None:
            layout = self._layout(descriptor)
        if 3 * len(values) < len(layout.fields):
            return _compose_sparse(layout, values)
        parts: list[str] = []
        zeros: list[str] = []
        for name, key, write, presence, zero, written in layout.fields:
            value = values.get(name)
            if value is not None:
                if written and type(value) is str:
                    if presence or (value and value != _EMPTY_LIST):
                        parts.append(key + value)
                        continue
                elif presence or value:
                    parts.append(key + write(value))
                    continue
            if zero is not None:
                zeros.append(zero)
        if layout.zeros is not None and zeros:
            # Declaration order differs: the zero texts again, in that order.
            unset = set(zeros)
            zeros = [text for _, text in layout.zeros if text in unset]
        return "{" + ",".join(parts + zeros) + "}"

    def _layout(self, descriptor: Descriptor) -> _Layout:
        if not _plannable(descriptor) or descriptor.full_name in _TEXT_TYPES:
            raise ValueError(f"{descriptor.full_name} is not a type compose writes")
        self._writer(descriptor)  # compiles the plan, hence every field's writer
        zero_texts = {
            field.name: _encode_string(field.json_name) + ":" + _zero_text(field)
            for field in descriptor.fields
            if not field.has_presence
        }
        by_number = sorted(descriptor.fields, key=lambda field: field.number)
        declared = list(zero_texts)
        numbered = [field.name for field in by_number if field.name in zero_texts]
        fields = tuple(
            (
                field.name,
                _encode_string(field.json_name) + ":",
                self._value_writer(field),
                field.has_presence,
                zero_texts.get(field.name),
                field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE,
            )
            for field in by_number
        )
        position = {field[0]: i for i, field in enumerate(fields)}
        layout = _Layout(
            fields=fields,
            zeros=None
            if declared == numbered
            else tuple((name, zero_texts[name]) for name in declared),
            by_name={
                name: (i, key, write, presence, written)
                for i, (name, key, write, presence, _, written) in enumerate(fields)
            },
            zero_positions=tuple((position[name], zero_texts[name]) for name in declared),
        )
        self._layouts[descriptor.full_name] = layout
        return layout

    def _writer(self, descriptor: Descriptor) -> _Writer:
        """The writer of a message type: its plan's, the memo's or ``json_format``'s."""
        name = descriptor.full_name
        writer = self._writers.get(name)
        if writer is not None:
            return writer
        plan: _Plan | None = None
        base: _Writer
        if name == _TIMESTAMP:
            base = _timestamp
        elif name in _TEXT_TYPES:
            base = _text_message
        elif not _plannable(descriptor):
            base = _reference
        else:
            plan = _Plan({}, ())
            base = _planned_writer(plan)
        writer = base
        if name in self._memoized:
            writer = self._memoizing(name, base)
        # Registered before the fields are compiled, so that a recursive field finds it.
        self._writers[name] = writer
        if plan is not None:
            plan.fields = {
                field: (_encode_string(field.json_name) + ":", self._value_writer(field))
                for field in descriptor.fields
            }
            plan.zeros = tuple(
                (field, _encode_string(field.json_name) + ":" + _zero_text(field))
                for field in descriptor.fields
                if not field.has_presence
            )
        return writer

    def _value_writer(self, field: FieldDescriptor) -> _Writer:
        """The writer of a field's value (a list for a repeated field)."""
        single = self._single_writer(field)
        if not field.is_repeated:
            return single
        if single is str:
            return lambda values: "[" + ",".join(map(str, values)) + "]"
        if field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            # Inlined (card lists are the most common values): no call per element.
            names = self._enum_names(field)
            return lambda values: "[" + ",".join([names.get(v) or str(v) for v in values]) + "]"
        return lambda values: "[" + ",".join([single(v) for v in values]) + "]"

    def _single_writer(self, field: FieldDescriptor) -> _Writer:
        cpp = field.cpp_type
        if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
            nested = field.message_type
            assert nested is not None
            return self._writer(nested)
        if cpp == FieldDescriptor.CPPTYPE_ENUM:
            names = self._enum_names(field)
            # An open enum's unknown number is written as the number.
            return lambda value: names.get(value) or str(value)
        if cpp == FieldDescriptor.CPPTYPE_STRING:
            return _bytes if field.type == FieldDescriptor.TYPE_BYTES else _string
        if cpp == FieldDescriptor.CPPTYPE_BOOL:
            return _bool
        if cpp in _INT64S:
            return _int64
        if cpp in _INT32S:
            return str
        raise AssertionError(f"{field.full_name}: no writer for this type")  # pragma: no cover

    @staticmethod
    def _enum_names(field: FieldDescriptor) -> dict[int, str]:
        """The text of each value of an enum field, as json_format spells it."""
        enum = field.enum_type
        assert enum is not None
        printer = _PRINTER()
        return {
            number: _dumps(printer._FieldToJsonObject(field, number))
            for number in enum.values_by_number
        }

    def _memoizing(self, name: str, write: _Writer) -> _Writer:
        """``write`` with its texts kept by the serialized bytes of the message. A miss writes
        the message in hand (no parse of the bytes back); the least recently used entry goes
        when the memo is full."""
        memo = self._memo
        size = self._memo_size

        def memoized(value: Message) -> str:
            key = (name, value.SerializeToString())
            text = memo.get(key)
            if text is not None:
                memo.move_to_end(key)
                return text
            text = memo[key] = write(value)
            if len(memo) > size:
                memo.popitem(last=False)
            return text

        return memoized


def _compose_sparse(layout: _Layout, values: dict[str, Any]) -> str:
    """:meth:`JsonWriter.compose` for a few values of a type with many fields (an event: five
    of its 28): the values' fields only, put in field number order, rather than a pass over
    every field."""
    by_name = layout.by_name
    chosen: list[tuple[int, str]] = []
    for name, value in values.items():
        entry = by_name.get(name)
        if value is None or entry is None:
            continue
        position, key, write, presence, written = entry
        if written and type(value) is str:
            if not presence and (not value or value == _EMPTY_LIST):
                continue
            chosen.append((position, key + value))
        elif presence or value:
            chosen.append((position, key + write(value)))
    chosen.sort()
    done = {position for position, _ in chosen}
    parts = [text for _, text in chosen]
    parts += [zero for position, zero in layout.zero_positions if position not in done]
    return "{" + ",".join(parts) + "}"


def _plannable(descriptor: Descriptor) -> bool:
    """Whether a plan writes this type exactly (else ``json_format`` does)."""
    if descriptor.file.name == "google/protobuf/wrappers.proto":
        return False
    if descriptor.full_name in _SPECIAL_TYPES:
        return False
    for field in descriptor.fields:
        if field.cpp_type in _FLOATS or _is_map(field):
            return False
        if field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            enum = field.enum_type
            if enum is None or enum.is_closed or enum.full_name == "google.protobuf.NullValue":
                return False
    return True


# --- reading -----------------------------------------------------------------------------------

#: The strings ``json_format`` reads as an integer and ``int`` reads alike: plain decimals.
_DECIMAL = re.compile(r"-?[0-9]+")
#: Deeper than this, :func:`read_simple` leaves the document to ``json_format``.
_MAX_DEPTH = 32


def read_simple(document: dict[str, Any], message: Message) -> bool:
    """Fill a new ``message`` from a JSON object as ``json_format.ParseDict`` (unknown fields
    refused) would, when the object is plain: known field names (JSON or proto spelling) each
    once, strings, integers (or decimal strings for the integer fields), booleans, enum names
    or numbers, lists and nested objects. Anything else (a null, a float, a bytes or map field, a
    well-known type, a second member of a oneof, a value ``ParseDict`` would refuse) makes it
    return False, with ``message`` partly filled: the caller then clears it and lets
    ``ParseDict`` decide, with its own error messages. True: ``message`` is what ``ParseDict``
    would have made of the document.
    """
    try:
        return _read_message(document, message, 0)
    except (ValueError, TypeError):  # a value the message refuses (out of range...)
        return False


#: What :func:`read_simple` does with a field's value (see :class:`_ReadField`).
_READ_MESSAGE, _READ_STRING, _READ_INTEGER, _READ_BOOL, _READ_ENUM, _READ_NOTHING = range(6)


@dataclass(frozen=True, slots=True)
class _ReadField:
    """One field as :func:`read_simple` reads it, taken from its descriptor once: a request
    body is read on every move, and each attribute of a descriptor is a call into protobuf's
    runtime that builds its answer anew."""

    #: The proto name (an attribute of the message).
    name: str
    #: The name of the oneof the field belongs to, or None.
    oneof: str | None
    #: ``_READ_*``: a nested message, a string, an integer, a boolean, an enum, or a value
    #: that is never plain (floats, bytes, maps): left to ``json_format``.
    kind: int
    repeated: bool
    #: An enum's value numbers by name (empty for other kinds).
    enum_names: dict[str, int]
    #: A closed enum's value numbers (a number outside them is not plain); None when open.
    enum_closed: frozenset[int] | None


def _read_field(field: FieldDescriptor) -> _ReadField:
    cpp = field.cpp_type
    kind = _READ_NOTHING
    names: dict[str, int] = {}
    closed: frozenset[int] | None = None
    if _is_map(field):
        pass
    elif cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        kind = _READ_MESSAGE
    elif cpp == FieldDescriptor.CPPTYPE_STRING:
        if field.type != FieldDescriptor.TYPE_BYTES:
            kind = _READ_STRING
    elif cpp in _INT32S or cpp in _INT64S:
        kind = _READ_INTEGER
    elif cpp == FieldDescriptor.CPPTYPE_BOOL:
        kind = _READ_BOOL
    elif cpp == FieldDescriptor.CPPTYPE_ENUM:
        enum = field.enum_type
        if enum is not None:
            kind = _READ_ENUM
            names = {value.name: value.number for value in enum.values}
            if enum.is_closed:
                closed = frozenset(value.number for value in enum.values)
    oneof = field.containing_oneof
    return _ReadField(
        name=field.name,
        oneof=None if oneof is None else oneof.name,
        kind=kind,
        repeated=field.is_repeated,
        enum_names=names,
        enum_closed=closed,
    )


@lru_cache(maxsize=256)
def _readable_fields(descriptor: Descriptor) -> dict[str, _ReadField] | None:
    """The fields by name as ``json_format`` finds them (the JSON name first, then the proto
    name), or None for a type left to ``json_format``."""
    if descriptor.full_name.startswith("google.protobuf."):
        return None
    fields = {field.name: _read_field(field) for field in descriptor.fields}
    fields.update((field.json_name, fields[field.name]) for field in descriptor.fields)
    return fields


def _read_message(document: object, message: Message, depth: int) -> bool:
    if type(document) is not dict or depth > _MAX_DEPTH:
        return False
    fields = _readable_fields(cast(Descriptor, message.DESCRIPTOR))
    if fields is None:
        return False
    seen: set[str] = set()
    for key, value in document.items():
        field = fields.get(key)
        if field is None or field.name in seen:
            return False
        seen.add(field.name)
        oneof = field.oneof
        if oneof is not None:
            if oneof in seen:
                return False
            seen.add(oneof)
        kind = field.kind
        if field.repeated:
            if type(value) is not list or kind == _READ_NOTHING:
                return False
            target = getattr(message, field.name)
            if kind == _READ_MESSAGE:
                for item in value:
                    if not _read_message(item, target.add(), depth + 1):
                        return False
            else:
                for item in value:
                    converted = _scalar(field, item)
                    if converted is None:
                        return False
                    target.append(converted)
        elif kind == _READ_MESSAGE:
            nested = getattr(message, field.name)
            nested.SetInParent()
            if not _read_message(value, nested, depth + 1):
                return False
        else:
            converted = _scalar(field, value)
            if converted is None:
                return False
            setattr(message, field.name, converted)
    return True


def _scalar(field: _ReadField, value: object) -> object | None:
    """A plain JSON value as the field takes it, or None when it is not plain."""
    kind = field.kind
    if kind == _READ_STRING:
        if type(value) is not str:
            return None
        # json_format refuses unpaired surrogates, which json.loads lets through.
        return None if UNPAIRED_SURROGATE.search(value) else value
    if kind == _READ_INTEGER:
        if type(value) is int:
            return value
        if type(value) is str and _DECIMAL.fullmatch(value):
            return int(value)
        return None
    if kind == _READ_BOOL:
        return value if type(value) is bool else None
    if kind == _READ_ENUM:
        if type(value) is int:
            # A number: any number of an open enum (an unknown one is kept as is).
            closed = field.enum_closed
            return value if closed is None or value in closed else None
        if type(value) is not str:
            return None
        return field.enum_names.get(value)
    return None


_DEFAULT = JsonWriter()


def message_json(message: Message) -> str:
    """The canonical proto3 JSON text of ``message`` (no memoized types)."""
    return _DEFAULT.message(message)
