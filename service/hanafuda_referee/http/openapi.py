"""The OpenAPI 3.1 document of the HTTP transport, generated from the proto descriptors.

Paths and verbs come from the ``google.api.http`` options (through the same
:func:`~hanafuda_referee.http.routes.service_bindings` that registers the routes), schemas
from the message and enum descriptors under the proto3 JSON mapping, and descriptions from the
proto doc comments. The generated ``*_pb2`` modules drop comments, so they are read from
``descriptor_set.binpb``, a ``FileDescriptorSet`` with source info that ``scripts/gen-protos``
writes next to the stubs. Without that file the document is complete but undocumented.

The ``google.api.field_behavior`` marks of the fields become each schema's ``required`` list
(``REQUIRED``) and ``readOnly`` keywords (``OUTPUT_ONLY``). A request body never holds the fields
its route binds from the path: a message whose fields are partly in the path has a body schema
of its own, ``<service>.<operation>Body``, without them.
"""

from __future__ import annotations

import importlib.metadata
import importlib.resources
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import (
    Descriptor,
    EnumDescriptor,
    FieldDescriptor,
    ServiceDescriptor,
)
from hanafuda.v1 import errors_pb2

from hanafuda_referee.calls.caller import QUERY_TOKEN_PARAMETER, takes_query_token
from hanafuda_referee.http.errors import ERROR_INFO_TYPE
from hanafuda_referee.http.field_behavior import is_output_only, is_required
from hanafuda_referee.http.routes import (
    HttpBinding,
    enum_type_of,
    message_type_of,
    query_parameter_fields,
)

__all__ = ["SCHEMA_PREFIX", "build_openapi", "load_comments"]

#: Where component schemas live; a message or enum schema is named by its full proto name.
SCHEMA_PREFIX = "#/components/schemas/"

_DESCRIPTOR_SET_PACKAGE = "hanafuda.v1"
_DESCRIPTOR_SET_NAME = "descriptor_set.binpb"

_F = FieldDescriptor
_INT64 = {"type": "string", "format": "int64", "pattern": "^-?[0-9]+$"}
_UINT64 = {"type": "string", "format": "uint64", "pattern": "^[0-9]+$"}
_INT32 = {"type": "integer", "format": "int32"}
_UINT32 = {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4294967295}
# proto3 JSON writes 64-bit integers as strings (JavaScript numbers lose precision past 2^53);
# parsers accept numbers too, but the schema describes what the server sends.
_SCALARS: Mapping[int, Mapping[str, Any]] = {
    _F.TYPE_DOUBLE: {"type": "number", "format": "double"},
    _F.TYPE_FLOAT: {"type": "number", "format": "float"},
    _F.TYPE_INT64: _INT64,
    _F.TYPE_SINT64: _INT64,
    _F.TYPE_SFIXED64: _INT64,
    _F.TYPE_UINT64: _UINT64,
    _F.TYPE_FIXED64: _UINT64,
    _F.TYPE_INT32: _INT32,
    _F.TYPE_SINT32: _INT32,
    _F.TYPE_SFIXED32: _INT32,
    _F.TYPE_UINT32: _UINT32,
    _F.TYPE_FIXED32: _UINT32,
    _F.TYPE_BOOL: {"type": "boolean"},
    _F.TYPE_STRING: {"type": "string"},
    _F.TYPE_BYTES: {"type": "string", "contentEncoding": "base64"},
}

# The well-known types have their own JSON forms (not objects of their fields).
_WELL_KNOWN: Mapping[str, Mapping[str, Any]] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Empty": {"type": "object"},
    "google.protobuf.Struct": {"type": "object", "additionalProperties": True},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array", "items": {}},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "required": ["@type"],
        "additionalProperties": True,
    },
    "google.protobuf.DoubleValue": {"type": ["number", "null"]},
    "google.protobuf.FloatValue": {"type": ["number", "null"]},
    "google.protobuf.Int64Value": {"type": ["string", "null"], "format": "int64"},
    "google.protobuf.UInt64Value": {"type": ["string", "null"], "format": "uint64"},
    "google.protobuf.Int32Value": {"type": ["integer", "null"], "format": "int32"},
    "google.protobuf.UInt32Value": {"type": ["integer", "null"], "format": "uint32"},
    "google.protobuf.BoolValue": {"type": ["boolean", "null"]},
    "google.protobuf.StringValue": {"type": ["string", "null"]},
    "google.protobuf.BytesValue": {"type": ["string", "null"], "contentEncoding": "base64"},
}

# Tags of the `FileDescriptorProto` / `DescriptorProto` / … fields a SourceCodeInfo path walks.
_FILE_MESSAGES, _FILE_ENUMS, _FILE_SERVICES = 4, 5, 6
_MESSAGE_FIELDS, _MESSAGE_NESTED, _MESSAGE_ENUMS, _MESSAGE_ONEOFS = 2, 3, 4, 8
_ENUM_VALUES, _SERVICE_METHODS = 2, 2


@cache
def load_comments() -> Mapping[str, str]:
    """Leading doc comments by element name, read from the packaged descriptor set.

    Keys are full names (``hanafuda.v1.GameView``, ``hanafuda.v1.GameView.version``, a oneof
    ``hanafuda.v1.Event.kind``, a method ``hanafuda.v1.RefereeService.GetGame``); enum values
    are keyed under their enum (``hanafuda.v1.Reason.REASON_NOT_YOUR_TURN``), unlike protobuf's
    own full names, so that values of different enums cannot collide. Empty when the file is not
    installed.
    """
    try:
        data = (
            importlib.resources.files(_DESCRIPTOR_SET_PACKAGE)
            .joinpath(_DESCRIPTOR_SET_NAME)
            .read_bytes()
        )
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(data)
    comments: dict[str, str] = {}
    for file in descriptor_set.file:
        names = _element_paths(file)
        for location in file.source_code_info.location:
            name = names.get(tuple(location.path))
            if name is not None and location.leading_comments:
                comments[name] = _clean_comment(location.leading_comments)
    return comments


def _element_paths(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """SourceCodeInfo path → element name, for every commented element kind of a file."""
    prefix = f"{file.package}." if file.package else ""
    paths: dict[tuple[int, ...], str] = {}

    def enum(path: tuple[int, ...], proto: descriptor_pb2.EnumDescriptorProto, scope: str) -> None:
        name = f"{scope}{proto.name}"
        paths[path] = name
        for index, value in enumerate(proto.value):
            paths[(*path, _ENUM_VALUES, index)] = f"{name}.{value.name}"

    def message(path: tuple[int, ...], proto: descriptor_pb2.DescriptorProto, scope: str) -> None:
        name = f"{scope}{proto.name}"
        paths[path] = name
        for index, field in enumerate(proto.field):
            paths[(*path, _MESSAGE_FIELDS, index)] = f"{name}.{field.name}"
        for index, oneof in enumerate(proto.oneof_decl):
            paths[(*path, _MESSAGE_ONEOFS, index)] = f"{name}.{oneof.name}"
        for index, nested in enumerate(proto.nested_type):
            message((*path, _MESSAGE_NESTED, index), nested, f"{name}.")
        for index, nested_enum in enumerate(proto.enum_type):
            enum((*path, _MESSAGE_ENUMS, index), nested_enum, f"{name}.")

    for index, message_proto in enumerate(file.message_type):
        message((_FILE_MESSAGES, index), message_proto, prefix)
    for index, enum_proto in enumerate(file.enum_type):
        enum((_FILE_ENUMS, index), enum_proto, prefix)
    for index, service in enumerate(file.service):
        service_name = f"{prefix}{service.name}"
        paths[(_FILE_SERVICES, index)] = service_name
        for method_index, method in enumerate(service.method):
            paths[(_FILE_SERVICES, index, _SERVICE_METHODS, method_index)] = (
                f"{service_name}.{method.name}"
            )
    return paths


def _clean_comment(text: str) -> str:
    """A `//` comment's text without the one space each line starts with."""
    lines = [line[1:] if line.startswith(" ") else line for line in text.strip("\n").split("\n")]
    return "\n".join(lines).strip()


def _summary(text: str) -> str:
    """The first sentence of a comment's first paragraph, on one line."""
    paragraph = " ".join(text.split("\n\n", 1)[0].split())
    end = paragraph.find(". ")
    return paragraph if end < 0 else paragraph[: end + 1]


class _Schemas:
    """Builds component schemas on demand, each message and enum once, following references."""

    def __init__(self, comments: Mapping[str, str]) -> None:
        self.comments = comments
        self.components: dict[str, dict[str, Any]] = {}

    def ref(self, descriptor: Descriptor | EnumDescriptor) -> dict[str, Any]:
        """A reference to the component of a message or enum, building it on first use."""
        name = descriptor.full_name
        if name not in self.components:
            # Registered before it is filled, so a recursive message refers to itself.
            self.components[name] = {}
            if isinstance(descriptor, EnumDescriptor):
                self.components[name] = self._enum(descriptor)
            else:
                self.components[name] = self._message(descriptor)
        return {"$ref": SCHEMA_PREFIX + name}

    def message_or_inline(self, descriptor: Descriptor) -> dict[str, Any]:
        """A well-known type's JSON form inline, any other message by reference."""
        known = _WELL_KNOWN.get(descriptor.full_name)
        return dict(known) if known is not None else self.ref(descriptor)

    def field(self, field: FieldDescriptor, *, described: bool = True) -> dict[str, Any]:
        """The schema of a field's JSON value, with its doc comment as description."""
        if field.type == _F.TYPE_MESSAGE and message_type_of(field).GetOptions().map_entry:
            value = message_type_of(field).fields_by_name["value"]
            schema: dict[str, Any] = {
                "type": "object",
                "additionalProperties": self._single(value),
            }
        elif field.is_repeated:
            schema = {"type": "array", "items": self._single(field)}
        else:
            schema = self._single(field)
        if described:
            description = self._field_description(field)
            if description:
                schema["description"] = description
        if is_output_only(field):
            schema["readOnly"] = True
        return schema

    def _single(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.type == _F.TYPE_MESSAGE:
            return self.message_or_inline(message_type_of(field))
        if field.type == _F.TYPE_ENUM:
            return self.ref(enum_type_of(field))
        return dict(_SCALARS[field.type])

    def _field_description(self, field: FieldDescriptor) -> str:
        parts = [self.comments.get(field.full_name, "")]
        oneof = field.containing_oneof
        if oneof is not None and not _is_synthetic(field):
            parts.append(f"Member of the oneof `{oneof.name}`: set at most one of its fields.")
        elif field.has_presence and field.type != _F.TYPE_MESSAGE:
            parts.append("Optional: absent when unset, which differs from its zero value.")
        return "\n\n".join(part for part in parts if part)

    def body(self, name: str, descriptor: Descriptor, excluded: frozenset[str]) -> dict[str, Any]:
        """A reference to the schema of a request body: the message's own component, or when
        ``excluded`` (proto field paths bound elsewhere, the path template) names some of its
        fields, a component ``name`` of the message without them."""
        if not excluded:
            return self.ref(descriptor)
        schema = self._message(descriptor, excluded)
        bound = ", ".join(f"`{path}`" for path in sorted(excluded))
        schema["description"] = (
            f"`{descriptor.full_name}` without the fields the path binds ({bound}). "
            + schema.get("description", "")
        ).strip()
        self.components[name] = schema
        return {"$ref": SCHEMA_PREFIX + name}

    def _message(
        self, descriptor: Descriptor, excluded: frozenset[str] = frozenset()
    ) -> dict[str, Any]:
        """A message's schema; ``excluded`` holds dotted proto field paths left out of it (a
        message on the way to one is inlined, without it)."""
        properties: dict[str, Any] = {}
        for field in descriptor.fields:
            if field.name in excluded:
                continue
            prefix = field.name + "."
            inner = frozenset(p.removeprefix(prefix) for p in excluded if p.startswith(prefix))
            if inner:
                # parse_template binds singular fields only, so this field is a singular message.
                nested = self._message(message_type_of(field), inner)
                description = self._field_description(field)
                if description:
                    nested["description"] = description
                properties[field.json_name] = nested
            else:
                properties[field.json_name] = self.field(field)
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        # A field the path binds, or binds a field of, is in every request whatever the body
        # holds: the body need not carry it.
        bound = {path.split(".", 1)[0] for path in excluded}
        required = [
            field.json_name
            for field in descriptor.fields
            if is_required(field) and field.name not in bound
        ]
        if required:
            schema["required"] = required
        parts = [self.comments.get(descriptor.full_name, "")]
        oneofs: dict[str, list[str]] = {}
        for oneof in descriptor.oneofs:
            members = [field for field in oneof.fields if not _is_synthetic(field)]
            if not members:
                continue
            oneofs[oneof.name] = [field.json_name for field in members]
            names = ", ".join(f"`{field.json_name}`" for field in members)
            comment = self.comments.get(oneof.full_name, "")
            parts.append(f"Oneof `{oneof.name}` (at most one of {names}). {comment}".strip())
        if oneofs:
            # A machine-readable copy of the oneofs, which JSON Schema has no keyword for that
            # code generators understand.
            schema["x-oneofs"] = oneofs
        description = "\n\n".join(part for part in parts if part)
        if description:
            schema["description"] = description
        return schema

    def _enum(self, descriptor: EnumDescriptor) -> dict[str, Any]:
        names = [value.name for value in descriptor.values]
        lines = [self.comments.get(descriptor.full_name, "")]
        documented = [
            f"- `{value.name}`: {' '.join(text.split())}"
            for value in descriptor.values
            if (text := self.comments.get(f"{descriptor.full_name}.{value.name}"))
        ]
        if documented:
            lines.append("\n".join(documented))
        schema: dict[str, Any] = {"type": "string", "enum": names}
        description = "\n\n".join(line for line in lines if line)
        if description:
            schema["description"] = description
        return schema


def _is_synthetic(field: FieldDescriptor) -> bool:
    """True for the oneof protoc wraps a proto3 ``optional`` field in (not a real oneof)."""
    oneof = field.containing_oneof
    if oneof is None:
        return False
    proto = descriptor_pb2.DescriptorProto()
    oneof.containing_type.CopyToProto(proto)
    return bool(proto.field[field.index].proto3_optional)


def _reason_schema(reason: EnumDescriptor, comments: Mapping[str, str]) -> dict[str, Any]:
    """The ``Reason`` enum as it travels in ``ErrorInfo.reason``: names without the prefix."""
    prefix = "REASON_"
    names: list[str] = []
    documented: list[str] = []
    for value in reason.values:
        if value.number == 0:
            continue  # never sent
        name = value.name.removeprefix(prefix)
        names.append(name)
        text = comments.get(f"{reason.full_name}.{value.name}")
        if text:
            documented.append(f"- `{name}`: {' '.join(text.split())}")
    parts = [comments.get(reason.full_name, ""), "\n".join(documented)]
    schema: dict[str, Any] = {"type": "string", "enum": names}
    description = "\n\n".join(part for part in parts if part)
    if description:
        schema["description"] = description
    return schema


def _error_schemas(comments: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    reason = errors_pb2.DESCRIPTOR.enum_types_by_name["Reason"]
    return {
        "Reason": _reason_schema(reason, comments),
        "ErrorInfo": {
            "type": "object",
            "description": "Why the request was refused (`google.rpc.ErrorInfo`).",
            "properties": {
                "@type": {"type": "string", "const": ERROR_INFO_TYPE},
                "reason": {
                    "anyOf": [{"$ref": SCHEMA_PREFIX + "Reason"}, {"type": "string"}],
                    "description": (
                        "The stable reason: a `hanafuda.v1.Reason` name without its `REASON_` "
                        "prefix, or the status name for errors of the transport itself (no "
                        "route, a crash). Clients branch on it and fall back on the status for "
                        "a reason they do not know."
                    ),
                },
                "domain": {"type": "string"},
                "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "required": ["@type", "reason", "domain"],
        },
        "Status": {
            "type": "object",
            "description": "An error as `google.rpc.Status` in the AIP-193 HTTP shape.",
            "properties": {
                "code": {"type": "integer", "description": "The HTTP status."},
                "message": {"type": "string", "description": "For humans; never parse it."},
                "status": {"type": "string", "description": "The gRPC status code name."},
                "details": {"type": "array", "items": {"$ref": SCHEMA_PREFIX + "ErrorInfo"}},
            },
            "required": ["code", "message", "status", "details"],
        },
        "ErrorResponse": {
            "type": "object",
            "properties": {"error": {"$ref": SCHEMA_PREFIX + "Status"}},
            "required": ["error"],
        },
    }


def _openapi_path(binding: HttpBinding) -> str:
    """The template with each variable spelled as OpenAPI has it: ``{field.path}``."""
    path = binding.template
    for _, field_path in binding.path_fields:
        for suffix in ("=**}", "=*}"):
            path = path.replace("{" + field_path + suffix, "{" + field_path + "}")
    return path


def _operation(binding: HttpBinding, schemas: _Schemas) -> dict[str, Any]:
    method = binding.method
    comment = schemas.comments.get(method.full_name, "")
    operation: dict[str, Any] = {
        "operationId": binding.operation_id,
        "tags": [method.containing_service.name],
    }
    if comment:
        operation["summary"] = _summary(comment)
        operation["description"] = comment
    parameters: list[dict[str, Any]] = []
    for _, field_path in binding.path_fields:
        field = _field_at(method.input_type, field_path)
        parameters.append(
            {"name": field_path, "in": "path", "required": True, "schema": schemas.field(field)}
        )
    if binding.body != "*":
        exclude = binding.bound_field_paths | ({binding.body} if binding.body else frozenset())
        for name, field in query_parameter_fields(method.input_type, exclude):
            schema = schemas.field(field)
            parameter: dict[str, Any] = {"name": name, "in": "query", "schema": schema}
            if _required_path(method.input_type, name):
                parameter["required"] = True
            if field.is_repeated:
                parameter.update(style="form", explode=True)
            parameters.append(parameter)
    if binding.streaming:
        parameters.append(
            {
                "name": "Last-Event-ID",
                "in": "header",
                "description": (
                    "Sent back by a reconnecting EventSource: the `version` of the last event "
                    "received. It takes precedence over the query's resume version."
                ),
                "schema": dict(_UINT64),
            }
        )
    parameters.append({"$ref": "#/components/parameters/RequestId"})
    operation["parameters"] = parameters
    if binding.body:
        operation["requestBody"] = {
            # The server refuses a request without a body (BAD_ENCODING), as this says.
            "required": True,
            "description": (
                "Proto3 JSON. An empty object leaves every field at its default; an absent "
                "(empty) body is refused with `BAD_ENCODING`."
            ),
            "content": {"application/json": {"schema": _body_schema(binding, schemas)}},
        }
    operation["responses"] = {
        "200": _success(binding, schemas),
        "default": {"$ref": "#/components/responses/Error"},
    }
    if takes_query_token(method.name, binding.verb):
        operation["security"] = [*_SECURITY, *_QUERY_TOKEN_SECURITY]
    return operation


def _body_schema(binding: HttpBinding, schemas: _Schemas) -> dict[str, Any]:
    """The request body's schema, without the fields the route binds from its path (the server
    takes those from the path and ignores them in the body)."""
    method = binding.method
    bound = binding.bound_field_paths
    name = f"{method.containing_service.full_name}.{binding.operation_id}Body"
    if binding.body == "*":
        return schemas.body(name, method.input_type, bound)
    field = method.input_type.fields_by_name[binding.body]
    prefix = field.name + "."
    inner = frozenset(path.removeprefix(prefix) for path in bound if path.startswith(prefix))
    if not inner:
        return schemas.field(field, described=False)
    return schemas.body(name, message_type_of(field), inner)


def _required_path(descriptor: Descriptor, json_path: str) -> bool:
    """Whether a query parameter (a dotted path of JSON names) must be sent: every field on
    the way to it is ``REQUIRED``, so the request is refused without it."""
    for step in json_path.split("."):
        field = next(f for f in descriptor.fields if f.json_name == step)
        if not is_required(field):
            return False
        if field.type == _F.TYPE_MESSAGE:
            descriptor = message_type_of(field)
    return True


def _success(binding: HttpBinding, schemas: _Schemas) -> dict[str, Any]:
    output = binding.method.output_type
    headers = {"x-request-id": {"$ref": "#/components/headers/RequestId"}}
    if binding.streaming:
        return {
            "description": (
                "A Server-Sent Events stream. Each event is `id: <version>` and one `data:` line "
                f"holding a `{output.full_name}` in proto3 JSON (see `x-sse-data`); comment lines "
                "keep the connection alive. When the stream is over (the game ended) an event "
                "named `end` says so: close the EventSource rather than let it reconnect. An "
                "error after the stream started arrives as an event named `error` whose data is "
                "an `ErrorResponse`, and ends the stream."
            ),
            "headers": headers,
            "content": {
                "text/event-stream": {
                    "schema": {"type": "string"},
                    "x-sse-data": schemas.ref(output),
                }
            },
        }
    schema = (
        schemas.field(output.fields_by_name[binding.response_body], described=False)
        if binding.response_body
        else schemas.ref(output)
    )
    description = _summary(schemas.comments.get(output.full_name, "")) or "OK"
    return {
        "description": description,
        "headers": headers,
        "content": {"application/json": {"schema": schema}},
    }


def _field_at(descriptor: Descriptor, path: str) -> FieldDescriptor:
    steps = path.split(".")
    for step in steps[:-1]:
        descriptor = message_type_of(descriptor.fields_by_name[step])
    return descriptor.fields_by_name[steps[-1]]


def _operations_paths() -> dict[str, Any]:
    """The service's own endpoints (not RPCs), documented by hand because they are not in the
    proto contract."""

    # The ids are spelled out, not derived from the summaries: client generators make function
    # names of them, so they must stay plain identifiers whatever the wording.
    def plain(
        operation_id: str, summary: str, content_type: str, schema: dict[str, Any]
    ) -> dict[str, Any]:
        return {
            "get": {
                "operationId": operation_id,
                "tags": ["operations"],
                "summary": summary,
                "security": [],
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {content_type: {"schema": schema}},
                    },
                    "default": {"$ref": "#/components/responses/Error"},
                },
            }
        }

    status = {"type": "object", "properties": {"status": {"type": "string"}}}
    return {
        "/healthz": plain(
            "liveness", "Liveness: the process serves requests.", "application/json", status
        ),
        "/readyz": plain(
            "readiness",
            "Readiness: the referee can reach its store (503 when not).",
            "application/json",
            status,
        ),
        "/metrics": plain(
            "metrics", "Metrics in the Prometheus text format.", "text/plain", {"type": "string"}
        ),
        "/openapi.json": plain(
            "openapi", "OpenAPI: this document.", "application/json", {"type": "object"}
        ),
    }


def _version() -> str:
    try:
        return importlib.metadata.version("hanafuda-referee")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


# Credentials are optional at the transport: each method decides (a read without a token is a
# spectator's), so every combination is a valid security requirement.
_SECURITY: list[dict[str, list[str]]] = [
    {},
    {"playerToken": []},
    {"apiKey": []},
    {"apiKey": [], "playerToken": []},
]
# The routes that also take the token in the query (see ``caller.QUERY_TOKEN_METHODS``).
_QUERY_TOKEN_SECURITY: list[dict[str, list[str]]] = [
    {"playerTokenQuery": []},
    {"apiKey": [], "playerTokenQuery": []},
]


def build_openapi(
    service: ServiceDescriptor,
    bindings: Iterable[HttpBinding],
    *,
    api_key_configured: bool = False,
    comments: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the service's HTTP bindings.

    ``api_key_configured`` says in the document that this server was started with an API key,
    which the methods that need one refuse to serve without (``API_KEY_REQUIRED``); which
    methods those are is the methods' own documentation. ``comments`` defaults to
    :func:`load_comments`.
    """
    schemas = _Schemas(load_comments() if comments is None else comments)
    paths: dict[str, dict[str, Any]] = {}
    for binding in bindings:
        paths.setdefault(_openapi_path(binding), {})[binding.verb.lower()] = _operation(
            binding, schemas
        )
    paths.update(_operations_paths())
    service_comment = schemas.comments.get(service.full_name, "")
    description = service_comment
    if api_key_configured:
        description += (
            "\n\nThis server was started with an API key: the methods that need one refuse "
            "requests without a valid `x-api-key` header (`API_KEY_REQUIRED`)."
        )
    components_schemas = dict(sorted(schemas.components.items()))
    components_schemas.update(_error_schemas(schemas.comments))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Hanafuda Referee",
            "version": _version(),
            "description": description.strip(),
        },
        "tags": [
            {"name": service.name, "description": _summary(service_comment)},
            {"name": "operations", "description": "Health, readiness, metrics, this document."},
        ],
        "servers": [
            {
                # Relative, so it resolves to the scheme, host and port the document was fetched
                # from: one document serves any deployment without knowing its address.
                "url": "/",
                "description": "The host that serves this document.",
            }
        ],
        "security": list(_SECURITY),
        "paths": paths,
        "components": {
            "schemas": components_schemas,
            "responses": {
                "Error": {
                    "description": "An error: `google.rpc.Status` in the AIP-193 JSON shape.",
                    "headers": {"x-request-id": {"$ref": "#/components/headers/RequestId"}},
                    "content": {
                        "application/json": {"schema": {"$ref": SCHEMA_PREFIX + "ErrorResponse"}}
                    },
                }
            },
            "parameters": {
                "RequestId": {
                    "name": "x-request-id",
                    "in": "header",
                    "description": "A request id for logs; generated when absent.",
                    "schema": {"type": "string", "maxLength": 128},
                }
            },
            "headers": {
                "RequestId": {
                    "description": "The request's id (the one sent, or a generated one).",
                    "schema": {"type": "string"},
                }
            },
            "securitySchemes": {
                "playerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": (
                        "A seat's player token, returned by CreateGame. Without it, reads are "
                        "a spectator's."
                    ),
                },
                "playerTokenQuery": {
                    "type": "apiKey",
                    "in": "query",
                    "name": QUERY_TOKEN_PARAMETER,
                    "description": (
                        "The player token as a query parameter, taken only by the GET routes "
                        "of a game (for a browser's EventSource, which cannot set headers). "
                        "Prefer the Authorization header: URLs end up in proxy logs and "
                        "browser histories. Never together with the header."
                    ),
                },
                "apiKey": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "x-api-key",
                    "description": "The server-to-server key, for the methods that need one.",
                },
            },
        },
    }
