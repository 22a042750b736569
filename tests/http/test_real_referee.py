"""The HTTP transport over the real Referee on its in-process store: a game created, read,
played, refused and watched over Server-Sent Events, end to end through JSON."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http.app import create_app
from hanafuda_referee.store import MemoryStore

from .live import next_event, running, sse_events


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Referee(MemoryStore()))
    async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=5.0) as client:
        yield client


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_koikoi_game_over_http(http: httpx.AsyncClient) -> None:
    assert (await http.get("/readyz")).status_code == 200
    created = await http.post(
        "/v1/games", json={"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bo"]}
    )
    assert created.status_code == 200, created.text
    game: str = created.json()["game"]
    tokens: list[str] = created.json()["playerTokens"]
    assert len(tokens) == 2
    assert created.json()["view"]["version"] == "1"
    assert created.json()["view"]["hand"] == []  # a spectator's view: no hand, but the key

    spectator: dict[str, Any] = (await http.get(f"/v1/games/{game}")).json()["view"]
    turn: int = spectator["turn"]
    seat_view = (await http.get(f"/v1/games/{game}", headers=bearer(tokens[turn]))).json()["view"]
    assert len(seat_view["hand"]) == 8
    move = seat_view["legalMoves"][0]

    async with http.stream(
        "GET", f"/v1/games/{game}/events", headers=bearer(tokens[turn])
    ) as stream:
        events = sse_events(stream)
        first = await next_event(events)
        assert first.id == "1"

        played = await http.post(
            f"/v1/games/{game}/moves",
            json={"move": move, "expectedVersion": "1"},
            headers=bearer(tokens[turn]),
        )
        assert played.status_code == 200, played.text
        assert played.json()["version"] == "2"

        live = await next_event(events)
        assert live.id == "2"
        assert live.json()["events"]  # the move's events, as this seat sees them

    # The same move again is stale: 409 ABORTED with the current version.
    again = await http.post(
        f"/v1/games/{game}/moves",
        json={"move": move, "expectedVersion": "1"},
        headers=bearer(tokens[turn]),
    )
    assert again.status_code == 409
    details = again.json()["error"]["details"][0]
    assert (details["reason"], details["metadata"]["current_version"]) == ("STALE_VERSION", "2")

    # A reconnecting EventSource resumes after the last id it saw.
    async with http.stream(
        "GET", f"/v1/games/{game}/events", headers={"Last-Event-ID": "1"}
    ) as stream:
        replayed = await next_event(sse_events(stream))
        assert replayed.id == "2"

    unknown = await http.get("/v1/games/no-such-game/events")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["details"][0]["reason"] == "UNKNOWN_GAME"
