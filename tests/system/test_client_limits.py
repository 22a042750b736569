"""What one client may hold (PLAY.md, "Limits"), through real server processes on Redis:

- the caps on unfinished games and on games with bot seats hold across two replicas, racing
  creations included, and a game that is over (resigned) frees its place;
- a Redis of the test's own with a small ``maxmemory``: past the creation memory ceiling,
  creations are refused ``STORE_FULL`` while the moves of the games in progress still commit,
  and no key is evicted;
- a move refused ``STALE_VERSION`` because a timeout took its decision says what was taken.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from hanafuda.v1 import moves_pb2, play_pb2, rules_pb2, service_pb2

from tests.store.servers import REDIS_SERVER, private_server

from .clients import Client, Refused, open_client, refusal_of
from .conftest import redis_env
from .processes import RefereeProcess

PLAIN = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"])
WITH_BOT = service_pb2.CreateGameRequest(
    kind=rules_pb2.GAME_KIND_KOI_KOI,
    players=["ann", "bob"],
    bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_GREEDY],
)
RESIGN = moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN)


@pytest.fixture
def capped_pair(tmp_path: Path, key_prefix: str) -> Iterator[tuple[RefereeProcess, RefereeProcess]]:
    env = {
        **redis_env(key_prefix),
        "HANAFUDA_MAX_CLIENT_GAMES": "4",
        "HANAFUDA_MAX_CLIENT_BOT_GAMES": "2",
    }
    with (
        RefereeProcess(tmp_path, env=env, allow_testing=False, name="replica-a") as first,
        RefereeProcess(tmp_path, env=env, allow_testing=False, name="replica-b") as second,
    ):
        yield first, second


async def _refused(call: object, reason: str) -> Refused:
    assert asyncio.iscoroutine(call)
    refusal = await refusal_of(call)
    assert refusal.reason == reason, refusal
    return refusal


async def test_the_caps_hold_across_replicas_and_a_game_over_frees_its_place(
    capped_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    a, b = capped_pair
    async with open_client("http", a) as on_a, open_client("grpc", b) as on_b:
        first_bot = await on_a.create(WITH_BOT)
        await on_b.create(WITH_BOT)
        refusal = await _refused(on_a.create(WITH_BOT), "TOO_MANY_BOT_GAMES")
        assert refusal.http_status == 429 and refusal.metadata == {"limit": "2"}
        await _refused(on_b.create(WITH_BOT), "TOO_MANY_BOT_GAMES")
        await on_b.create(PLAIN)
        await on_a.create(PLAIN)  # four unfinished games, two of them with a bot
        refusal = await _refused(on_b.create(PLAIN), "TOO_MANY_GAMES")
        assert refusal.metadata == {"limit": "4"}
        await _refused(on_a.create(PLAIN), "TOO_MANY_GAMES")
        # Resigned on one replica: over, so its place is free on the other, nobody said so.
        await on_b.submit(first_bot.game, RESIGN, first_bot.player_tokens[0])
        await on_a.create(WITH_BOT)
        await _refused(on_b.create(PLAIN), "TOO_MANY_GAMES")


async def test_racing_creations_on_two_replicas_never_pass_the_cap(
    capped_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    a, b = capped_pair
    async with open_client("http", a) as on_a, open_client("grpc", b) as on_b:
        clients: list[Client] = [on_a, on_b]
        outcomes = await asyncio.gather(
            *(clients[n % 2].create(PLAIN) for n in range(16)), return_exceptions=True
        )
    created = [o for o in outcomes if isinstance(o, service_pb2.CreateGameResponse)]
    refused = [o for o in outcomes if isinstance(o, Refused)]
    assert len(created) == 4, outcomes
    assert len(refused) == 12 and {r.reason for r in refused} == {"TOO_MANY_GAMES"}


def _memory(client: redis.Redis) -> tuple[int, int]:
    info = client.info("memory")
    return int(info["used_memory"]), int(client.info("stats")["evicted_keys"])


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
async def test_near_maxmemory_creations_stop_games_play_on_and_nothing_is_evicted(
    tmp_path: Path,
) -> None:
    with private_server(tmp_path / "redis", ["--maxmemory-policy", "noeviction"]) as server:
        raw = redis.Redis.from_url(server.url)
        env = {"REDIS_URL": server.url, "HANAFUDA_CREATION_MEMORY_CEILING": "0.7"}
        try:
            with RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
                async with (
                    open_client("http", referee) as http,
                    open_client("grpc", referee) as grpc_client,
                ):
                    games = [await http.create(PLAIN) for _ in range(4)]
                    keys_before = raw.dbsize()
                    used, _ = _memory(raw)
                    # The memory limit set above what is used now, past the ceiling (70%), with
                    # room for the moves. The server's own share is large here (a megabyte for
                    # a few games): the room is a fifth of it, some 200 KB.
                    raw.config_set("maxmemory", int(used / 0.8))
                    time.sleep(1.1)  # the referee's reading of INFO is at most a second old
                    for client in (http, grpc_client):
                        refusal = await _refused(client.create(PLAIN), "STORE_FULL")
                        assert refusal.metadata == {"retry_after_seconds": "30"}
                        assert refusal.http_status == (503 if client is http else None)
                    # Every game in progress plays on: a move of each commits.
                    for created in games:
                        seat = created.view.turn
                        token = created.player_tokens[seat]
                        own = await grpc_client.view(created.game, token)
                        answer = await grpc_client.submit(
                            created.game,
                            own.legal_moves[0],
                            token,
                            expected_version=own.version,
                        )
                        assert answer.view.version > own.version
                    assert raw.dbsize() == keys_before
                    assert _memory(raw)[1] == 0  # no key evicted
                    # Room again: creations come back, with no restart.
                    raw.config_set("maxmemory", 0)
                    time.sleep(1.1)
                    await http.create(PLAIN)
        finally:
            raw.close()


async def test_a_stale_move_after_a_timeout_says_what_was_taken(tmp_path: Path) -> None:
    env = {**redis_env("unused:"), "HANAFUDA_SWEEP_INTERVAL": "0.1"}
    env.pop("REDIS_URL")  # the in-process store: one process, its sweeper applies timeouts
    env.pop("HANAFUDA_KEY_PREFIX")
    with RefereeProcess(tmp_path, env=env) as referee:
        for transport in ("http", "grpc"):
            async with open_client(transport, referee) as client:
                request = service_pb2.CreateGameRequest()
                request.CopyFrom(PLAIN)
                request.clock.move_seconds = 1
                created = await client.create(request)
                seat = created.view.turn
                token = created.player_tokens[seat]
                own = await client.view(created.game, token)
                deadline = time.monotonic() + 5
                while (await client.view(created.game)).version == own.version:
                    assert time.monotonic() < deadline, "no timeout was applied"
                    await asyncio.sleep(0.05)
                refusal = await _refused(
                    client.submit(
                        created.game, own.legal_moves[0], token, expected_version=own.version
                    ),
                    "STALE_VERSION",
                )
                assert refusal.metadata["taken"].startswith("play "), refusal
                assert int(refusal.metadata["current_version"]) > own.version
                assert refusal.metadata["taken"] in refusal.message
