"""The player token as the ``access_token`` query parameter, for browsers (an EventSource cannot
set headers): taken only on the GET routes of a game, refused elsewhere, never logged, and CORS
open to a configured origin's EventSource."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from structlog.testing import capture_logs

from hanafuda_referee.calls.caller import QUERY_TOKEN_PARAMETER, Caller
from hanafuda_referee.config import Config
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http.app import create_app
from hanafuda_referee.serving import serve
from hanafuda_referee.store import MemoryStore
from tests.store.servers import free_port

from .fakes import FakeReferee
from .live import TIMEOUT, next_event, running, sse_events

ORIGIN = "https://play.example"
SECRET = "s3cret-token-value"


def reason(response: httpx.Response) -> str:
    details: list[dict[str, str]] = response.json()["error"]["details"]
    return details[0]["reason"]


# The transport, over the fake referee --------------------------------------------------------


def test_the_get_routes_of_a_game_take_the_token_from_the_query(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    response = client.get("/v1/games/g1", params={QUERY_TOKEN_PARAMETER: SECRET})
    assert response.status_code == 200, response.text
    assert referee.calls[-1].caller.token == SECRET
    # The URL alone now selects a seat's view: no cache may keep it.
    assert response.headers["cache-control"] == "private, no-store"
    with_header = client.get("/v1/games/g1", headers={"Authorization": f"Bearer {SECRET}"})
    assert referee.calls[-1].caller.token == SECRET
    assert "no-store" not in with_header.headers.get("cache-control", "")


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/v1/games/g1/moves"), ("GET", "/v1/rules/presets"), ("POST", "/v1/games")],
)
def test_other_routes_refuse_it_without_repeating_it(
    client: TestClient[Litestar], referee: FakeReferee, method: str, path: str
) -> None:
    response = client.request(
        method, path, params={QUERY_TOKEN_PARAMETER: SECRET}, json={} if method == "POST" else None
    )
    assert response.status_code == 400
    assert reason(response) == "INVALID_ARGUMENT"
    assert response.json()["error"]["details"][0]["metadata"] == {"parameter": "access_token"}
    assert SECRET not in response.text
    assert referee.calls == []


def test_one_way_at_a_time_and_one_token(
    client: TestClient[Litestar], referee: FakeReferee
) -> None:
    both = client.get(
        "/v1/games/g1",
        params={QUERY_TOKEN_PARAMETER: SECRET},
        headers={"Authorization": f"Bearer {SECRET}"},
    )
    assert (both.status_code, reason(both)) == (400, "INVALID_ARGUMENT")
    twice = client.get(f"/v1/games/g1?access_token={SECRET}&access_token={SECRET}")
    assert (twice.status_code, reason(twice)) == (400, "INVALID_ARGUMENT")
    empty = client.get("/v1/games/g1?access_token=")
    assert (empty.status_code, reason(empty)) == (401, "BAD_TOKEN")
    for response in (both, twice, empty):
        assert SECRET not in response.text
    assert referee.calls == []


def test_a_caller_s_repr_hides_its_secrets() -> None:
    caller = Caller(token=SECRET, api_key="key-value", request_id="r1", transport="http")
    assert SECRET not in repr(caller) and "key-value" not in repr(caller)
    assert "r1" in repr(caller)


def test_cors_preflight_of_the_event_stream_allows_a_reconnecting_event_source(
    client: TestClient[Litestar],
) -> None:
    # A reconnecting EventSource sends Last-Event-ID, which is not a CORS-safelisted header.
    response = client.options(
        "/v1/games/g1/events",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "last-event-id",
        },
    )
    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] == ORIGIN
    assert "last-event-id" in response.headers["access-control-allow-headers"].lower()
    assert "GET" in response.headers["access-control-allow-methods"]


def test_cors_headers_are_on_errors_too(client: TestClient[Litestar]) -> None:
    # A page's fetch() can only read a refusal's reason if the error response is shared too.
    response = client.get(
        "/v1/games/missing", params={QUERY_TOKEN_PARAMETER: SECRET}, headers={"Origin": ORIGIN}
    )
    assert response.status_code == 404
    assert response.headers["access-control-allow-origin"] == ORIGIN


async def test_an_event_source_from_another_origin_gets_the_stream(
    referee: FakeReferee,
) -> None:
    config = SimpleNamespace(cors_origins=[ORIGIN], sse_keepalive_seconds=0.5)
    async with (
        running(create_app(referee, config)) as url,
        httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http,
        http.stream(
            "GET",
            "/v1/games/g1/events",
            params={QUERY_TOKEN_PARAMETER: SECRET},
            # What an EventSource with withCredentials false sends: no credentials, no
            # custom header, just the page's origin.
            headers={"Origin": ORIGIN, "Accept": "text/event-stream"},
        ) as response,
    ):
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == ORIGIN
        assert "access-control-allow-credentials" not in response.headers  # no cookies
        assert response.headers["cache-control"] == "private, no-store"
        assert (await next_event(sse_events(response))).id == "3"
    assert referee.calls[-1].caller.token == SECRET


# The real referee ----------------------------------------------------------------------------


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    # A first item that takes its time must still come as an HTTP error, not an SSE one.
    app = create_app(Referee(MemoryStore()), SimpleNamespace(sse_first_item_seconds=30.0))
    async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client:
        yield client


async def create_game(http: httpx.AsyncClient) -> tuple[str, list[str]]:
    created = await http.post(
        "/v1/games", json={"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bo"]}
    )
    assert created.status_code == 200, created.text
    return created.json()["game"], created.json()["playerTokens"]


def dealt_hands(log: dict[str, Any]) -> list[list[str]]:
    return [e["roundDealt"]["hand"] for e in log["events"] if "roundDealt" in e]


async def test_a_query_token_gives_the_seat_s_own_view(http: httpx.AsyncClient) -> None:
    game, tokens = await create_game(http)
    as_seat = {QUERY_TOKEN_PARAMETER: tokens[1]}

    view = (await http.get(f"/v1/games/{game}", params=as_seat)).json()["view"]
    assert view["viewerSeat"] == 1 and len(view["hand"]) == 8

    async with http.stream("GET", f"/v1/games/{game}/events", params=as_seat) as response:
        assert response.status_code == 200
        first = (await next_event(sse_events(response))).json()["view"]
        assert isinstance(first, dict)
        assert first["viewerSeat"] == 1 and first["hand"] == view["hand"]

    log = (await http.get(f"/v1/games/{game}/log", params=as_seat)).json()
    # The last deal is the one in play (a deal check may have redealt: the game is random).
    assert dealt_hands(log)[-1] == view["hand"]
    spectators = (await http.get(f"/v1/games/{game}/log")).json()
    assert dealt_hands(spectators) == [[]] * len(dealt_hands(log))


async def test_a_bad_query_token_is_bad_token(http: httpx.AsyncClient) -> None:
    game, tokens = await create_game(http)
    forged = {QUERY_TOKEN_PARAMETER: tokens[0][::-1]}
    for path in (f"/v1/games/{game}", f"/v1/games/{game}/log"):
        response = await http.get(path, params=forged)
        assert (response.status_code, reason(response)) == (401, "BAD_TOKEN")
    async with http.stream("GET", f"/v1/games/{game}/events", params=forged) as response:
        await response.aread()
        assert (response.status_code, reason(response)) == (401, "BAD_TOKEN")


# The service as it runs: its logs -----------------------------------------------------------


async def _wait_until_up(http: httpx.AsyncClient, service: asyncio.Task[None]) -> None:
    async with asyncio.timeout(30):
        while True:
            assert not service.done(), "the service stopped"
            try:
                if (await http.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)


async def test_the_service_never_logs_a_query_token(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    config = Config(host="127.0.0.1", grpc_port=free_port(), http_port=free_port())
    stop = asyncio.Event()
    caplog.set_level(logging.DEBUG)
    with capture_logs() as lines:
        service = asyncio.create_task(serve(config, stop=stop))
        try:
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{config.http_port}", timeout=TIMEOUT
            ) as http:
                await _wait_until_up(http, service)
                game, tokens = await create_game(http)
                secrets = [*tokens, tokens[0][::-1]]
                for token in secrets:
                    query = {QUERY_TOKEN_PARAMETER: token}
                    await http.get(f"/v1/games/{game}", params=query)
                    await http.get(f"/v1/games/{game}/log", params=query)
                    await http.post(f"/v1/games/{game}/moves", params=query, json={})
                    async with http.stream(
                        "GET", f"/v1/games/{game}/events", params=query
                    ) as response:
                        if response.status_code == 200:
                            await next_event(sse_events(response))  # a view or an error
                        else:
                            await response.aread()
        finally:
            stop.set()
            await asyncio.wait_for(service, 30)
    out, err = capfd.readouterr()

    requests = [line for line in lines if line["event"] == "request"]
    seen = {(line["method"], line["seat"], line.get("reason", "")) for line in requests}
    # The capture works: the calls above are there, seats and refusals included. (A watch's
    # line is written when its stream is closed, which a client leaving does not wait for.)
    assert {("GetGame", 1, ""), ("GetGameLog", 0, ""), ("GetGame", "spectator", "BAD_TOKEN")} <= (
        seen
    )
    # The client's own loggers print its URLs (as a proxy would): only the server's count.
    records = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    for token in secrets:
        assert not [line for line in lines if token in repr(line)]
        assert not [r for r in records if token in r.getMessage() or token in str(r.args)]
        assert token not in out and token not in err
