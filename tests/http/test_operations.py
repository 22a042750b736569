"""Health, readiness, metrics and CORS."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import TestClient

from .fakes import FakeReferee


def test_healthz(client: TestClient[Litestar]) -> None:
    response = client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_readyz_asks_the_referee(client: TestClient[Litestar], referee: FakeReferee) -> None:
    assert client.get("/readyz").status_code == 200
    referee.ready_answer = False
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["error"]["status"] == "UNAVAILABLE"


def test_readyz_without_a_ready_method_is_ready() -> None:
    from hanafuda_referee.http.app import create_app

    with TestClient[Litestar](create_app(object())) as client:
        assert client.get("/readyz").status_code == 200


def test_metrics_serve_the_prometheus_registry(client: TestClient[Litestar]) -> None:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "# TYPE " in response.text


def test_cors_preflight_allows_the_configured_origin_and_headers(
    client: TestClient[Litestar],
) -> None:
    response = client.options(
        "/v1/games/g1/moves",
        headers={
            "Origin": "https://play.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, x-api-key, x-request-id, "
            "last-event-id, content-type",
        },
    )
    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] == "https://play.example"
    allowed = {
        h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")
    }
    assert {"authorization", "x-api-key", "x-request-id", "last-event-id"} <= allowed
    # Only the verbs the API's routes use.
    methods = {m.strip() for m in response.headers["access-control-allow-methods"].split(",")}
    assert methods == {"GET", "POST", "OPTIONS"}


def test_cors_refuses_other_origins(client: TestClient[Litestar]) -> None:
    response = client.options(
        "/v1/games/g1/moves",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert response.headers.get("access-control-allow-origin") != "https://evil.example"


def test_cors_headers_on_a_simple_request_expose_the_request_id(
    client: TestClient[Litestar],
) -> None:
    response = client.get("/v1/games/g1", headers={"Origin": "https://play.example"})
    assert response.headers["access-control-allow-origin"] == "https://play.example"
    assert "x-request-id" in response.headers["access-control-expose-headers"].lower()
