"""The HTTP/JSON mapping of the service, read from the ``google.api.http`` options of its methods.

Nothing here names a method, a path or a field of ``hanafuda.v1``: every route, and every binding
of a path variable, a query parameter or the body onto the request message, is derived from the
descriptors, so the HTTP transport cannot drift from the proto contract.

>>> from hanafuda.v1 import service_pb2
>>> service = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]
>>> [(b.verb, b.template) for b in service_bindings(service) if b.method.name == "GetGame"]
[('GET', '/v1/games/{game}')]
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, cast

from google.api import annotations_pb2, http_pb2  # type: ignore[import-untyped]
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FieldDescriptor,
    MethodDescriptor,
    ServiceDescriptor,
)
from google.protobuf.message import Message

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.http import strict_json
from hanafuda_referee.writers.proto_json import UNPAIRED_SURROGATE, read_simple

__all__ = [
    "HttpBinding",
    "bind_request",
    "enum_type_of",
    "message_to_json",
    "message_type_of",
    "parse_template",
    "query_parameter_fields",
    "resolve_field_path",
    "service_bindings",
]

#: The HTTP verbs of ``google.api.HttpRule``'s pattern oneof (``custom`` is handled apart).
_VERBS = ("get", "put", "post", "delete", "patch")

# A template variable: `{field.path}`, `{field.path=*}` or `{field.path=**}`. Other segment
# patterns (`{name=games/*}`) bind several segments to one variable, which Litestar's per-segment
# router cannot express; they are refused when the app is built rather than routed wrongly.
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:=(\*\*?))?\}")

_MESSAGE = FieldDescriptor.TYPE_MESSAGE
_ENUM = FieldDescriptor.TYPE_ENUM
_BOOL = FieldDescriptor.TYPE_BOOL
_STRING = FieldDescriptor.TYPE_STRING
_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})
#: An enum's number in a query parameter: ASCII digits (``int()`` reads others too), no longer
#: than an int32 (longer ones stay strings and are refused as such).
_DECIMAL = re.compile(r"-?[0-9]+")
_MAX_ENUM_DIGITS = 11


@dataclass(frozen=True, slots=True)
class HttpBinding:
    """One HTTP route of one RPC: the ``HttpRule`` (or one of its additional bindings) resolved
    against the request and response descriptors.

    ``path_fields`` pairs each Litestar path parameter with the dotted proto field path it fills.
    ``body`` is ``""`` (no body: query parameters), ``"*"`` (the whole request) or a top-level
    field name; ``response_body`` is ``""`` (the whole response) or a top-level field name.
    """

    method: MethodDescriptor
    verb: str
    template: str
    litestar_path: str
    path_fields: tuple[tuple[str, str], ...]
    rest_params: frozenset[str]
    body: str
    response_body: str
    request_class: type[Message]
    response_class: type[Message]
    operation_id: str

    @property
    def streaming(self) -> bool:
        """True for a server-streaming RPC (served as Server-Sent Events)."""
        return bool(self.method.server_streaming)

    @property
    def bound_field_paths(self) -> frozenset[str]:
        """The proto field paths bound by the path template."""
        return frozenset(field for _, field in self.path_fields)


def service_bindings(service: ServiceDescriptor) -> list[HttpBinding]:
    """Every HTTP binding of every method of ``service``, in declaration order (each rule
    followed by its ``additional_bindings``).

    Raises ValueError for a method without a ``google.api.http`` option, a client-streaming
    method, or a rule the transport cannot serve, so a bad contract fails at start-up.
    """
    bindings: list[HttpBinding] = []
    for method in service.methods:
        if method.client_streaming:
            raise ValueError(f"{method.full_name}: client streaming has no HTTP/JSON mapping")
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            raise ValueError(f"{method.full_name} has no google.api.http option")
        rule = options.Extensions[annotations_pb2.http]
        rules = [rule, *rule.additional_bindings]
        for index, each in enumerate(rules):
            operation_id = method.name if index == 0 else f"{method.name}{index + 1}"
            bindings.append(_binding(method, each, operation_id))
    return bindings


def _binding(method: MethodDescriptor, rule: http_pb2.HttpRule, operation_id: str) -> HttpBinding:
    pattern = rule.WhichOneof("pattern")
    if pattern in _VERBS:
        verb, template = pattern.upper(), str(getattr(rule, pattern))
    elif pattern == "custom":
        verb, template = rule.custom.kind.upper(), rule.custom.path
    else:
        raise ValueError(f"{method.full_name}: an HttpRule without a pattern")
    litestar_path, path_fields, rest_params = parse_template(method.input_type, template)
    body = rule.body
    if body not in ("", "*"):
        _top_level_field(method.input_type, body, "body")
    if rule.response_body:
        _top_level_field(method.output_type, rule.response_body, "response_body")
    if method.server_streaming and rule.response_body:
        raise ValueError(f"{method.full_name}: response_body on a streaming method")
    return HttpBinding(
        method=method,
        verb=verb,
        template=template,
        litestar_path=litestar_path,
        path_fields=path_fields,
        rest_params=rest_params,
        body=body,
        response_body=rule.response_body,
        request_class=message_factory.GetMessageClass(method.input_type),
        response_class=message_factory.GetMessageClass(method.output_type),
        operation_id=operation_id,
    )


def _top_level_field(descriptor: Descriptor, name: str, what: str) -> FieldDescriptor:
    field = descriptor.fields_by_name.get(name)
    if field is None:
        raise ValueError(f"{descriptor.full_name}: {what} names no field {name!r}")
    return field


def parse_template(
    descriptor: Descriptor, template: str
) -> tuple[str, tuple[tuple[str, str], ...], frozenset[str]]:
    """Translates a path template into a Litestar path and its variable bindings.

    Litestar's only special syntax in a path is a whole segment ``{name:type}``; a colon anywhere
    else is an ordinary character of a static segment, so the custom verbs of the contract
    (``/v1/rules/koikoi:score``) are routed as literal segments. Each variable becomes a
    generated parameter name (``p0``, ``p1``…): proto field paths contain dots that must not leak
    into Litestar's parameter handling.
    """
    if not template.startswith("/"):
        raise ValueError(f"path template {template!r} does not start with '/'")
    segments: list[str] = []
    fields: list[tuple[str, str]] = []
    rest: set[str] = set()
    raw_segments = template[1:].split("/")
    for position, segment in enumerate(raw_segments):
        match = _VARIABLE.fullmatch(segment)
        if match is None:
            if "{" in segment or "}" in segment or not segment:
                raise ValueError(f"unsupported path template segment {segment!r} in {template!r}")
            segments.append(segment)
            continue
        field_path, wildcard = match.group(1), match.group(2)
        field = resolve_field_path(descriptor, field_path)
        if field.is_repeated or field.type == _MESSAGE:
            raise ValueError(f"{template!r}: {field_path} is not a singular scalar field")
        param = f"p{len(fields)}"
        if wildcard == "**":
            if position != len(raw_segments) - 1:
                raise ValueError(f"{template!r}: '**' is only supported in the last segment")
            segments.append(f"{{{param}:path}}")
            rest.add(param)
        else:
            segments.append(f"{{{param}:str}}")
        fields.append((param, field_path))
    return "/" + "/".join(segments), tuple(fields), frozenset(rest)


def resolve_field_path(descriptor: Descriptor, path: str) -> FieldDescriptor:
    """The field a dotted path names, each step by its proto name or its JSON name.

    Raises ValueError when a step names no field or walks through a non-message field.
    """
    field: FieldDescriptor | None = None
    current: Descriptor | None = descriptor
    for step in path.split("."):
        if current is None:
            raise ValueError(f"{path!r}: {field.name if field else ''} is not a message")
        field = current.fields_by_name.get(step) or _by_json_name(current, step)
        if field is None:
            raise ValueError(f"{current.full_name} has no field {step!r}")
        current = (
            message_type_of(field) if field.type == _MESSAGE and not field.is_repeated else None
        )
    if field is None:
        raise ValueError("empty field path")
    return field


def _by_json_name(descriptor: Descriptor, name: str) -> FieldDescriptor | None:
    for field in descriptor.fields:
        if field.json_name == name:
            return field
    return None


def message_type_of(field: FieldDescriptor) -> Descriptor:
    """The message type of a message field (typed as never None, unlike the descriptor's)."""
    nested = field.message_type
    if nested is None:
        raise ValueError(f"{field.full_name} is not a message field")
    return nested


def enum_type_of(field: FieldDescriptor) -> EnumDescriptor:
    """The enum type of an enum field (typed as never None, unlike the descriptor's)."""
    enum = field.enum_type
    if enum is None:
        raise ValueError(f"{field.full_name} is not an enum field")
    return enum


def query_parameter_fields(
    descriptor: Descriptor, exclude: frozenset[str] = frozenset()
) -> Iterator[tuple[str, FieldDescriptor]]:
    """The fields a GET request can set from its query string, as (dotted JSON path, field):
    scalars, enums and repeated scalars, with singular message fields flattened into dotted
    names. ``exclude`` holds proto field paths bound elsewhere (the path template).

    Well-known types and recursive messages are not flattened (their JSON forms are not scalar
    strings in general), so a cycle in the schema cannot recurse forever.
    """
    yield from _query_fields(descriptor, "", "", exclude, (descriptor.full_name,))


def _query_fields(
    descriptor: Descriptor,
    proto_prefix: str,
    json_prefix: str,
    exclude: frozenset[str],
    chain: tuple[str, ...],
) -> Iterator[tuple[str, FieldDescriptor]]:
    for field in descriptor.fields:
        proto_path = proto_prefix + field.name
        if proto_path in exclude:
            continue
        json_path = json_prefix + field.json_name
        if field.type != _MESSAGE:
            yield json_path, field
            continue
        nested = message_type_of(field)
        if field.is_repeated or _is_well_known(nested) or nested.full_name in chain:
            continue
        yield from _query_fields(
            nested, proto_path + ".", json_path + ".", exclude, (*chain, nested.full_name)
        )


def _is_well_known(descriptor: Descriptor) -> bool:
    return descriptor.full_name.startswith("google.protobuf.")


def bind_request(
    binding: HttpBinding,
    *,
    path_params: Mapping[str, str],
    query: Sequence[tuple[str, str]],
    body: bytes,
) -> Message:
    """Builds the request message of ``binding`` from an HTTP request.

    The body (when the rule has one) is proto3 canonical JSON with unknown fields refused; query
    parameters fill the fields the body does not cover (none when the body is ``*``); path
    variables are applied last and override both. Both are read strictly (a value of the wrong
    JSON type for its field is refused, see :mod:`~hanafuda_referee.http.strict_json`). Raises
    ApiError ``BAD_ENCODING`` for a body that is missing or does not decode and for a query
    parameter value that does not decode, and ``INVALID_ARGUMENT`` for a query parameter that
    names no field (or a message, or is given twice for a single field).
    """
    request = binding.request_class()
    tree: dict[str, Any] = {}
    if binding.body:
        document = _decode_body(body)
        if binding.body == "*":
            if not isinstance(document, dict):
                raise ApiError("BAD_ENCODING", "the request body must be a JSON object")
            tree = document
        else:
            tree = {binding.body: document}
        _parse_into(tree, request, "request body")
    if binding.body == "*":
        if query:
            # Every field is in the body: a query parameter would be silently dropped, where a
            # route with query fields refuses one it does not know.
            name = query[0][0]
            raise ApiError(
                "INVALID_ARGUMENT",
                f"unknown query parameter {name!r}: this route takes its fields in the body",
                {"parameter": name},
            )
    else:
        excluded = binding.bound_field_paths | ({binding.body} if binding.body else frozenset())
        query_tree = _query_tree(binding.method.input_type, query, excluded)
        if query_tree:
            # The same strict reading as a body's, and the same reason: a value that does not
            # decode is refused alike wherever it is sent.
            from_query = binding.request_class()
            _parse_into(query_tree, from_query, "query parameters")
            request.MergeFrom(from_query)
    for param, field_path in binding.path_fields:
        # Litestar hands a `path` parameter over with a leading slash; the template's `**`
        # variable means the segments themselves.
        value = path_params[param]
        if param in binding.rest_params:
            value = value.lstrip("/")
        _set_scalar(request, field_path, value)
    return request


def _decode_body(body: bytes) -> object:
    """The body's JSON document.

    An empty body (or one of whitespace only) is refused: the OpenAPI document marks every body
    required, and reading none as the message's defaults (as gRPC transcoding does) turned a
    client's lost body into a request for defaults, refused later for a reason that named some
    field rather than the missing body. ``{}`` is how a client asks for every default.

    Duplicate keys are refused: JSON leaves their meaning open and proto3 JSON forbids them. So
    are unpaired surrogates (``"\\ud800"`` alone): they are not Unicode text, and protobuf's
    parser, which refuses them in a string field, fails on them elsewhere (an enum's name).
    """
    if not body.strip():
        raise ApiError(
            "BAD_ENCODING",
            "the request body is missing: this route takes a JSON object ({} for every default)",
        )
    try:
        text = body.decode("utf-8")
        document = _DECODER.decode(text)
    except UnicodeDecodeError:
        raise ApiError("BAD_ENCODING", "the request body is not UTF-8") from None
    except (json.JSONDecodeError, _DuplicateKey, _NotJson) as error:
        raise ApiError("BAD_ENCODING", f"the request body is not valid JSON: {error}") from None
    except ValueError:
        # Python's own bound on reading an integer (sys.get_int_max_str_digits): no field of
        # the contract holds such a number, and the interpreter's advice is not the client's.
        raise ApiError(
            "BAD_ENCODING",
            f"the request body holds a number of more than {sys.get_int_max_str_digits()} digits",
        ) from None
    except RecursionError:
        raise ApiError("BAD_ENCODING", "the request body is nested too deeply") from None
    # Valid UTF-8 holds no surrogate: only a \u escape can make one.
    if "\\u" in text and _holds_unpaired_surrogate(document):
        raise ApiError(
            "BAD_ENCODING", "the request body holds an unpaired surrogate (a \\uD800-\\uDFFF alone)"
        )
    return document


def _holds_unpaired_surrogate(document: object) -> bool:
    """Whether a key or string anywhere in a decoded JSON document holds an unpaired
    surrogate (walked without recursion: the document may be nested as deep as the decoder
    allows)."""
    pending = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            if UNPAIRED_SURROGATE.search(node):
                return True
        elif isinstance(node, dict):
            pending.extend(node)
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


class _DuplicateKey(ValueError):
    """A JSON object names one key twice."""


class _NotJson(ValueError):
    """A literal Python's decoder reads and JSON does not have."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(f"duplicate key {key!r}")
        result[key] = value
    return result


def _not_json(name: str) -> NoReturn:
    """Python's decoder reads ``NaN``, ``Infinity`` and ``-Infinity`` as numbers; JSON has no
    such literals (RFC 8259), and proto3 JSON spells them as strings (``"NaN"``)."""
    raise _NotJson(f"{name} is not a JSON value (proto3 JSON writes it as a string)")


# Built once: json.loads with a hook builds a decoder on every call, which doubled its cost.
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_not_json)


#: What ``ParseDict`` raises on a value it cannot take. Besides its own ``ParseError``: a
#: ``ValueError`` or ``TypeError`` on some odd values, ``OverflowError`` on an infinite number
#: (``1e400``) in an enum or integer field, ``RecursionError`` on absurd nesting.
_PARSE_FAILURES = (json_format.ParseError, ValueError, TypeError, OverflowError, RecursionError)


def _parse_into(tree: dict[str, Any], message: Message, what: str) -> None:
    """Fill the new ``message`` from ``tree`` as ``json_format.ParseDict`` does, after a strict
    check of every value's JSON type (:func:`~hanafuda_referee.http.strict_json.check`);
    ``BAD_ENCODING`` for a tree that does not decode.

    A plain tree is read the quick way (:func:`~hanafuda_referee.writers.proto_json.read_simple`)
    without the check: what the quick reader takes is strict already (plain values of their
    fields' JSON types, each field once, in range; tests/http/test_strict_json.py holds it to
    that), so a move's body costs no second walk."""
    if read_simple(tree, message):
        return
    message.Clear()
    strict_json.check(tree, cast(Descriptor, message.DESCRIPTOR))
    try:
        json_format.ParseDict(tree, message, ignore_unknown_fields=False)
    except _PARSE_FAILURES as error:
        raise ApiError("BAD_ENCODING", f"cannot decode the {what}: {error}") from None


def _query_tree(
    descriptor: Descriptor, query: Sequence[tuple[str, str]], excluded: frozenset[str]
) -> dict[str, Any]:
    """Nests query parameters into the JSON tree ``ParseDict`` reads: ``a.b=1`` → ``{"a":
    {"b": "1"}}``, a repeated field collects every occurrence. Values stay strings (proto3 JSON
    accepts integers, floats and bytes as strings) except what it takes only as another JSON
    type, which a query can only spell as a string: a boolean (``true``, ``false``, ``1``,
    ``0``) and an enum's number (``kind=1``; its name stays a string). A string that is neither
    stays one, for the strict reading to refuse as a body's."""
    tree: dict[str, Any] = {}
    for name, value in query:
        try:
            field = resolve_field_path(descriptor, name)
        except ValueError:
            raise ApiError(
                "INVALID_ARGUMENT", f"unknown query parameter {name!r}", {"parameter": name}
            ) from None
        proto_path = _proto_path(descriptor, name)
        if any(proto_path == bound or proto_path.startswith(bound + ".") for bound in excluded):
            # Bound by the path or the body: those sources win, the query cannot override them.
            continue
        if field.type == _MESSAGE and not _is_well_known(message_type_of(field)):
            raise ApiError(
                "INVALID_ARGUMENT",
                f"query parameter {name!r} names a message; name its fields instead",
                {"parameter": name},
            )
        converted = _query_value(field, value)
        node = tree
        steps = proto_path.split(".")
        for step in steps[:-1]:
            node = node.setdefault(step, {})
        leaf = steps[-1]
        if field.is_repeated:
            node.setdefault(leaf, []).append(converted)
        elif leaf in node:
            raise ApiError(
                "INVALID_ARGUMENT",
                f"query parameter {name!r} is given more than once",
                {"parameter": name},
            )
        else:
            node[leaf] = converted
    return tree


def _proto_path(descriptor: Descriptor, path: str) -> str:
    """A dotted path of proto or JSON names, spelled with proto names."""
    names: list[str] = []
    current = descriptor
    for step in path.split("."):
        field = current.fields_by_name.get(step) or _by_json_name(current, step)
        assert field is not None  # resolve_field_path checked the path first
        names.append(field.name)
        if field.type == _MESSAGE:
            current = message_type_of(field)
    return ".".join(names)


def _query_value(field: FieldDescriptor, value: str) -> object:
    """A query parameter's string as the JSON value it spells for ``field``."""
    if field.type == _BOOL:
        lowered = value.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    elif field.type == _ENUM and _DECIMAL.fullmatch(value) and len(value) <= _MAX_ENUM_DIGITS:
        return int(value)
    return value


def _query_bool(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ApiError(
        "INVALID_ARGUMENT", f"query parameter {name!r} must be true or false", {"parameter": name}
    )


def _set_scalar(message: Message, field_path: str, value: str) -> None:
    """Sets a path variable onto the request, converting it as proto3 JSON would convert the
    same string (so an integer or enum variable works like a string one)."""
    steps = field_path.split(".")
    target = message
    for step in steps[:-1]:
        target = getattr(target, step)
    field = cast(Descriptor, target.DESCRIPTOR).fields_by_name[steps[-1]]
    if field.type == _STRING and not field.is_repeated and not UNPAIRED_SURROGATE.search(value):
        # What the general path below makes of a string (every route's game id) in one step.
        setattr(target, field.name, value)
        return
    scratch = type(target)()
    converted: object = _query_bool(field.name, value) if field.type == _BOOL else value
    tree = {field.json_name: converted}
    try:
        if not read_simple(tree, scratch):
            scratch.Clear()
            json_format.ParseDict(tree, scratch)
    except _PARSE_FAILURES as error:
        raise ApiError(
            "INVALID_ARGUMENT", f"path variable {field_path} does not decode: {error}"
        ) from None
    setattr(target, field.name, getattr(scratch, field.name))


def message_to_json(message: Message) -> dict[str, Any]:
    """A message as proto3 canonical JSON (camelCase names, enums by name, 64-bit integers as
    strings), with every field without presence emitted even at its zero value: a client reads
    ``"version": "0"`` or ``"hand": []`` rather than guessing what a missing key means. Fields
    with presence (``optional``, messages, oneof members) appear only when set, so "unset" stays
    distinguishable from zero where the contract gives it a meaning."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
