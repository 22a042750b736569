"""Requests the HTTP transport refuses before the referee sees them are logged and counted as
the referee's refusals are (one canonical line, the request metrics), as on gRPC; a client
that leaves before its request is whole is ``cancelled``, not a failure of the service."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from prometheus_client import REGISTRY
from structlog.testing import capture_logs

from hanafuda_referee.http.app import create_app

from .fakes import FakeReferee


def rejected(method: str, reason: str) -> float:
    return (
        REGISTRY.get_sample_value(
            "hanafuda_requests_total",
            {"method": method, "transport": "http", "outcome": "rejected"},
        )
        or 0.0
    ) + (REGISTRY.get_sample_value("hanafuda_rejections_total", {"reason": reason}) or 0.0)


REFUSALS = [
    pytest.param(
        "POST",
        "/v1/games/g1/moves",
        {"content-type": "application/json"},
        b"{not json",
        "SubmitMove",
        "BAD_ENCODING",
        id="json",
    ),
    pytest.param(
        "POST",
        "/v1/games",
        {"content-type": "text/plain"},
        b'{"kind": "GAME_KIND_KOI_KOI"}',
        "CreateGame",
        "UNSUPPORTED_MEDIA_TYPE",
        id="text-plain",
    ),
    pytest.param(
        "POST",
        "/v1/games/g1/moves",
        {},
        json.dumps({"requestId": "x" * 2000}).encode(),
        "SubmitMove",
        "REQUEST_TOO_LARGE",
        id="too-large",
    ),
    pytest.param(
        "GET",
        "/v1/games/g1",
        {"authorization": "Basic c2VjcmV0"},
        b"",
        "GetGame",
        "BAD_TOKEN",
        id="authorization",
    ),
    pytest.param(
        "GET", "/v1/games/g1?noSuchField=1", {}, b"", "GetGame", "INVALID_ARGUMENT", id="query"
    ),
]


@pytest.mark.parametrize(("verb", "path", "headers", "body", "method", "reason"), REFUSALS)
def test_a_refusal_before_the_referee_has_its_line_and_its_count(
    client: TestClient[Litestar],
    referee: FakeReferee,
    verb: str,
    path: str,
    headers: dict[str, str],
    body: bytes,
    method: str,
    reason: str,
) -> None:
    before = rejected(method, reason)
    with capture_logs() as logs:
        response = client.request(verb, path, headers=headers, content=body)
    assert response.status_code in (400, 401, 415)
    assert response.json()["error"]["details"][0]["reason"] == reason
    assert referee.calls == []
    (line,) = [line for line in logs if line["event"] == "request"]
    assert (line["method"], line["transport"], line["outcome"], line["reason"]) == (
        method,
        "http",
        "rejected",
        reason,
    )
    assert line["request_id"] == response.headers["x-request-id"]
    assert line["seat"] == "spectator" and "game" not in line
    assert line["latency_ms"] >= 0
    assert "c2VjcmV0" not in json.dumps(logs, default=str)  # the credentials stay unlogged
    assert rejected(method, reason) == before + 2


def test_an_accepted_request_gets_no_line_from_the_transport(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    # The referee writes the line of what it serves (the fake writes none): no second line.
    with capture_logs() as logs:
        assert client.get("/v1/games/g1").status_code == 200
    assert [line for line in logs if line["event"] == "request"] == []


async def test_a_client_that_leaves_mid_body_is_cancelled_not_an_error() -> None:
    app = create_app(FakeReferee(), SimpleNamespace(max_request_bytes=1024, cors_origins=[]))
    events: Iterator[dict[str, Any]] = iter(
        [
            {"type": "http.request", "body": b'{"move": ', "more_body": True},
            {"type": "http.disconnect"},
        ]
    )
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(0)
        return next(events)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/games/g1/moves",
        "raw_path": b"/v1/games/g1/moves",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"x"), (b"content-length", b"100"), (b"x-request-id", b"gone-1")],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8080),
        "state": {},
    }
    with capture_logs() as logs:
        await app(scope, receive, send)  # type: ignore[arg-type]
    assert [(line["event"], line.get("outcome")) for line in logs] == [("request", "cancelled")]
    assert logs[0]["method"] == "SubmitMove" and logs[0]["request_id"] == "gone-1"
    assert all(line["log_level"] == "info" for line in logs)
