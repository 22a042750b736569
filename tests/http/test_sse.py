"""WatchGame over Server-Sent Events, on a real uvicorn server (streaming and disconnects are
what an in-process test client fakes worst)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from hanafuda.v1 import service_pb2
from structlog.testing import capture_logs

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.http.app import create_app

from .fakes import FakeReferee
from .live import TIMEOUT, next_event, running, sse_events


@pytest.fixture
async def server(referee: FakeReferee) -> AsyncIterator[str]:
    config = SimpleNamespace(sse_keepalive_seconds=0.2, sse_first_item_seconds=0.2)
    async with running(create_app(referee, config)) as url:
        yield url


@pytest.fixture
async def http(server: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as client:
        yield client


async def test_each_item_is_one_event_with_the_version_as_id(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    async with http.stream("GET", "/v1/games/g1/events") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-request-id"]
        events = sse_events(response)
        first = await next_event(events)
        # Without a resume point the stream starts with the current view.
        assert (first.event, first.id) == ("message", "3")
        assert first.json()["version"] == "3"
        view = first.json()["view"]
        assert isinstance(view, dict)
        assert (view["game"], view["version"]) == ("g1", "3")
        assert first.json()["events"] == []  # canonical JSON with zero values emitted
        referee.publish()
        second = await next_event(events)
        assert second.id == "4"
        assert second.json()["version"] == "4"


async def test_from_version_replays_what_follows_it(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    async with http.stream("GET", "/v1/games/g1/events", params={"fromVersion": "1"}) as response:
        events = sse_events(response)
        assert [(await next_event(events)).id for _ in range(2)] == ["2", "3"]
    assert referee.calls[-1].request.from_version == 1  # type: ignore[attr-defined]


async def test_last_event_id_resumes_and_wins_over_the_query(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    # A reconnecting EventSource repeats its URL (fromVersion=0 here) and says in Last-Event-ID
    # how far it got: that is where it must resume.
    async with http.stream(
        "GET",
        "/v1/games/g1/events",
        params={"fromVersion": "0"},
        headers={"Last-Event-ID": "2"},
    ) as response:
        events = sse_events(response)
        event = await next_event(events)
        assert event.id == "3"
    assert referee.calls[-1].request.from_version == 2  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "header",
    # Beyond a uint64, a digit int() refuses, more digits than int() reads: once 500s.
    [b"three", b"-1", str(2**64).encode(), b"\xb2", b"9" * 5000],
    ids=["word", "negative", "too-large", "superscript-two", "too-long"],
)
async def test_a_bad_last_event_id_is_400(http: httpx.AsyncClient, header: bytes) -> None:
    with capture_logs() as logs:
        response = await http.get("/v1/games/g1/events", headers={b"Last-Event-ID": header})
    assert response.status_code == 400
    assert response.json()["error"]["status"] == "INVALID_ARGUMENT"
    (line,) = [line for line in logs if line["event"] == "request"]
    assert (line["method"], line["outcome"]) == ("WatchGame", "rejected")


async def test_the_largest_last_event_id_is_a_version(http: httpx.AsyncClient) -> None:
    largest = str(2**64 - 1)
    headers = {"Last-Event-ID": largest}
    async with http.stream("GET", "/v1/games/g1/events", headers=headers) as response:
        assert response.status_code == 200


async def test_a_quiet_stream_sends_keep_alive_comments(http: httpx.AsyncClient) -> None:
    async with http.stream("GET", "/v1/games/g1/events") as response:
        events = sse_events(response)
        await next_event(events)
        quiet = await next_event(events, keepalives=True)
        assert quiet.data == []
        assert quiet.comments == ["keep-alive"]


async def test_an_error_before_the_first_item_is_a_plain_http_error(
    http: httpx.AsyncClient,
) -> None:
    response = await http.get("/v1/games/missing/events")
    assert response.status_code == 404
    assert response.json()["error"]["details"][0]["reason"] == "UNKNOWN_GAME"


async def test_the_stream_ends_with_an_end_event_when_the_game_does(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    async with http.stream("GET", "/v1/games/g1/events") as response:
        events = sse_events(response)
        await next_event(events)
        referee.publish(over=True)
        assert (await next_event(events)).id == "4"
        end = await next_event(events)
        assert (end.event, end.id) == ("end", None)
        async with asyncio.timeout(TIMEOUT):
            rest = [event async for event in events]
        assert rest == []  # and the response is complete


async def test_a_client_disconnect_closes_the_referee_stream(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    async with http.stream("GET", "/v1/games/g1/events") as response:
        await next_event(sse_events(response))
        assert referee.watchers_closed == 0
    async with asyncio.timeout(TIMEOUT):
        while referee.watchers_closed == 0:
            await asyncio.sleep(0.02)
    assert referee.watchers_closed == 1


async def test_a_resume_at_the_head_starts_the_stream_before_any_item(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    # Nothing after version 3 yet: the response must start anyway (the fixture's first-item wait
    # is 0.2 s) and keep the connection alive until the next version comes.
    async with http.stream("GET", "/v1/games/g1/events", params={"fromVersion": "3"}) as response:
        assert response.status_code == 200
        events = sse_events(response)
        assert (await next_event(events, keepalives=True)).comments == ["keep-alive"]
        referee.publish()
        assert (await next_event(events)).id == "4"


class FailingStream:
    """A referee whose stream fails after its first item."""

    def __init__(self, failure: Exception) -> None:
        self.failure = failure

    async def WatchGame(  # noqa: N802 - named as the RPC
        self, request: service_pb2.WatchGameRequest, caller: Caller
    ) -> AsyncIterator[service_pb2.WatchGameResponse]:
        yield service_pb2.WatchGameResponse(version=1)
        raise self.failure


@pytest.mark.parametrize(
    ("failure", "status", "reason"),
    [
        (ApiError("UNAVAILABLE", "the store went away"), "UNAVAILABLE", "UNAVAILABLE"),
        (RuntimeError("secret internal detail"), "INTERNAL", "INTERNAL"),
    ],
    ids=["api-error", "crash"],
)
async def test_an_error_mid_stream_is_an_error_event_that_ends_it(
    failure: Exception, status: str, reason: str
) -> None:
    async with (
        running(create_app(FailingStream(failure))) as url,
        httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client,
        client.stream("GET", "/v1/games/g1/events") as response,
    ):
        assert response.status_code == 200  # already sent when the failure came
        events = sse_events(response)
        assert (await next_event(events)).id == "1"
        error = await next_event(events)
        assert error.event == "error"
        body = error.json()["error"]
        assert isinstance(body, dict)
        assert (body["status"], body["details"][0]["reason"]) == (status, reason)
        assert "secret" not in error.data[0]
        async with asyncio.timeout(TIMEOUT):
            assert [event async for event in events] == []


def _documented_frames() -> list[str]:
    """The frame kinds docs/api.md lists under "The event stream's frames"."""
    text = (Path(__file__).resolve().parents[2] / "docs/api.md").read_text()
    table = text.split("<!-- sse-frames -->", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    return [row.split("|")[1].strip() for row in rows[1:]]


def _kind_of(frame: list[str]) -> str:
    """A raw frame (its lines) read as docs/api.md describes the four kinds; fails on any
    other shape."""
    if frame == [": keep-alive"]:
        return "keep-alive"
    if frame == ["event: end", "data: {}"]:
        return "end"
    if len(frame) == 2 and frame[0] == "event: error" and frame[1].startswith("data: "):
        assert "error" in json.loads(frame[1].removeprefix("data: "))
        return "error"
    assert len(frame) == 2 and frame[0].startswith("id: ") and frame[1].startswith("data: "), frame
    update = json.loads(frame[1].removeprefix("data: "))
    assert update["version"] == frame[0].removeprefix("id: ")  # the id is the version
    return "update"


async def _raw_frames(response: httpx.Response) -> list[list[str]]:
    frames: list[list[str]] = []
    lines: list[str] = []
    async with asyncio.timeout(TIMEOUT):
        async for line in response.aiter_lines():
            if line:
                lines.append(line)
            elif lines:
                frames.append(lines)
                lines = []
    return frames


async def test_every_frame_is_one_the_docs_describe_and_each_they_describe_is_sent(
    http: httpx.AsyncClient, referee: FakeReferee
) -> None:
    """Issue 36: a client written from docs/api.md alone reads every frame right (the closing
    ``data: {}`` once read as an empty update)."""
    seen: list[str] = []
    async with http.stream("GET", "/v1/games/g1/events") as response:
        reading = asyncio.ensure_future(_raw_frames(response))
        await asyncio.sleep(0.5)  # quiet: keep-alives (every 0.2 s here)
        referee.publish(over=True)
        seen += [_kind_of(frame) for frame in await reading]
    async with (
        running(create_app(FailingStream(ApiError("UNAVAILABLE", "gone")))) as url,
        httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as client,
        client.stream("GET", "/v1/games/g1/events") as response,
    ):
        seen += [_kind_of(frame) for frame in await _raw_frames(response)]
    assert seen[-1] == "error" and "end" in seen and "keep-alive" in seen
    assert set(seen) == set(_documented_frames())
