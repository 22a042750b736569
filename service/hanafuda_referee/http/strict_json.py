"""Strict proto3 JSON on input: every value of a request's JSON tree has the JSON type its field
takes, or the request is refused with ``BAD_ENCODING`` and the field's path.

``json_format.ParseDict`` is lenient: it reads ``"clock": []`` as "no clock", ``"onTimeout":
1.5`` or ``true`` as the enum value 1, ``"seat": 2.0`` or ``"seat": "1e0"`` as an integer, and
takes a field named twice (``requestId`` and ``request_id``), the last one winning. A client that
sends such a value has a bug; read leniently, the bug turns into a request nobody meant.
:func:`check` walks the tree against the request's descriptor before anything reads it, and
refuses the first value that is not of its field's JSON type. What each field takes:

- a message: an object whose keys are its fields (JSON or proto name, each field once, at most
  one member of a oneof);
- a repeated field: an array, without ``null`` in it; a map: an object;
- an enum: a value's name, or an integer (what the mapping writes for a number the enum does not
  name); not a fraction, a boolean or a numeric string;
- an integer (32 or 64 bits): an integer, or a string of decimal digits (``"-12"``), in range;
  not a number written with a fraction or an exponent (``2.0``, ``1e2``), whatever its value
  (stricter than protobuf's conformance tests, which take ``1e2``: no writer of canonical JSON
  writes one, and a float where an integer is meant is a client's bug to show, not to round);
- a float or double: a number, ``"NaN"``, ``"Infinity"``, ``"-Infinity"``, or a number in a
  string; a bool: ``true`` or ``false``; a string: a string; bytes: a base64 string;
- ``Timestamp``, ``Duration``, ``FieldMask``: a string; a wrapper (``Int32Value``...): what the
  wrapped type takes; ``Struct``, ``Any``, ``Empty``: an object, ``ListValue``: an array (their
  contents are left to ``ParseDict``).

``null`` is every field's default, as the mapping has it (not inside an array or for a map
value). The path names each field by its JSON name (``clock.onTimeout``, whichever spelling the
client used), an array element by its index (``bots[1]``) and a map entry by its key
(``labels["a"]``); an unknown field is named as sent. The message reads ``<path>: <why>``, and
``ErrorInfo.metadata["field"]`` holds the path.

The walk is one pass over a small tree, with what each message type's descriptor says read once
per type (:func:`_fields`): a few microseconds. It only refuses, it never converts: ``ParseDict``
then reads what it lets through. The transport walks only the trees its quick reader
(:func:`~hanafuda_referee.writers.proto_json.read_simple`) declines, as that reader takes plain
values of their fields' JSON types only: a move's body is not walked at all.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NoReturn

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from hanafuda_referee.calls.errors import ApiError

__all__ = ["check"]

#: How :func:`check` reads a field's value (see :class:`_Field`).
(
    _MESSAGE,
    _ENUM,
    _INTEGER,
    _FLOAT,
    _BOOL,
    _STRING,
    _BYTES,
    _TEXT,
    _OBJECT,
    _LIST,
    _ANY_VALUE,
) = range(11)

#: What a value of each kind must be, for the messages.
_EXPECTED = {
    _MESSAGE: "an object",
    _ENUM: "an enum value's name or an integer",
    _INTEGER: "an integer (a number without fraction or exponent, or a string of decimal digits)",
    _FLOAT: "a number",
    _BOOL: "true or false",
    _STRING: "a string",
    _BYTES: "a base64 string",
    _TEXT: "a string",
    _OBJECT: "an object",
    _LIST: "an array",
}

_C = FieldDescriptor
_BOUNDS: Mapping[int, tuple[str, int, int]] = {
    _C.CPPTYPE_INT32: ("an int32", -(2**31), 2**31 - 1),
    _C.CPPTYPE_UINT32: ("a uint32", 0, 2**32 - 1),
    _C.CPPTYPE_INT64: ("an int64", -(2**63), 2**63 - 1),
    _C.CPPTYPE_UINT64: ("a uint64", 0, 2**64 - 1),
}
#: Enum numbers are int32.
_ENUM_BOUNDS = _BOUNDS[_C.CPPTYPE_INT32]
#: ASCII digits only: ``int()`` also reads ``"+1"``, ``"1_0"``, ``" 1"`` and other scripts' digits.
_DECIMAL = re.compile(r"-?[0-9]+")
#: Longer than any 64-bit integer (20 digits and a sign): refused before ``int()`` reads it.
_MAX_DIGITS = 21
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
#: The Python type of the JSON values of the kinds that take one JSON type, nothing more.
_JSON_TYPES: Mapping[int, type] = {
    _STRING: str,
    _TEXT: str,
    _BOOL: bool,
    _OBJECT: dict,
    _LIST: list,
}
_FLOAT_WORDS = frozenset({"NaN", "Infinity", "-Infinity"})
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

#: Well-known types whose JSON form is a string.
_TEXT_TYPES = frozenset(
    {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"}
)
_OBJECT_TYPES = frozenset(
    {"google.protobuf.Struct", "google.protobuf.Any", "google.protobuf.Empty"}
)
_WRAPPERS = "google/protobuf/wrappers.proto"


@dataclass(frozen=True, slots=True)
class _Field:
    """One field as :func:`check` reads it, taken from its descriptor once."""

    #: The JSON name: the path's step.
    json_name: str
    #: The proto name: what identifies the field when both spellings are sent.
    name: str
    #: ``_MESSAGE``, ``_ENUM``...: how one value is read.
    kind: int
    repeated: bool = False
    #: The oneof the field belongs to, or None.
    oneof: str | None = None
    #: The message type (``_MESSAGE``).
    message: Descriptor | None = None
    #: The enum's type name, its value names, and its numbers when it is closed (``_ENUM``).
    enum_name: str = ""
    enum_names: frozenset[str] = frozenset()
    enum_closed: frozenset[int] | None = None
    #: The integer type's name and bounds (``_INTEGER``).
    bounds: tuple[str, int, int] | None = None
    #: A map's key and value (the entry type's fields); None for other fields.
    map_entry: tuple[_Field, _Field] | None = field(default=None)
    #: Whether :func:`_once` must look at it: its two names differ, or it is in a oneof (the
    #: decoder already refused a key given twice).
    watched: bool = False


class _Refusal(Exception):
    """A value is refused: ``why``, and the path's steps gathered innermost first while the
    walk unwinds (only a refusal pays for its path)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why
        self.steps: list[str] = []


def check(tree: Mapping[str, object], descriptor: Descriptor) -> None:
    """Refuse ``tree`` (a decoded JSON object, a request body or the query parameters nested as
    one) unless each of its values has the JSON type its field of ``descriptor`` takes.

    Raises ApiError ``BAD_ENCODING``: ``<path>: <why>``, the path in ``metadata["field"]``.

    >>> from hanafuda.v1 import service_pb2
    >>> creation = service_pb2.CreateGameRequest.DESCRIPTOR
    >>> check({"clock": {"onTimeout": "ON_TIMEOUT_RESIGN"}}, creation)
    >>> try:
    ...     check({"clock": {"onTimeout": 1.5}}, creation)
    ... except ApiError as error:
    ...     print(error.message)
    clock.onTimeout: expected an enum value's name or an integer, got a number with a fraction (1.5)
    """
    try:
        _message(tree, descriptor)
    except _Refusal as refusal:
        path = "".join(reversed(refusal.steps)).lstrip(".")
        raise ApiError("BAD_ENCODING", f"{path}: {refusal.why}", {"field": path}) from None
    except RecursionError:
        raise ApiError("BAD_ENCODING", "the request is nested too deeply") from None


def _message(value: object, descriptor: Descriptor) -> None:
    if type(value) is not dict:
        _refuse(_MESSAGE, value)
    fields = _fields(descriptor)
    # The keys of the fields a key alone cannot tell apart: by proto name, and by oneof.
    seen: dict[str, str] | None = None
    for key, item in value.items():
        spec = fields.get(key)
        if spec is None:
            refusal = _Refusal(f"{descriptor.full_name} has no field named {_quote(key)}")
            refusal.steps.append("." + key)
            raise refusal
        try:
            if spec.watched:
                if seen is None:
                    seen = {}
                _once(spec, key, item, seen)
            if item is None:
                pass  # the field's default, as the mapping has it
            elif spec.repeated:
                _field(spec, item)
            else:
                _single(spec, item, nullable=True)
        except _Refusal as refusal:
            refusal.steps.append("." + spec.json_name)
            raise


def _once(spec: _Field, key: str, item: object, seen: dict[str, str]) -> None:
    """Refuses a field given under both its names, or a second member of a oneof."""
    if spec.name in seen:
        raise _Refusal(f"given twice, as {seen[spec.name]} and {key}")
    seen[spec.name] = key
    if spec.oneof is not None and item is not None:
        member = "oneof " + spec.oneof  # a space: no field's name
        if member in seen:
            raise _Refusal(f"{seen[member]} is already set, of the same oneof {spec.oneof}")
        seen[member] = key


def _field(spec: _Field, value: object) -> None:
    """A value of a repeated or map field, not null."""
    if spec.map_entry is not None:
        if type(value) is not dict:
            _refuse(_OBJECT, value)
        key_spec, value_spec = spec.map_entry
        for key, item in value.items():
            try:
                _map_key(key_spec, key)
                _single(value_spec, item, nullable=value_spec.kind == _ANY_VALUE)
            except _Refusal as refusal:
                refusal.steps.append(f"[{_quote(key)}]")
                raise
    else:
        if type(value) is not list:
            _refuse(_LIST, value)
        for index, item in enumerate(value):
            try:
                _single(spec, item, nullable=spec.kind == _ANY_VALUE)
            except _Refusal as refusal:
                refusal.steps.append(f"[{index}]")
                raise


def _single(spec: _Field, value: object, *, nullable: bool) -> None:
    """One value of the field's type (an element, for a repeated field)."""
    kind = spec.kind
    if value is None:
        if not nullable:
            raise _Refusal(f"expected {_EXPECTED.get(kind, 'a value')}, got null")
    elif kind == _MESSAGE:
        assert spec.message is not None
        _message(value, spec.message)
    elif kind == _ENUM:
        _enum(spec, value)
    elif kind == _INTEGER:
        assert spec.bounds is not None
        _integer(value, spec.bounds)
    elif kind == _ANY_VALUE:
        pass  # google.protobuf.Value: any JSON value
    elif kind == _FLOAT:
        if not _is_float(value):
            _refuse(kind, value)
    elif kind == _BYTES:
        if not (type(value) is str and _BASE64.fullmatch(value)):
            _refuse(kind, value)
    elif type(value) is not _JSON_TYPES[kind]:
        _refuse(kind, value)


def _enum(spec: _Field, value: object) -> None:
    if type(value) is str:
        if value not in spec.enum_names:
            raise _Refusal(f"{spec.enum_name} has no value named {_quote(value)}")
    elif type(value) is int:
        _in_range(value, _ENUM_BOUNDS)
        if spec.enum_closed is not None and value not in spec.enum_closed:
            raise _Refusal(f"{spec.enum_name} has no value numbered {value}")
    else:
        _refuse(_ENUM, value)


def _is_float(value: object) -> bool:
    if type(value) is str:
        return value in _FLOAT_WORDS or _JSON_NUMBER.fullmatch(value) is not None
    return type(value) is int or type(value) is float


def _integer(value: object, bounds: tuple[str, int, int]) -> None:
    if type(value) is int:
        _in_range(value, bounds)
    elif type(value) is str and _DECIMAL.fullmatch(value):
        if len(value) > _MAX_DIGITS:  # more digits than int() may even read
            raise _Refusal(f"{_quote(value)} is out of range for {bounds[0]}")
        _in_range(int(value), bounds)
    else:
        _refuse(_INTEGER, value)


def _in_range(number: int, bounds: tuple[str, int, int]) -> None:
    name, low, high = bounds
    if not low <= number <= high:
        raise _Refusal(f"{number} is out of range for {name} ({low} to {high})")


def _map_key(spec: _Field, key: str) -> None:
    """A map's key: JSON writes every key as a string, integers and booleans included."""
    if spec.kind == _INTEGER:
        assert spec.bounds is not None
        if not (len(key) <= _MAX_DIGITS and _DECIMAL.fullmatch(key)):
            raise _Refusal(f"expected a key of decimal digits, got {_quote(key)}")
        _in_range(int(key), spec.bounds)
    elif spec.kind == _BOOL and key not in ("true", "false"):
        raise _Refusal(f'expected the key "true" or "false", got {_quote(key)}')


def _refuse(kind: int, value: object) -> NoReturn:
    raise _Refusal(f"expected {_EXPECTED[kind]}, got {_described(value)}")


def _described(value: object) -> str:
    """What a JSON value is, for a message: its type, and its value when short."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return f"a boolean ({json.dumps(value)})"
    if isinstance(value, str):
        return f"a string ({_quote(value)})"
    if isinstance(value, int):
        text = str(value)
        return f"an integer ({text if len(text) <= 24 else 'many digits'})"
    if isinstance(value, float):
        if math.isnan(value):
            return "a number (NaN)"
        if math.isinf(value):
            return f"a number too large for any field ({'-' if value < 0 else ''}infinity)"
        if value.is_integer():
            return f"a number with a fraction or an exponent ({value!r})"
        return f"a number with a fraction ({value!r})"
    return "null" if value is None else type(value).__name__


def _quote(text: str) -> str:
    """A string as JSON writes it, cut at 40 characters: the message quotes the client."""
    return json.dumps(text if len(text) <= 40 else text[:39] + "…", ensure_ascii=False)


@lru_cache(maxsize=512)
def _fields(descriptor: Descriptor) -> dict[str, _Field]:
    """A message type's fields by JSON name and by proto name (both are accepted)."""
    fields: dict[str, _Field] = {}
    for each in descriptor.fields:
        spec = _field_of(each)
        fields[each.name] = spec
        fields[each.json_name] = spec
    return fields


def _field_of(descriptor: FieldDescriptor) -> _Field:
    kind, extras = _kind_of(descriptor)
    oneof = descriptor.containing_oneof
    return _Field(
        json_name=descriptor.json_name,
        name=descriptor.name,
        kind=kind,
        # A map is repeated too (of its entries): both go through _field.
        repeated=descriptor.is_repeated,
        oneof=None if oneof is None else oneof.name,
        watched=oneof is not None or descriptor.json_name != descriptor.name,
        **extras,
    )


def _kind_of(descriptor: FieldDescriptor) -> tuple[int, dict[str, Any]]:
    """How a field's value is read: its kind, and the :class:`_Field` attributes it needs."""
    nested = descriptor.message_type
    if nested is not None:
        if nested.GetOptions().map_entry:
            entry = (
                _field_of(nested.fields_by_name["key"]),
                _field_of(nested.fields_by_name["value"]),
            )
            return _OBJECT, {"map_entry": entry}
        return _message_kind(nested)
    cpp = descriptor.cpp_type
    if cpp == _C.CPPTYPE_ENUM:
        enum: EnumDescriptor | None = descriptor.enum_type
        assert enum is not None
        if enum.full_name == "google.protobuf.NullValue":
            return _ANY_VALUE, {}
        closed = frozenset(value.number for value in enum.values) if enum.is_closed else None
        names = frozenset(value.name for value in enum.values)
        return _ENUM, {"enum_name": enum.full_name, "enum_names": names, "enum_closed": closed}
    if cpp in _BOUNDS:
        return _INTEGER, {"bounds": _BOUNDS[cpp]}
    if cpp in (_C.CPPTYPE_FLOAT, _C.CPPTYPE_DOUBLE):
        return _FLOAT, {}
    if cpp == _C.CPPTYPE_BOOL:
        return _BOOL, {}
    return (_BYTES if descriptor.type == _C.TYPE_BYTES else _STRING), {}


def _message_kind(nested: Descriptor) -> tuple[int, dict[str, Any]]:
    """A message field: a well-known type by its JSON form, else a message to walk."""
    name = nested.full_name
    if name in _TEXT_TYPES:
        return _TEXT, {}
    if name in _OBJECT_TYPES:
        return _OBJECT, {}
    if name == "google.protobuf.ListValue":
        return _LIST, {}
    if name == "google.protobuf.Value":
        return _ANY_VALUE, {}
    if nested.file.name == _WRAPPERS:
        return _kind_of(nested.fields_by_name["value"])
    return _MESSAGE, {"message": nested}
