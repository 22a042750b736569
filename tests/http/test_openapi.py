"""The OpenAPI document: generated from the descriptors, complete and self-consistent."""

from __future__ import annotations

import re
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from google.api import (  # type: ignore[import-untyped]
    annotations_pb2,
    field_behavior_pb2,
    http_pb2,
)
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from hanafuda.v1 import service_pb2
from litestar import Litestar
from litestar.testing import TestClient
from openapi_spec_validator import validate

from hanafuda_referee.http.app import create_app
from hanafuda_referee.http.openapi import load_comments

SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    with TestClient[Litestar](create_app(object())) as client:
        response = client.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    parsed: dict[str, Any] = response.json()
    return parsed


def refs(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def schema(document: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = document["components"]["schemas"][name]
    return found


def test_it_is_openapi_3_1_and_litestar_s_own_is_off(document: dict[str, Any]) -> None:
    assert document["openapi"].startswith("3.1")
    with TestClient[Litestar](create_app(object())) as client:
        assert client.get("/schema").status_code == 404


def test_it_passes_the_openapi_3_1_schema(document: dict[str, Any]) -> None:
    # What client generators and gateways read it against: the specification's own schema.
    validate(document)


def test_every_annotated_path_is_there_with_its_verb(document: dict[str, Any]) -> None:
    for method in SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        verb = rule.WhichOneof("pattern")
        path = getattr(rule, verb)
        assert verb in document["paths"][path], method.name
        assert document["paths"][path][verb]["operationId"] == method.name
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.json"):
        assert "get" in document["paths"][path]


def test_every_reference_is_defined(document: dict[str, Any]) -> None:
    found = set(refs(document))
    assert "#/components/schemas/hanafuda.v1.GameView" in found
    for ref in found:
        resolve(document, ref)  # raises KeyError when dangling


def test_request_and_response_messages_are_referenced(document: dict[str, Any]) -> None:
    create = document["paths"]["/v1/games"]["post"]
    body = create["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/hanafuda.v1.CreateGameRequest"}
    move = document["paths"]["/v1/games/{game}/moves"]["post"]
    body = move["requestBody"]["content"]["application/json"]["schema"]
    # The request without `game`, which the path binds: a body component of its own.
    assert body == {"$ref": "#/components/schemas/hanafuda.v1.RefereeService.SubmitMoveBody"}
    ok = move["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok == {"$ref": "#/components/schemas/hanafuda.v1.SubmitMoveResponse"}
    error = resolve(document, move["responses"]["default"]["$ref"])
    assert error["content"]["application/json"]["schema"]["$ref"].endswith("ErrorResponse")


def test_field_types_follow_the_proto3_json_mapping(document: dict[str, Any]) -> None:
    view = schema(document, "hanafuda.v1.GameView")["properties"]
    assert view["version"]["type"] == "string"  # uint64
    assert view["version"]["format"] == "uint64"
    assert view["tableHalves"]["format"] == "int64"  # int64, camelCase name
    assert view["round"]["type"] == "integer"  # uint32
    assert view["hand"]["type"] == "array"  # repeated enum
    assert view["hand"]["items"] == {"$ref": "#/components/schemas/hanafuda.v1.Card"}
    assert view["seats"]["items"] == {"$ref": "#/components/schemas/hanafuda.v1.SeatInfo"}
    assert view["kind"]["$ref"] == "#/components/schemas/hanafuda.v1.GameKind"
    card = schema(document, "hanafuda.v1.Card")
    assert card["type"] == "string"
    assert "CARD_PINE_CRANE" in card["enum"]
    assert len(card["enum"]) == 49  # the 48 cards and the unspecified value
    event = schema(document, "hanafuda.v1.Event")["properties"]
    assert event["time"] == {**event["time"], "type": "string", "format": "date-time"}
    assert schema(document, "hanafuda.v1.ScoreHachiHachiCapturesResponse")["properties"][
        "difference"
    ]["format"] == ("int32")


def test_oneofs_are_documented_and_proto3_optionals_are_not_oneofs(
    document: dict[str, Any],
) -> None:
    create = schema(document, "hanafuda.v1.CreateGameRequest")
    assert create["x-oneofs"] == {"overrides": ["koiKoi", "hachiHachi"]}
    assert "oneof `overrides`" in create["properties"]["koiKoi"]["description"]
    # `optional uint32 first_dealer` lives in a synthetic oneof: documented as optional instead.
    assert "Optional" in create["properties"]["firstDealer"]["description"]
    submit = schema(document, "hanafuda.v1.RefereeService.SubmitMoveBody")
    assert "x-oneofs" not in submit
    assert "Optional" in submit["properties"]["expectedVersion"]["description"]


def test_get_parameters_come_from_the_path_and_the_remaining_fields(
    document: dict[str, Any],
) -> None:
    watch = document["paths"]["/v1/games/{game}/events"]["get"]
    params = {(p.get("in"), p.get("name")) for p in watch["parameters"]}
    assert {("path", "game"), ("query", "fromVersion"), ("header", "Last-Event-ID")} <= params
    assert ("query", "game") not in params
    presets = document["paths"]["/v1/rules/presets"]["get"]
    kind = next(p for p in presets["parameters"] if p.get("name") == "kind")
    assert kind["in"] == "query"
    assert kind["schema"]["$ref"] == "#/components/schemas/hanafuda.v1.GameKind"


def test_the_watch_stream_is_documented_as_server_sent_events(document: dict[str, Any]) -> None:
    ok = document["paths"]["/v1/games/{game}/events"]["get"]["responses"]["200"]
    stream = ok["content"]["text/event-stream"]
    assert stream["x-sse-data"] == {"$ref": "#/components/schemas/hanafuda.v1.WatchGameResponse"}
    assert "application/json" not in ok["content"]


def test_the_error_schema_is_the_aip193_shape(document: dict[str, Any]) -> None:
    status = schema(document, "Status")
    assert set(status["properties"]) == {"code", "message", "status", "details"}
    info = schema(document, "ErrorInfo")
    assert info["properties"]["@type"]["const"] == "type.googleapis.com/google.rpc.ErrorInfo"
    # The reasons are listed as the contract's enum without its prefix, left open to new ones.
    assert {"$ref": "#/components/schemas/Reason"} in info["properties"]["reason"]["anyOf"]
    reasons = schema(document, "Reason")["enum"]
    assert {"NOT_YOUR_TURN", "STALE_VERSION", "UNKNOWN_GAME"} <= set(reasons)
    assert "REASON_UNSPECIFIED" not in reasons
    assert "UNSPECIFIED" not in reasons


@pytest.mark.skipif(not load_comments(), reason="the descriptor set is not installed")
def test_descriptions_are_the_proto_comments(document: dict[str, Any]) -> None:
    get_game = document["paths"]["/v1/games/{game}"]["get"]
    assert get_game["description"].startswith("Reads a game as the seat")
    assert get_game["summary"].endswith(".")
    assert "\n" not in get_game["summary"]
    version = schema(document, "hanafuda.v1.GameView")["properties"]["version"]
    assert version["description"].startswith("The game's version")
    reason = schema(document, "Reason")["description"]
    assert re.search(r"- `STALE_VERSION`: .*ABORTED", reason)
    assert document["info"]["description"].startswith("The hanafuda referee")


def test_credentials_are_documented_as_security_schemes(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["playerToken"] == {**schemes["playerToken"], "type": "http", "scheme": "bearer"}
    assert (schemes["apiKey"]["in"], schemes["apiKey"]["name"]) == ("header", "x-api-key")
    assert {} in document["security"]  # a spectator needs no credential
    assert "API key" not in document["info"]["description"]
    with TestClient[Litestar](create_app(object(), SimpleNamespace(api_key="k"))) as client:
        configured = client.get("/openapi.json").json()
    assert "`x-api-key`" in configured["info"]["description"]


def test_the_query_token_is_a_scheme_of_the_get_routes_of_a_game_only(
    document: dict[str, Any],
) -> None:
    scheme = document["components"]["securitySchemes"]["playerTokenQuery"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "query", "access_token")
    assert "Authorization header" in scheme["description"]  # the warning to prefer it
    takes_it = {
        (path, verb)
        for path, item in document["paths"].items()
        for verb, operation in item.items()
        if {"playerTokenQuery": []} in operation.get("security", [])
    }
    assert takes_it == {
        ("/v1/games/{game}", "get"),
        ("/v1/games/{game}/events", "get"),
        ("/v1/games/{game}/log", "get"),
    }
    # Those routes keep every requirement of the document's default too.
    get_game = document["paths"]["/v1/games/{game}"]["get"]
    assert all(requirement in get_game["security"] for requirement in document["security"])


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every operation of the document as (path, verb, operation)."""
    verbs = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
    for path, item in document["paths"].items():
        for verb, operation in item.items():
            if verb in verbs:
                yield path, verb, operation


def http_rules() -> Iterator[tuple[str, http_pb2.HttpRule]]:
    """Every HTTP rule of the service (additional bindings too), with its method's name."""
    for method in SERVICE.methods:
        rule = method.GetOptions().Extensions[annotations_pb2.http]
        for each in (rule, *rule.additional_bindings):
            yield method.name, each


def test_every_operation_id_is_a_unique_plain_identifier(document: dict[str, Any]) -> None:
    # Client generators turn operation ids into function names: a colon or a space breaks them.
    ids = [operation["operationId"] for _, _, operation in operations(document)]
    for operation_id in ids:
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", operation_id), operation_id
    assert len(ids) == len(set(ids))
    plain = {
        path: document["paths"][path]["get"]["operationId"]
        for path in ("/healthz", "/readyz", "/metrics", "/openapi.json")
    }
    assert plain == {
        "/healthz": "liveness",
        "/readyz": "readiness",
        "/metrics": "metrics",
        "/openapi.json": "openapi",
    }


def test_the_server_is_named_relative_to_the_document(document: dict[str, Any]) -> None:
    servers = document["servers"]
    assert servers, "a client generator needs a server to send requests to"
    for server in servers:
        # Relative: the document is right whatever host, port or proxy serves it.
        assert not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", server["url"]), server["url"]
        assert not server["url"].startswith("//"), server["url"]
        assert server["description"]
    assert servers[0]["url"] == "/"


def test_a_rule_with_a_body_requires_one_and_a_rule_without_has_none(
    document: dict[str, Any],
) -> None:
    checked = 0
    for name, rule in http_rules():
        verb = rule.WhichOneof("pattern")
        operation = document["paths"][getattr(rule, verb)][verb]
        if rule.body:
            assert operation["requestBody"]["required"] is True, name
            checked += 1
        else:
            assert "requestBody" not in operation, name
    assert checked > 0
    move = document["paths"]["/v1/games/{game}/moves"]["post"]
    assert move["requestBody"]["required"] is True


def behaviors(field: FieldDescriptor) -> set[int]:
    """The field's ``google.api.field_behavior`` marks, read from its options."""
    return set(field.GetOptions().Extensions[field_behavior_pb2.field_behavior])


def proto_components(document: dict[str, Any]) -> Iterator[tuple[Descriptor, dict[str, Any]]]:
    """Every component schema of a proto message, with the message's descriptor."""
    pool = service_pb2.DESCRIPTOR.pool
    for name, component in document["components"]["schemas"].items():
        if component.get("type") != "object" or not name.startswith("hanafuda."):
            continue
        try:
            yield pool.FindMessageTypeByName(name), component
        except KeyError:
            continue  # a body schema (checked by the test of bodies)


def test_required_lists_are_the_field_behavior_marks(document: dict[str, Any]) -> None:
    checked = 0
    for message, component in proto_components(document):
        marked = [
            f.json_name for f in message.fields if field_behavior_pb2.REQUIRED in behaviors(f)
        ]
        assert component.get("required", []) == marked, message.full_name
        checked += bool(marked)
    assert checked >= 5
    # What the proto comments call "Required." the schemas require.
    assert "kind" in schema(document, "hanafuda.v1.CreateGameRequest")["required"]
    assert "roundMonth" in schema(document, "hanafuda.v1.ScoreKoiKoiRequest")["required"]


def test_output_only_fields_and_no_others_are_read_only(document: dict[str, Any]) -> None:
    for message, component in proto_components(document):
        for field in message.fields:
            output_only = field_behavior_pb2.OUTPUT_ONLY in behaviors(field)
            read_only = component["properties"][field.json_name].get("readOnly", False)
            assert read_only is output_only, field.full_name


def test_request_bodies_hold_no_field_the_path_binds(document: dict[str, Any]) -> None:
    bound_somewhere = 0
    for name, rule in http_rules():
        if not rule.body:
            continue
        verb = rule.WhichOneof("pattern")
        template = getattr(rule, verb)
        operation = document["paths"][template][verb]
        bound = set(re.findall(r"\{([A-Za-z0-9_.]+)", template))
        assert {p["name"] for p in operation["parameters"] if p.get("in") == "path"} == bound
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        body = resolve(document, body["$ref"]) if "$ref" in body else body
        message = SERVICE.methods_by_name[name].input_type
        if rule.body != "*":
            nested = message.fields_by_name[rule.body].message_type
            assert nested is not None, "a body field of a scalar type binds nothing from a path"
            message = nested
            bound = {path.removeprefix(rule.body + ".") for path in bound}
        top = {path.split(".")[0] for path in bound}
        assert not {path for path in bound if "." in path}, "covered by the synthetic test"
        kept = [field for field in message.fields if field.name not in top]
        assert list(body["properties"]) == [field.json_name for field in kept], name
        required = [f.json_name for f in kept if field_behavior_pb2.REQUIRED in behaviors(f)]
        assert body.get("required", []) == required, name
        bound_somewhere += bool(bound)
    assert bound_somewhere  # SubmitMove's `game`
    move = document["paths"]["/v1/games/{game}/moves"]["post"]["requestBody"]
    body = resolve(document, move["content"]["application/json"]["schema"]["$ref"])
    assert "game" not in body["properties"]
    assert body["required"] == ["move"]


def test_a_required_body_is_said_to_be_refused_when_absent(document: dict[str, Any]) -> None:
    for _, _, operation in operations(document):
        if "requestBody" in operation:
            assert "`BAD_ENCODING`" in operation["requestBody"]["description"]
