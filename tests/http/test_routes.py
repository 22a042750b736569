"""Every RPC is served at the verb and path of its google.api.http option, and dispatched to the
referee method of the same name."""

from __future__ import annotations

import re

import pytest
from google.api import annotations_pb2  # type: ignore[import-untyped]
from google.protobuf.descriptor import MethodDescriptor
from hanafuda.v1 import service_pb2
from litestar import Litestar
from litestar.testing import TestClient

from hanafuda_referee.http.app import create_app

from .fakes import RecordingReferee

SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]
METHODS = list(SERVICE.methods)


def annotated(method: MethodDescriptor) -> tuple[str, str]:
    """The (verb, path template) of a method, read straight from its option."""
    rule = method.GetOptions().Extensions[annotations_pb2.http]
    verb = rule.WhichOneof("pattern")
    return verb.upper(), getattr(rule, verb)


def test_the_contract_has_the_documented_routes() -> None:
    # A guard on the test itself: the loop below covers the twelve documented methods.
    assert {annotated(m) for m in METHODS} >= {
        ("GET", "/v1/games/{game}"),
        ("POST", "/v1/rules/koikoi:score"),
        ("POST", "/v1/rules:listCaptures"),
        ("GET", "/v1/games/{game}/events"),
    }
    assert len(METHODS) == 14


def test_every_method_has_a_route_at_its_annotated_path_and_verb() -> None:
    app = create_app(RecordingReferee())
    registered = {
        (verb, re.sub(r"\{[^}]*\}", "{}", route.path))
        for route in app.routes
        for verb in getattr(route, "methods", ())
    }
    for method in METHODS:
        verb, template = annotated(method)
        assert (verb, re.sub(r"\{[^}]*\}", "{}", template)) in registered, method.name


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.name)
def test_each_route_dispatches_to_the_method_of_the_same_name(method: MethodDescriptor) -> None:
    referee = RecordingReferee()
    verb, template = annotated(method)
    path = re.sub(r"\{([^}=]*)[^}]*\}", "g-1", template)
    with TestClient[Litestar](create_app(referee)) as client:
        response = client.request(verb, path, json={} if verb == "POST" else None)
    assert response.status_code == 200, response.text
    assert [name for name, _, _ in referee.called] == [method.name]
    request = referee.called[0][1]
    assert type(request).DESCRIPTOR.full_name == method.input_type.full_name
    if "{game}" in template:
        assert request.game == "g-1"


def test_a_colon_custom_verb_is_a_literal_segment_not_a_parameter() -> None:
    referee = RecordingReferee()
    with TestClient[Litestar](create_app(referee)) as client:
        assert client.post("/v1/rules/koikoi:score", json={}).status_code == 200
        # Another verb on the same collection is not routed to it...
        assert client.post("/v1/rules/koikoi:nope", json={}).status_code == 404
        # ...and the percent-encoded colon is the same path once decoded.
        assert client.post("/v1/rules/koikoi%3Ascore", json={}).status_code == 200
        assert client.post("/v1/rules:listCaptures", json={}).status_code == 200
    assert [name for name, _, _ in referee.called] == ["ScoreKoiKoi", "ScoreKoiKoi", "ListCaptures"]


def test_a_wrong_verb_is_405_in_the_error_shape_with_allow() -> None:
    with TestClient[Litestar](create_app(RecordingReferee())) as client:
        response = client.delete("/v1/games/g-1")
    assert response.status_code == 405
    assert "GET" in response.headers["allow"]
    assert response.json()["error"]["code"] == 405


def test_a_method_the_referee_lacks_is_501_not_404() -> None:
    with TestClient[Litestar](create_app(object())) as client:
        response = client.get("/v1/games/g-1/log")
    assert response.status_code == 501
    assert response.json()["error"]["status"] == "UNIMPLEMENTED"
