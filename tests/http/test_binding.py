"""Path, query and body binding onto the request message; proto3 canonical JSON in and out."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import pytest
from hanafuda.v1 import cards_pb2, moves_pb2, rules_pb2, service_pb2
from litestar import Litestar
from litestar.testing import TestClient

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.http.app import create_app
from hanafuda_referee.http.routes import (
    HttpBinding,
    bind_request,
    parse_template,
    service_bindings,
)

from .fakes import FakeReferee

SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]

#: The header of every JSON body (a body declared otherwise is refused, see below).
JSON = {"content-type": "application/json"}


def last_request(referee: FakeReferee) -> object:
    return referee.calls[-1].request


def test_a_path_variable_binds_the_request_field(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    assert client.get("/v1/games/abc-123").status_code == 200
    assert last_request(referee) == service_pb2.GetGameRequest(game="abc-123")


def test_the_body_is_parsed_as_proto3_json_with_enum_names_and_camel_case(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    body = {
        "move": {"kind": "MOVE_KIND_PLAY", "card": "CARD_PINE_CRANE", "target": 2},
        "expectedVersion": "7",  # int64 as a string, as canonical JSON writes it
        "seat": 1,
    }
    response = client.post("/v1/games/g1/moves", json=body)
    assert response.status_code == 200, response.text
    assert last_request(referee) == service_pb2.SubmitMoveRequest(
        game="g1",
        move=moves_pb2.Move(
            kind=moves_pb2.MOVE_KIND_PLAY,
            card=cards_pb2.CARD_PINE_CRANE,
            target=cards_pb2.CARD_PINE_RIBBON,  # enums may be given by number too
        ),
        seat=1,
        expected_version=7,
    )


def test_proto_field_names_are_accepted_too(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    response = client.post("/v1/games/g1/moves", json={"expected_version": 3})
    assert response.status_code == 200
    request = last_request(referee)
    assert isinstance(request, service_pb2.SubmitMoveRequest)
    assert request.expected_version == 3


def test_the_path_overrides_the_body(client: TestClient[Litestar], referee: FakeReferee) -> None:
    assert client.post("/v1/games/from-path/moves", json={"game": "from-body"}).status_code == 200
    request = last_request(referee)
    assert isinstance(request, service_pb2.SubmitMoveRequest)
    assert request.game == "from-path"


def test_a_post_answers_200_not_201(client: TestClient[Litestar]) -> None:
    assert client.post("/v1/rules/koikoi:score", json={"roundMonth": 1}).status_code == 200


def test_an_empty_object_is_an_empty_message(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    assert client.post("/v1/rules/koikoi:score", content=b"{}", headers=JSON).status_code == 200
    assert last_request(referee) == service_pb2.ScoreKoiKoiRequest()


@pytest.mark.parametrize("body", [b"", b" \r\n\t"], ids=["empty", "whitespace"])
def test_a_missing_body_is_refused_on_every_route_that_takes_one(
    client: TestClient[Litestar], referee: FakeReferee, body: bytes
) -> None:
    # The OpenAPI document marks every body required: none is not read as every default.
    routes = [b for b in service_bindings(SERVICE) if b.body]
    assert routes
    for binding in routes:
        path = binding.template.replace("{game}", "g1")
        response = client.request(binding.verb, path, content=body, headers=JSON)
        assert response.status_code == 400, path
        error = response.json()["error"]
        assert error["details"][0]["reason"] == "BAD_ENCODING", path
        assert "missing" in error["message"]
    assert referee.calls == []


def test_query_parameters_bind_scalars_and_enums(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    response = client.get("/v1/rules/presets", params={"kind": "GAME_KIND_HACHI_HACHI"})
    assert response.status_code == 200
    assert last_request(referee) == service_pb2.ListPresetsRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI
    )


def test_query_parameters_bind_by_proto_name_and_skip_path_bound_fields(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    # WatchGame is served as SSE; its binding is the same as any GET. (An ended game, so that the
    # stream ends on its own: tests/http/test_sse.py covers live streams on a real server.)
    referee.over = True
    response = client.get("/v1/games/g1/events", params={"from_version": "1", "game": "other"})
    assert response.status_code == 200
    request = last_request(referee)
    assert request == service_pb2.WatchGameRequest(game="g1", from_version=1)


@pytest.mark.parametrize(
    ("query", "fragment", "reason"),
    [
        # A value that does not decode is refused as in a body (tests/http/test_strict_json.py).
        ({"kind": "GAME_KIND_CHESS"}, "kind", "BAD_ENCODING"),
        ({"nope": "1"}, "nope", "INVALID_ARGUMENT"),
        (
            {"kind": ["GAME_KIND_KOI_KOI", "GAME_KIND_HACHI_HACHI"]},
            "more than once",
            "INVALID_ARGUMENT",
        ),
    ],
    ids=["bad-enum", "unknown-parameter", "repeated-singular"],
)
def test_bad_query_parameters_are_400(
    client: TestClient[Litestar],
    referee: FakeReferee,
    query: dict[str, object],
    fragment: str,
    reason: str,
) -> None:
    response = client.get("/v1/rules/presets", params=query)  # type: ignore[arg-type]
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["details"][0]["reason"] == reason
    assert fragment in error["message"]
    assert referee.calls == []


def test_a_route_whose_body_is_every_field_refuses_query_parameters(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    # They were silently dropped, where a GET route refuses a parameter it does not know.
    response = client.post(
        "/v1/games/g1/moves",
        params={"requestId": "r1"},
        content=b'{"move": {"kind": "MOVE_KIND_STOP"}}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["details"][0]["reason"] == "INVALID_ARGUMENT"
    assert error["details"][0]["metadata"] == {"parameter": "requestId"}
    assert referee.calls == []


def test_responses_are_canonical_json_with_zero_values_emitted(
    client: TestClient[Litestar],
) -> None:
    response = client.get("/v1/games/g1")
    assert response.headers["content-type"].startswith("application/json")
    view = response.json()["view"]
    assert view["game"] == "g1"
    assert view["kind"] == "GAME_KIND_KOI_KOI"  # enums by name
    assert view["version"] == "3"  # uint64 as a string
    assert view["status"] == "GAME_STATUS_IN_PROGRESS"
    # Fields without presence appear at their zero value...
    assert view["hand"] == []
    assert view["stockSize"] == 0
    assert view["tableHalves"] == "0"
    # ...while unset optional and message fields stay absent (unset is not zero for them).
    assert "turn" not in view
    assert "viewerSeat" not in view
    assert "gameResult" not in view
    assert "stock_size" not in view  # camelCase only


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"move": {"kind": "MOVE_KIND_FLY"}}', "MOVE_KIND_FLY"),
        (b'{"mvoe": {}}', "mvoe"),
        (b'{"seat": "one"}', "seat"),
        (b"[1, 2]", "JSON object"),
        (b'{"seat": 1, "seat": 2}', "duplicate"),
        (b"\xff\xfe", "UTF-8"),
        # json_format raised OverflowError on these, which came out as 500 INTERNAL.
        (b'{"move": {"kind": 1e400}}', "infinity"),
        (b'{"move": {"kind": "MOVE_KIND_PLAY", "card": -1e400}}', "infinity"),
        (b'{"expectedVersion": 1e400}', "expectedVersion"),
    ],
    ids=[
        "malformed",
        "bad-enum",
        "unknown-field",
        "wrong-type",
        "not-an-object",
        "duplicate-key",
        "not-utf8",
        "infinite-enum",
        "minus-infinite-enum",
        "infinite-integer",
    ],
)
def test_a_body_that_does_not_decode_is_400_bad_encoding(
    client: TestClient[Litestar], referee: FakeReferee, body: bytes, fragment: str
) -> None:
    response = client.post(
        "/v1/games/g1/moves", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == 400
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["details"][0]["reason"] == "BAD_ENCODING"
    assert fragment in error["message"]
    assert referee.calls == []


def test_a_number_too_long_for_python_is_400_in_plain_words(referee: FakeReferee) -> None:
    config = SimpleNamespace(max_request_bytes=1 << 20)
    body = b'{"seat": ' + b"9" * 5000 + b"}"
    with TestClient[Litestar](create_app(referee, config)) as client:
        response = client.post("/v1/games/g1/moves", content=body, headers=JSON)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["details"][0]["reason"] == "BAD_ENCODING"
    assert "more than 4300 digits" in error["message"]
    assert "sys." not in error["message"]
    assert referee.calls == []


def test_absurdly_nested_json_is_400_not_a_crash(referee: FakeReferee) -> None:
    config = SimpleNamespace(max_request_bytes=1 << 20)
    body = b'{"move": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    with TestClient[Litestar](create_app(referee, config)) as client:
        response = client.post("/v1/games/g1/moves", content=body, headers=JSON)
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["reason"] == "BAD_ENCODING"


@pytest.mark.parametrize(
    "body",
    [
        b'{"move": {"kind": "\\ud800"}}',  # an enum's name: protobuf's parser failed on it
        b'{"move": {"kind": "MOVE_KIND_STOP"}, "requestId": "a\\udc00"}',  # a string field
        b'{"\\ud800": 1}',  # a key
    ],
    ids=["enum", "string", "key"],
)
def test_an_unpaired_surrogate_anywhere_in_the_body_is_bad_encoding(
    client: TestClient[Litestar], referee: FakeReferee, body: bytes
) -> None:
    response = client.post("/v1/games/g1/moves", content=body, headers=JSON)
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["reason"] == "BAD_ENCODING"
    assert referee.calls == []


def test_an_escaped_surrogate_pair_is_text_like_any_other(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    body = b'{"preset": "\\ud83c\\udfb4 \\u00e9"}'
    assert client.post("/v1/rules/koikoi:score", content=body, headers=JSON).status_code == 200
    assert last_request(referee).preset == "\U0001f3b4 \u00e9"  # type: ignore[attr-defined]


def test_a_body_over_the_limit_is_refused_before_parsing(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    # The limit is 1024 bytes in the fixture's config; the body is valid JSON, so only its size
    # can be the reason.
    body = json.dumps({"requestId": "x" * 2000}).encode()
    response = client.post("/v1/games/g1/moves", content=body, headers=JSON)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["details"][0]["reason"] == "REQUEST_TOO_LARGE"
    assert error["details"][0]["metadata"] == {"max_request_bytes": "1024"}
    assert referee.calls == []


def test_a_chunked_body_over_the_limit_is_refused_too(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    def chunks() -> object:
        yield b'{"requestId": "'
        for _ in range(40):
            yield b"x" * 100
        yield b'"}'

    # A generator body is sent without Content-Length, so the limit is checked while reading.
    response = client.post("/v1/games/g1/moves", content=chunks(), headers=JSON)  # type: ignore[arg-type]
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["reason"] == "REQUEST_TOO_LARGE"
    assert referee.calls == []


def test_a_body_just_under_the_limit_is_accepted(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    body = json.dumps({"move": {}}).encode().ljust(1024)
    assert client.post("/v1/games/g1/moves", content=body, headers=JSON).status_code == 200


def binding_of(method: str) -> HttpBinding:
    service = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]
    return next(b for b in service_bindings(service) if b.method.name == method)


def test_query_parameters_fill_repeated_nested_and_boolean_fields() -> None:
    # The contract's GET requests hold only scalars, so the general mapping is checked on a body
    # method's request bound as if it were a GET.
    as_get = dataclasses.replace(binding_of("ScoreKoiKoi"), verb="GET", body="")
    request = bind_request(
        as_get,
        path_params={},
        query=[
            ("captured", "CARD_PINE_CRANE"),
            ("captured", "CARD_SUSUKI_MOON"),
            ("overrides.rounds", "6"),
            ("overrides.akatan_aotan_stacks", "true"),
            ("roundMonth", "3"),
        ],
        body=b"",
    )
    assert request == service_pb2.ScoreKoiKoiRequest(
        captured=[cards_pb2.CARD_PINE_CRANE, cards_pb2.CARD_SUSUKI_MOON],
        overrides=rules_pb2.KoiKoiRules(rounds=6, akatan_aotan_stacks=True),
        round_month=3,
    )


def test_a_boolean_query_parameter_must_be_a_boolean() -> None:
    as_get = dataclasses.replace(binding_of("ListCaptures"), verb="GET", body="")
    assert bind_request(
        as_get, path_params={}, query=[("lightningWild", "true")], body=b""
    ) == service_pb2.ListCapturesRequest(lightning_wild=True)
    with pytest.raises(ApiError) as refused:
        bind_request(as_get, path_params={}, query=[("lightningWild", "yes")], body=b"")
    # As a string for a boolean in a body: the value does not decode.
    assert refused.value.reason == "BAD_ENCODING"
    assert refused.value.message.startswith("lightningWild: expected true or false")


def test_a_body_field_rule_parses_the_body_into_that_field() -> None:
    # `body: "move"` (not used by the contract today) binds the body to one field.
    with_field = dataclasses.replace(binding_of("SubmitMove"), body="move")
    request = bind_request(
        with_field,
        path_params={"p0": "g9"},
        query=[("requestId", "r1")],
        body=b'{"kind": "MOVE_KIND_STOP"}',
    )
    assert request == service_pb2.SubmitMoveRequest(
        game="g9", move=moves_pb2.Move(kind=moves_pb2.MOVE_KIND_STOP), request_id="r1"
    )


def test_templates_litestar_cannot_route_are_refused_at_build_time() -> None:
    request = service_pb2.GetGameRequest.DESCRIPTOR
    with pytest.raises(ValueError, match="unsupported"):
        parse_template(request, "/v1/{game=games/*}")
    with pytest.raises(ValueError, match="unsupported"):
        parse_template(request, "/v1/games/{game}:undo")
    path, fields, rest = parse_template(request, "/v1/files/{game=**}")
    assert (path, fields, rest) == ("/v1/files/{p0:path}", (("p0", "game"),), frozenset({"p0"}))


_MOVE = b'{"move": {"kind": "MOVE_KIND_STOP"}}'


@pytest.mark.parametrize(
    "headers",
    [
        {"content-type": "text/plain"},
        {"content-type": "text/plain;charset=UTF-8"},
        {"content-type": "application/x-www-form-urlencoded"},
        {"content-type": "multipart/form-data; boundary=x"},
        {"content-type": "application/jsonp"},
        {},
    ],
    ids=["text", "text-charset", "form", "multipart", "jsonp", "none"],
)
def test_a_body_not_declared_json_is_415_and_reaches_nobody(
    client: TestClient[Litestar], referee: FakeReferee, headers: dict[str, str]
) -> None:
    # A page of another site can send these without the browser asking first ("simple"
    # requests): acting on them would let it play in a visitor's name.
    response = client.post("/v1/games/g1/moves", content=_MOVE, headers=headers)
    assert response.status_code == 415
    assert response.json()["error"]["details"][0]["reason"] == "UNSUPPORTED_MEDIA_TYPE"
    assert referee.calls == []


def test_two_media_types_are_415(client: TestClient[Litestar], referee: FakeReferee) -> None:
    response = client.post(
        "/v1/games/g1/moves",
        content=_MOVE,
        headers=[("content-type", "application/json"), ("content-type", "text/plain")],
    )
    assert response.status_code == 415
    assert referee.calls == []


@pytest.mark.parametrize(
    "media_type", ["application/json", "application/json; charset=utf-8", "Application/JSON"]
)
def test_json_with_or_without_parameters_is_accepted(
    client: TestClient[Litestar], referee: FakeReferee, media_type: str
) -> None:
    response = client.post(
        "/v1/games/g1/moves", content=_MOVE, headers={"content-type": media_type}
    )
    assert response.status_code == 200
    assert len(referee.calls) == 1


def test_an_empty_body_without_a_media_type_is_refused_as_missing(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    # Nothing was sent to declare: the refusal says the body is missing, not its type wrong.
    response = client.post("/v1/rules/koikoi:score", content=b"")
    assert response.status_code == 400
    assert response.json()["error"]["details"][0]["reason"] == "BAD_ENCODING"
    assert referee.calls == []
