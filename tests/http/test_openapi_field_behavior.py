"""The OpenAPI document's reading of ``google.api.field_behavior`` and of path bindings, on a
small contract of its own.

The referee's contract has no ``OUTPUT_ONLY`` field, no path variable inside a message and no
required query parameter: this one has each, so the document's handling of them is tested before
the contract needs it (tests/http/test_openapi.py checks the referee's own document).
"""

from __future__ import annotations

from typing import Any

import pytest
from google.api import annotations_pb2, field_behavior_pb2, http_pb2  # type: ignore[import-untyped]
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import ServiceDescriptor
from openapi_spec_validator import validate

from hanafuda_referee.http.openapi import build_openapi
from hanafuda_referee.http.routes import service_bindings

_F = descriptor_pb2.FieldDescriptorProto
_REQUIRED = field_behavior_pb2.REQUIRED
_OUTPUT_ONLY = field_behavior_pb2.OUTPUT_ONLY


def _message(
    file: descriptor_pb2.FileDescriptorProto,
    name: str,
    fields: list[tuple[str, int | str, list[int]]],
) -> None:
    """Adds a message of singular fields: (name, scalar type or message name, behaviors)."""
    message = file.message_type.add(name=name)
    for number, (field_name, kind, behaviors) in enumerate(fields, start=1):
        field = message.field.add(name=field_name, number=number, label=_F.LABEL_OPTIONAL)
        if isinstance(kind, str):
            field.type, field.type_name = _F.TYPE_MESSAGE, f".synthetic.v1.{kind}"
        else:
            field.type = kind  # type: ignore[assignment]
        field.options.Extensions[field_behavior_pb2.field_behavior].extend(behaviors)


def _rule(
    service: descriptor_pb2.ServiceDescriptorProto,
    name: str,
    types: tuple[str, str],
    verb: str,
    path: str,
    body: str = "",
) -> None:
    method = service.method.add(
        name=name, input_type=f".synthetic.v1.{types[0]}", output_type=f".synthetic.v1.{types[1]}"
    )
    rule: http_pb2.HttpRule = method.options.Extensions[annotations_pb2.http]
    setattr(rule, verb, path)
    rule.body = body


@pytest.fixture(scope="module")
def service() -> ServiceDescriptor:
    """``synthetic.v1.Things``: a thing keyed by a nested name, put whole, read with a required
    query parameter, and updated through a body that is one field of the request."""
    pool = descriptor_pool.DescriptorPool()
    for module in (descriptor_pb2, http_pb2, annotations_pb2, field_behavior_pb2):
        imported = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(imported)
        pool.Add(imported)
    file = descriptor_pb2.FileDescriptorProto(
        name="synthetic/v1/things.proto",
        package="synthetic.v1",
        syntax="proto3",
        dependency=["google/api/annotations.proto", "google/api/field_behavior.proto"],
    )
    _message(file, "Key", [("name", _F.TYPE_STRING, [_REQUIRED]), ("shelf", _F.TYPE_STRING, [])])
    _message(
        file,
        "Thing",
        [
            ("key", "Key", [_REQUIRED]),
            ("label", _F.TYPE_STRING, [_REQUIRED]),
            ("created", _F.TYPE_STRING, [_OUTPUT_ONLY]),
            ("note", _F.TYPE_STRING, []),
        ],
    )
    _message(
        file,
        "GetThingRequest",
        [("key", "Key", [_REQUIRED]), ("view", _F.TYPE_STRING, [_REQUIRED])],
    )
    _message(file, "UpdateThingRequest", [("thing", "Thing", []), ("mask", _F.TYPE_STRING, [])])
    things = file.service.add(name="Things")
    _rule(things, "PutThing", ("Thing", "Thing"), "put", "/v1/things/{key.name}", "*")
    _rule(things, "GetThing", ("GetThingRequest", "Thing"), "get", "/v1/things/{key.name}")
    _rule(
        things,
        "UpdateThing",
        ("UpdateThingRequest", "Thing"),
        "patch",
        "/v1/things/{thing.key.name}",
        "thing",
    )
    pool.Add(file)
    found: ServiceDescriptor = pool.FindServiceByName("synthetic.v1.Things")
    return found


@pytest.fixture(scope="module")
def document(service: ServiceDescriptor) -> dict[str, Any]:
    built = build_openapi(service, service_bindings(service), comments={})
    validate(built)
    return built


def _body(document: dict[str, Any], path: str, verb: str) -> dict[str, Any]:
    schema = document["paths"][path][verb]["requestBody"]["content"]["application/json"]["schema"]
    name = schema["$ref"].removeprefix("#/components/schemas/")
    found: dict[str, Any] = document["components"]["schemas"][name]
    return found


def test_a_whole_message_body_leaves_out_the_nested_field_the_path_binds(
    document: dict[str, Any],
) -> None:
    body = _body(document, "/v1/things/{key.name}", "put")
    assert set(body["properties"]) == {"key", "label", "created", "note"}
    # `key` holds only what the path does not bind, inline (not the Key component).
    assert body["properties"]["key"]["properties"] == {"shelf": {"type": "string"}}
    assert "required" not in body["properties"]["key"]
    # `key` is set from the path whatever the body says: only `label` must be in the body.
    assert body["required"] == ["label"]
    assert "`key.name`" in body["description"]
    # The message's own component keeps every field and mark, for wherever else it is used.
    thing = document["components"]["schemas"]["synthetic.v1.Thing"]
    assert thing["required"] == ["key", "label"]
    assert document["components"]["schemas"]["synthetic.v1.Key"]["required"] == ["name"]


def test_output_only_fields_are_read_only(document: dict[str, Any]) -> None:
    thing = document["components"]["schemas"]["synthetic.v1.Thing"]
    assert thing["properties"]["created"]["readOnly"] is True
    assert all("readOnly" not in thing["properties"][name] for name in ("key", "label", "note"))
    assert _body(document, "/v1/things/{key.name}", "put")["properties"]["created"]["readOnly"]


def test_a_one_field_body_leaves_out_what_the_path_binds_in_it(document: dict[str, Any]) -> None:
    operation = document["paths"]["/v1/things/{thing.key.name}"]["patch"]
    body = _body(document, "/v1/things/{thing.key.name}", "patch")
    assert body["properties"]["key"]["properties"] == {"shelf": {"type": "string"}}
    assert body["required"] == ["label"]
    params = {(p.get("in"), p.get("name")): p for p in operation["parameters"]}
    assert ("path", "thing.key.name") in params
    assert ("query", "mask") in params


def test_a_required_query_parameter_is_required(document: dict[str, Any]) -> None:
    operation = document["paths"]["/v1/things/{key.name}"]["get"]
    params = {(p.get("in"), p.get("name")): p for p in operation["parameters"]}
    assert params[("query", "view")]["required"] is True
    # Optional inside a required message: not required itself.
    assert "required" not in params[("query", "key.shelf")]
    assert params[("path", "key.name")]["required"] is True
