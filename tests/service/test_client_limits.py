"""What one client may hold (PLAY.md, "Limits"), in the hosting layer on the in-process store:
unfinished games, unfinished games with bot seats, expert seats per game, and no creation when
the store nears its memory limit. Each refusal has its reason and changes nothing."""

from __future__ import annotations

import asyncio

import pytest
from hanafuda.v1 import moves_pb2, play_pb2, rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.config import Config
from hanafuda_referee.hosting.limits import ClientLimits
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore, StoreSettings

PLAIN = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
WITH_BOT = service_pb2.CreateGameRequest(
    kind=rules_pb2.GAME_KIND_KOI_KOI,
    players=["a", "b"],
    bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_GREEDY],
)
ALICE = Caller(address="192.0.2.1")
BOB = Caller(address="192.0.2.2")


async def _refused(call: object, reason: str) -> ApiError:
    assert asyncio.iscoroutine(call)
    with pytest.raises(ApiError) as raised:
        await call
    assert raised.value.reason == reason, raised.value.message
    return raised.value


async def _resign(referee: Referee, created: service_pb2.CreateGameResponse) -> None:
    move = moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN)
    request = service_pb2.SubmitMoveRequest(game=created.game, move=move)
    await referee.SubmitMove(request, Caller(token=created.player_tokens[0]))


async def test_unfinished_games_per_client_and_a_finished_one_frees_its_place() -> None:
    store = MemoryStore()
    referee = Referee(store, client_limits=ClientLimits(unfinished_games=3, bot_games=0))
    games = [await referee.CreateGame(PLAIN, ALICE) for _ in range(3)]
    error = await _refused(referee.CreateGame(PLAIN, ALICE), "TOO_MANY_GAMES")
    assert (error.http_status, error.grpc_code.name) == (429, "RESOURCE_EXHAUSTED")
    assert error.metadata == {"limit": "3"}
    assert await store.count_games() == 3  # the refusal created nothing
    await referee.CreateGame(PLAIN, BOB)  # another client, its own places
    # A client's unchecked key is no new client.
    await _refused(
        referee.CreateGame(PLAIN, Caller(api_key="x", address="192.0.2.1")), "TOO_MANY_GAMES"
    )
    await _resign(referee, games[0])  # over: its place is free, nobody had to say so
    await referee.CreateGame(PLAIN, ALICE)
    await _refused(referee.CreateGame(PLAIN, ALICE), "TOO_MANY_GAMES")
    await store.delete(games[1].game)  # gone (as an expired game is)
    await referee.CreateGame(PLAIN, ALICE)


async def test_games_with_bot_seats_have_a_smaller_cap() -> None:
    referee = Referee(MemoryStore(), client_limits=ClientLimits(unfinished_games=4, bot_games=2))
    bot_games = [await referee.CreateGame(WITH_BOT, ALICE) for _ in range(2)]
    error = await _refused(referee.CreateGame(WITH_BOT, ALICE), "TOO_MANY_BOT_GAMES")
    assert error.metadata == {"limit": "2"}
    await referee.CreateGame(PLAIN, ALICE)  # a game without bots still has a place
    await referee.CreateGame(WITH_BOT, BOB)
    await _resign(referee, bot_games[0])
    await referee.CreateGame(WITH_BOT, ALICE)
    await referee.CreateGame(PLAIN, ALICE)
    await _refused(referee.CreateGame(PLAIN, ALICE), "TOO_MANY_GAMES")  # 4 unfinished


async def test_racing_creations_of_one_client_never_pass_its_cap() -> None:
    store = MemoryStore()
    referee = Referee(store, client_limits=ClientLimits(unfinished_games=5, bot_games=0))
    outcomes = await asyncio.gather(
        *(referee.CreateGame(PLAIN, ALICE) for _ in range(20)), return_exceptions=True
    )
    created = [o for o in outcomes if isinstance(o, service_pb2.CreateGameResponse)]
    refused = [o for o in outcomes if isinstance(o, ApiError)]
    assert len(created) == 5 and len(refused) == 15
    assert {e.reason for e in refused} == {"TOO_MANY_GAMES"}
    assert await store.count_games() == 5


async def test_expert_seats_per_game() -> None:
    referee = Referee(MemoryStore(), client_limits=ClientLimits(expert_seats=1))
    expert, greedy, none = (
        play_pb2.BOT_LEVEL_EXPERT,
        play_pb2.BOT_LEVEL_GREEDY,
        play_pb2.BOT_LEVEL_UNSPECIFIED,
    )
    hachi = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI, players=["a", "b", "c"], bots=[none, expert, expert]
    )
    error = await _refused(referee.CreateGame(hachi, ALICE), "TOO_MANY_EXPERT_SEATS")
    assert (error.http_status, error.metadata) == (400, {"limit": "1"})
    del hachi.bots[:]
    hachi.bots.extend([none, expert, greedy])
    await referee.CreateGame(hachi, ALICE)


class _NearlyFull(MemoryStore):
    """An in-process store that says its memory is at ``used`` of 1,000 bytes."""

    used = 950

    async def memory_use(self) -> tuple[int, int] | None:
        return (self.used, 1000)


async def test_near_the_memory_limit_creations_stop_and_games_play_on() -> None:
    store = _NearlyFull()
    store.used = 100
    referee = Referee(store, memory_ceiling=0.9)
    created = await referee.CreateGame(PLAIN, ALICE)
    store.used = 900
    referee.games.admission._memory_read_at = float("-inf")  # no waiting for the next reading
    error = await _refused(referee.CreateGame(PLAIN, BOB), "STORE_FULL")
    assert (error.http_status, error.grpc_code.name) == (503, "RESOURCE_EXHAUSTED")
    assert error.metadata == {"retry_after_seconds": "30"}
    assert await store.count_games() == 1
    await _resign(referee, created)  # the games in progress play on
    # The reading is kept for a second: no INFO per request.
    store.used = 0
    await _refused(referee.CreateGame(PLAIN, BOB), "STORE_FULL")


async def test_the_in_process_store_at_its_game_limit_refuses_with_store_full() -> None:
    referee = Referee(MemoryStore(StoreSettings(max_games=1)))
    await referee.CreateGame(PLAIN, ALICE)
    await _refused(referee.CreateGame(PLAIN, BOB), "STORE_FULL")


def test_the_settings() -> None:
    config = Config.load(None, {})
    assert (
        config.max_client_games,
        config.max_client_bot_games,
        config.max_expert_seats,
        config.creation_memory_ceiling,
    ) == (50, 5, 2, 0.9)
    config = Config.load(
        None,
        {
            "HANAFUDA_MAX_CLIENT_GAMES": "0",
            "HANAFUDA_MAX_CLIENT_BOT_GAMES": "1",
            "HANAFUDA_MAX_EXPERT_SEATS": "3",
            "HANAFUDA_CREATION_MEMORY_CEILING": "0.5",
        },
    )
    assert (config.max_client_games, config.max_client_bot_games) == (0, 1)
    assert (config.max_expert_seats, config.creation_memory_ceiling) == (3, 0.5)
    with pytest.raises(ValueError, match="must not be negative"):
        Config.load(None, {"HANAFUDA_MAX_CLIENT_GAMES": "-1"})
    for bad in ("0", "1.5"):
        with pytest.raises(ValueError, match="memory ceiling"):
            Config.load(None, {"HANAFUDA_CREATION_MEMORY_CEILING": bad})
    with pytest.raises(ValueError, match="negative"):
        ClientLimits(unfinished_games=-1)


async def test_spectators_per_client_count_by_the_same_identity() -> None:
    """The watcher cap per client names clients as every other per-client limit: the
    addresses of one IPv6 /64 are one client, a key nobody checks names nobody."""
    referee = Referee(MemoryStore(), watchers_per_client=2)
    created = await referee.CreateGame(PLAIN, ALICE)
    request = service_pb2.WatchGameRequest(game=created.game)
    streams = [
        referee.WatchGame(request, Caller(address="2001:db8:0:1::1")),
        referee.WatchGame(request, Caller(address="2001:db8:0:1::2", api_key="k")),
    ]
    for stream in streams:
        await anext(stream)
    error = await _refused(
        anext(referee.WatchGame(request, Caller(address="2001:db8:0:1:ffff::3"))), "UNAVAILABLE"
    )
    assert error.metadata == {"limit": "watchers_per_client"}
    other = referee.WatchGame(request, Caller(address="2001:db8:0:2::1"))
    await anext(other)
    for stream in [*streams, other]:
        await stream.aclose()
