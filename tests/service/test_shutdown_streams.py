"""``WatchGame`` streams at shutdown, through the hosting layer on the in-process store: an open
stream ends at once with ``UNAVAILABLE`` (cause ``shutdown``), a stream opened during the
shutdown gets its first item and then the same end, and a stream cancelled for another reason
(its client left) is cancelled as before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest
from hanafuda.v1 import rules_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.closing import Closing
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.hosting.watching import watch_game
from hanafuda_referee.store import MemoryStore

from .conftest import SPECTATOR


async def _game(games: HostedGames) -> str:
    created = await games.create(
        service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["Ann", "Bob"]),
        SPECTATOR,
    )
    return created.game


def _watch(games: HostedGames, game: str) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
    return watch_game(games, service_pb2.WatchGameRequest(game=game), SPECTATOR)


async def _next(
    stream: AsyncGenerator[service_pb2.WatchGameResponse, None],
) -> service_pb2.WatchGameResponse:
    return await anext(stream)


async def test_an_open_stream_ends_with_unavailable_at_once_when_the_server_shuts_down() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    stream = _watch(games, await _game(games))
    await anext(stream)  # the current view
    following = asyncio.create_task(_next(stream))  # waits for a move nobody makes
    await asyncio.sleep(0.05)
    games.shut_down()
    with pytest.raises(ApiError) as ended:
        await asyncio.wait_for(following, 0.5)
    assert ended.value.reason == "UNAVAILABLE"
    assert dict(ended.value.metadata) == {"cause": "shutdown"}
    # The cancellation that ended it is answered: the task was not left cancelling.
    assert following.cancelling() == 0
    with pytest.raises(StopAsyncIteration):
        await anext(stream)


async def test_a_stream_opened_during_the_shutdown_gets_its_first_item_then_ends() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    game = await _game(games)
    games.shut_down()
    stream = _watch(games, game)
    first = await anext(stream)
    assert first.view.game == game
    with pytest.raises(ApiError) as ended:
        await asyncio.wait_for(anext(stream), 0.5)
    assert ended.value.reason == "UNAVAILABLE"


async def test_a_stream_cancelled_by_its_client_is_cancelled_not_ended() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    stream = _watch(games, await _game(games))
    await anext(stream)
    following = asyncio.create_task(_next(stream))
    await asyncio.sleep(0.05)
    following.cancel()
    with pytest.raises(asyncio.CancelledError):
        await following
    games.shut_down()  # nothing left to interrupt


async def test_an_await_that_finishes_is_not_interrupted() -> None:
    closing = Closing()
    assert await closing.interruptible(asyncio.sleep(0, "done")) == "done"
    closing.close()
    with pytest.raises(ApiError):
        await closing.interruptible(asyncio.sleep(0))
