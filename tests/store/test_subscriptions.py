"""The watchers' shared connection (``store/subscriptions.py``), on one server and a cluster.

Every watcher of a process is woken through one connection per server (per cluster node): as
many watchers as the games and the clients need, beyond the connection pool's size, each channel
subscribed once however many watchers follow it, and unsubscribed when the last one leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from hanafuda_referee.store import GameStore, StoreUnavailable, parse_store_url
from hanafuda_referee.store.keys import KeySpace

from .conftest import Backend, raw_client
from .test_contract import make_game, state

pytestmark = pytest.mark.asyncio


class _Server:
    """Questions about subscriptions, asked of the server (the node owning each channel)."""

    def __init__(self, client: Redis | RedisCluster, prefix: str) -> None:
        self.client = client
        self.keys = KeySpace(prefix)

    def channel(self, game_id: str) -> str:
        return self.keys.game(game_id).channel

    async def subscribers(self, game_id: str) -> int:
        """Connections subscribed to the game's channel (PUBSUB SHARDNUMSUB)."""
        channel = self.channel(game_id)
        if isinstance(self.client, RedisCluster):
            await self.client.initialize()
            node = self.client.get_node_from_key(channel)
            reply = await self.client.execute_command(
                "PUBSUB", "SHARDNUMSUB", channel, target_nodes=node
            )
            return int(reply[1])
        counts = await self.client.pubsub_shardnumsub(channel)
        return int(counts[0][1])

    async def eventually(self, game_id: str, expected: int) -> None:
        """Wait (5 s at most) until the game's channel has ``expected`` subscribers: an
        unsubscription is sent when the last watcher leaves, not waited for."""
        async with asyncio.timeout(5):
            while await self.subscribers(game_id) != expected:
                await asyncio.sleep(0.01)


@pytest_asyncio.fixture
async def server(redis_backend: Backend) -> AsyncIterator[_Server]:
    assert redis_backend.url is not None
    async with raw_client(redis_backend.url) as client:
        yield _Server(client, redis_backend.prefix)


async def _follow(store: GameStore, game_id: str, last: int, seen: asyncio.Event) -> list[int]:
    """The versions a watcher sees of ``game_id`` from its creation up to ``last``; ``seen``
    is set once it has read the game (its subscription is then in effect)."""
    versions = []
    async for entry in store.watch(game_id, -1):
        versions.append(entry.version)
        seen.set()
        if entry.version == last:
            break
    return versions


async def test_more_watchers_than_pooled_connections_share_one_subscription_per_game(
    redis_backend: Backend, server: _Server
) -> None:
    # Before, each watcher held a connection of a pool of 256: the 257th failed.
    store = redis_backend.open(watch_block=60)
    assert redis_backend.settings.max_connections == 256
    games = [await make_game(store, f"game-{n}") for n in range(13)]
    last = 3
    watching: list[asyncio.Event] = []
    followers = []
    for game_id in games:
        for _ in range(20):
            seen = asyncio.Event()
            watching.append(seen)
            followers.append(asyncio.create_task(_follow(store, game_id, last, seen)))
    try:
        async with asyncio.timeout(20):
            for seen in watching:
                await seen.wait()
        assert {await server.subscribers(game_id) for game_id in games} == {1}
        for version in range(1, last + 1):
            for game_id in games:
                await store.commit(game_id, version - 1, state(version), [], None, b"")
        # Woken by the commits themselves: the periodic wake-up is a minute away.
        results = await asyncio.wait_for(asyncio.gather(*followers), 20)
    finally:
        for follower in followers:
            follower.cancel()
    assert results == [list(range(last + 1))] * 260
    for game_id in games:
        await server.eventually(game_id, 0)


async def test_a_watcher_leaving_leaves_the_others_woken(
    redis_backend: Backend, server: _Server
) -> None:
    store = redis_backend.open(watch_block=60)
    await make_game(store)
    seen_first, seen_second = asyncio.Event(), asyncio.Event()
    leaving = asyncio.create_task(_follow(store, "g1", 10, seen_first))
    staying = asyncio.create_task(_follow(store, "g1", 3, seen_second))
    try:
        await asyncio.wait_for(asyncio.gather(seen_first.wait(), seen_second.wait()), 10)
        leaving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await leaving
        assert await server.subscribers("g1") == 1
        for version in range(1, 4):
            await store.commit("g1", version - 1, state(version), [], None, b"")
        assert await asyncio.wait_for(staying, 10) == [0, 1, 2, 3]
    finally:
        leaving.cancel()
        staying.cancel()
    await server.eventually("g1", 0)


async def test_a_game_followed_again_after_its_last_watcher_left_is_woken(
    redis_backend: Backend, server: _Server
) -> None:
    """A watcher that arrives while the channel is being unsubscribed gets a subscription of
    its own, not the one being undone."""
    store = redis_backend.open(watch_block=60)
    await make_game(store)
    for round_number in range(5):
        seen = asyncio.Event()
        first = asyncio.create_task(_follow(store, "g1", 10**6, seen))
        await asyncio.wait_for(seen.wait(), 10)
        first.cancel()  # the channel's last watcher leaves: an unsubscription goes out...
        with contextlib.suppress(asyncio.CancelledError):
            await first
        # ...and at once a new watcher comes.
        seen_again = asyncio.Event()
        version = round_number + 1
        again = asyncio.create_task(_follow(store, "g1", version, seen_again))
        try:
            await asyncio.wait_for(seen_again.wait(), 10)
            await store.commit("g1", version - 1, state(version), [], None, b"")
            assert (await asyncio.wait_for(again, 10))[-1] == version
        finally:
            again.cancel()
    await server.eventually("g1", 0)


async def test_the_watchers_of_a_game_share_their_reads(redis_backend: Backend) -> None:
    """A commit wakes all of a game's watchers at once, and they share one read of the log: on
    a cluster (where reads are not batched) forty watchers woken together need no more than the
    few pooled connections each node has here."""
    store = redis_backend.open(max_connections=4, watch_block=60)
    await make_game(store)
    last = 4
    watching = [asyncio.Event() for _ in range(40)]
    followers = [asyncio.create_task(_follow(store, "g1", last, seen)) for seen in watching]
    try:
        async with asyncio.timeout(10):
            for seen in watching:
                await seen.wait()
        for version in range(1, last + 1):
            await store.commit("g1", version - 1, state(version), [], None, b"")
        results = await asyncio.wait_for(asyncio.gather(*followers), 10)
    finally:
        for follower in followers:
            follower.cancel()
    assert results == [list(range(last + 1))] * 40


async def _command(client: Redis, *args: object) -> Any:
    return await cast(Any, client).execute_command(*args)


async def _move_slot(cluster_url: str, key: str) -> None:
    """Move ``key``'s slot and its keys to another primary, as a resharding does."""
    redis_url, _ = parse_store_url(cluster_url)
    async with Redis.from_url(redis_url) as first:
        reply = await _command(first, "CLUSTER", "NODES")
    text = reply.decode() if isinstance(reply, bytes) else str(reply)
    slot = key_slot(key.encode())
    primaries: dict[str, int] = {}
    source = ""
    for line in text.splitlines():
        node_id, address, flags, *rest = line.split()
        if "master" not in flags:
            continue
        primaries[node_id] = int(address.split("@")[0].rsplit(":", 1)[1])
        for served in rest[5:]:
            first_slot, _, last_slot = served.partition("-")
            if first_slot.isdigit() and int(first_slot) <= slot <= int(last_slot or first_slot):
                source = node_id
    target = next(node_id for node_id in primaries if node_id != source)
    clients = {node_id: Redis(port=port) for node_id, port in primaries.items()}
    try:
        await _command(clients[target], "CLUSTER", "SETSLOT", slot, "IMPORTING", source)
        await _command(clients[source], "CLUSTER", "SETSLOT", slot, "MIGRATING", target)
        while keys := await _command(clients[source], "CLUSTER", "GETKEYSINSLOT", slot, 100):
            await _command(
                clients[source],
                "MIGRATE",
                "127.0.0.1",
                primaries[target],
                "",
                0,
                5000,
                "KEYS",
                *keys,
            )
        for client in clients.values():
            await _command(client, "CLUSTER", "SETSLOT", slot, "NODE", target)
    finally:
        for client in clients.values():
            await client.aclose()


async def test_watchers_follow_a_game_whose_slot_moved_to_another_node(cluster_url: str) -> None:
    """The server ends a moved slot's subscriptions: the watchers fail, and resume on the node
    that now holds the game, woken there by its commits (the periodic wake-up is a minute
    away)."""
    backend = Backend("cluster", cluster_url)
    try:
        store = backend.open(watch_block=60)
        game_id = await make_game(store, f"moving-{uuid.uuid4().hex[:12]}")
        seen: list[int] = []
        failures = 0

        async def follow() -> None:
            # A client that resumes from its last version after each failure, as it should.
            nonlocal failures
            while True:
                try:
                    async for entry in store.watch(game_id, seen[-1] if seen else -1):
                        seen.append(entry.version)
                        if entry.version == 3:
                            return
                except StoreUnavailable:
                    failures += 1
                    await asyncio.sleep(0.05)

        follower = asyncio.create_task(follow())
        try:
            async with asyncio.timeout(10):
                while seen != [0]:
                    await asyncio.sleep(0.01)
                await store.commit(game_id, 0, state(1), [], None, b"")
                while seen != [0, 1]:
                    await asyncio.sleep(0.01)
            await _move_slot(cluster_url, KeySpace(backend.prefix).game(game_id).game)
            for version in (2, 3):
                await store.commit(game_id, version - 1, state(version), [], None, b"")
            await asyncio.wait_for(follower, 10)
        finally:
            follower.cancel()
        assert seen == [0, 1, 2, 3]
        assert failures >= 1
    finally:
        await backend.cleanup()
