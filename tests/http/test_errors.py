"""Errors in the AIP-193 shape with the status of api.errors.STATUS; who the caller is."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from hanafuda_referee.calls.errors import DOMAIN, STATUS
from hanafuda_referee.http.app import create_app

from .fakes import FakeReferee

ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
REASONS = [
    "NOT_YOUR_TURN",
    "CARD_NOT_IN_HAND",
    "UNKNOWN_SEAT",
    "BAD_TOKEN",
    "MISSING_TOKEN",
    "PERMISSION_DENIED",
    "TESTING_FEATURE_DISABLED",
    "UNKNOWN_GAME",
    "UNAVAILABLE",
    "GAME_OVER",
]


@pytest.mark.parametrize("reason", REASONS)
def test_an_api_error_has_its_status_and_the_aip193_shape(
    client: TestClient[Litestar], reason: str
) -> None:
    response = client.post("/v1/games/g1/moves", json={"requestId": reason})
    code, http_status = STATUS[reason]
    assert response.status_code == http_status
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {
        "error": {
            "code": http_status,
            "message": f"refused: {reason}",
            "status": code.name,
            "details": [{"@type": ERROR_INFO, "reason": reason, "domain": DOMAIN, "metadata": {}}],
        }
    }


def test_error_metadata_travels(client: TestClient[Litestar]) -> None:
    response = client.post("/v1/games/g1/moves", json={"requestId": "STALE_VERSION"})
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["status"] == "ABORTED"
    assert error["details"][0]["metadata"] == {"current_version": "3"}


def test_an_unknown_route_is_404_in_the_same_shape(client: TestClient[Litestar]) -> None:
    response = client.get("/v2/nothing/here")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == 404
    assert error["status"] == "NOT_FOUND"
    assert error["details"][0]["@type"] == ERROR_INFO
    assert "x-request-id" in response.headers


def test_an_unexpected_exception_is_500_without_its_details(
    client: TestClient[Litestar], caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="hanafuda_referee.http.app"):
        response = client.get("/v1/games/crash")
    assert response.status_code == 500
    assert "secret" not in response.text
    error = response.json()["error"]
    assert (error["status"], error["message"]) == ("INTERNAL", "internal error")
    # The operator, not the client, gets the details, with the request id to find them by.
    assert any("secret internal detail" in str(r.exc_info) for r in caplog.records)
    assert any(response.headers["x-request-id"] in r.getMessage() for r in caplog.records)


def test_a_referee_answering_the_wrong_type_is_500() -> None:
    class Confused:
        async def GetGame(self, request: object, caller: object) -> object:  # noqa: N802
            return {"view": {}}

    with TestClient[Litestar](create_app(Confused()), raise_server_exceptions=False) as client:
        assert client.get("/v1/games/g1").status_code == 500


def test_the_bearer_token_and_api_key_reach_the_caller(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    headers = {"Authorization": "Bearer tok-123", "x-api-key": "key-9", "x-request-id": "req-1"}
    response = client.get("/v1/games/g1", headers=headers)
    assert response.status_code == 200
    caller = referee.calls[-1].caller
    assert (caller.token, caller.api_key, caller.request_id, caller.transport) == (
        "tok-123",
        "key-9",
        "req-1",
        "http",
    )
    assert response.headers["x-request-id"] == "req-1"


def test_without_credentials_the_caller_is_anonymous(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    response = client.get("/v1/games/g1")
    caller = referee.calls[-1].caller
    assert (caller.token, caller.api_key) == (None, None)
    # A request id is generated and echoed when the client sends none.
    assert caller.request_id
    assert response.headers["x-request-id"] == caller.request_id


def test_an_unusable_request_id_is_replaced(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    response = client.get("/v1/games/g1", headers={"x-request-id": "bad id\twith spaces"})
    assert response.headers["x-request-id"] != "bad id\twith spaces"
    assert response.headers["x-request-id"] == referee.calls[-1].caller.request_id


@pytest.mark.parametrize("authorization", ["Basic dXNlcjpwdw==", "Bearer", "Bearer   "])
def test_an_authorization_that_is_not_a_bearer_token_is_refused(
    client: TestClient[Litestar], referee: FakeReferee, authorization: str
) -> None:
    response = client.get("/v1/games/g1", headers={"Authorization": authorization})
    assert response.status_code == 401
    assert response.json()["error"]["details"][0]["reason"] == "BAD_TOKEN"
    assert referee.calls == []


def test_an_api_key_is_passed_on_not_judged_by_the_transport(referee: FakeReferee) -> None:
    # Which method needs the key is the referee's decision (it sees Caller.api_key): the
    # transport serves a request without one, or with any one, even when the server has a key.
    app = create_app(referee, SimpleNamespace(api_key="s3cret"))
    with TestClient[Litestar](app) as client:
        assert client.get("/v1/games/g1").status_code == 200
        assert client.get("/v1/games/g1", headers={"x-api-key": "other"}).status_code == 200
    assert [call.caller.api_key for call in referee.calls] == [None, "other"]
