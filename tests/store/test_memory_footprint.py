"""Redis memory per in-progress Koi-Koi game, on a throwaway server at its default settings.

The game is the real thing: created through the service layer (a Referee on a RedisStore, in this
process) with the default rules and a seed, then played for about half a round -- ten moves, each
with a request id of the longest length the API allows, as a careful client sends them -- so every
answer is still within its time-to-live. The server is started with no memory setting changed.

Measured two ways: the growth of ``used_memory`` per game over many games (what the server really
allocates, keyspace and expiry entries included: the budgeted number) and MEMORY USAGE of one
game's keys (Redis's own estimate). Run with ``-s`` to see the numbers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from hanafuda.v1 import rules_pb2, service_pb2
from redis.asyncio import Redis

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import Committed, Duplicate, RedisStore, StoreSettings

from .servers import REDIS_SERVER, ServerProcess, free_port

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed"),
]

BUDGET = 2048
GAMES = 200
MOVES = 10
#: The longest request id the API accepts: the store keeps a digest, so its length must not count.
REQUEST_ID_LENGTH = 64


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path, free_port())
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest_asyncio.fixture
async def raw(server: ServerProcess) -> AsyncIterator[Redis]:
    client = Redis.from_url(server.url)
    try:
        yield client
    finally:
        await client.aclose()


async def play_half_a_round(referee: Referee, seed: int) -> str:
    """Create a seeded default Koi-Koi game and play MOVES moves, each with a request id."""
    created = await referee.CreateGame(
        service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI, players=["Ann", "Bob"], seed=seed
        ),
        Caller(transport="test"),
    )
    game, tokens = created.game, created.player_tokens
    turn = created.view.turn
    for n in range(MOVES):
        # Each seat reads its own view (reads write nothing) and plays its first legal move.
        seat = Caller(token=tokens[turn], transport="test")
        view = (await referee.GetGame(service_pb2.GetGameRequest(game=game), seat)).view
        request_id = f"{seed:06d}-{n:03d}-".ljust(REQUEST_ID_LENGTH, "x")
        answer = await referee.SubmitMove(
            service_pb2.SubmitMoveRequest(
                game=game, move=view.legal_moves[0], request_id=request_id
            ),
            seat,
        )
        assert answer.version == n + 2
        turn = answer.view.turn
    return game


async def test_an_in_progress_koikoi_game_costs_under_2_kb(
    server: ServerProcess, raw: Redis
) -> None:
    store = RedisStore.connect(server.url, StoreSettings(key_prefix="hf:"))
    referee = Referee(store, allow_testing=True)
    try:
        # One game first, so one-off allocations (scripts cache, connections) are not counted.
        await play_half_a_round(referee, 0)
        before = (await raw.info("memory"))["used_memory"]
        games = [await play_half_a_round(referee, seed) for seed in range(1, GAMES + 1)]
        after = (await raw.info("memory"))["used_memory"]
        keys = store.keys_of(games[0])
        usage = {key: await raw.memory_usage(key, samples=0) or 0 for key in keys.all()}
        answers_encoding = await raw.object("encoding", keys.answers)
    finally:
        await store.close()
    per_game = (after - before) / GAMES
    print(
        f"\nKoi-Koi game after {MOVES} moves with request ids: used_memory/game={per_game:.0f} B, "
        f"MEMORY USAGE={sum(usage.values())} B ({usage})"
    )
    assert per_game < BUDGET
    assert sum(usage.values()) < BUDGET
    # Request ids are kept as fixed-size digests: the answers stay in the compact encoding.
    assert answers_encoding == b"listpack"


async def test_expired_answers_are_pruned_from_a_game_that_keeps_moving(
    server: ServerProcess, raw: Redis
) -> None:
    """Answers older than their ttl are dropped when the hash reaches 16 fields, so a long game
    played fast holds the answers of the last ttl, not those of its whole life."""
    ttl = 4.0
    store = RedisStore.connect(server.url, StoreSettings(key_prefix="hf:", answer_ttl=ttl))
    try:
        await store.create("g", b"s", b"m", [])
        answers = store.keys_of("g").answers
        for version in range(15):
            result = await store.commit("g", version, b"s", [], f"old-{version}", b"")
            assert result == Committed(version + 1)
        old_done = time.monotonic()
        assert await raw.hlen(answers) == 15
        # The 16th answer, half a ttl later, keeps the hash alive past the first 15's expiry.
        await _sleep_until(old_done + ttl / 2)
        assert await store.commit("g", 15, b"s", [], "middle", b"") == Committed(16)
        middle_done = time.monotonic()
        assert await raw.hlen(answers) == 16
        # Once the first 15 have expired (and the 16th has not), the next answer prunes them.
        await _sleep_until(old_done + ttl + 0.75)
        if time.monotonic() > middle_done + ttl - 0.5:
            pytest.skip("the machine stalled for seconds: the 16th answer may have expired too")
        assert await store.commit("g", 16, b"s", [], "new", b"") == Committed(17)
        assert await raw.hlen(answers) == 2
        assert await store.commit("g", 0, b"", [], "middle", b"") == Duplicate(b"", 16)
    finally:
        await store.close()


async def _sleep_until(deadline: float) -> None:
    await asyncio.sleep(max(0.0, deadline - time.monotonic()))
