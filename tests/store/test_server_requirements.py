"""What the referee requires of its Redis, read from INFO: the sentences, and real servers that
meet the requirements or do not (a replica, an eviction policy, a node of a cluster)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from hanafuda_referee.store import RedisStore, StoreSettings, open_store
from hanafuda_referee.store.server_requirements import unmet

from .conftest import raw_client
from .servers import REDIS_SERVER, private_server

needs_redis_server = pytest.mark.skipif(
    REDIS_SERVER is None, reason="redis-server is not installed"
)

MET = {
    "redis_version": "7.0.15",
    "role": "master",
    "maxmemory": 0,
    "maxmemory_policy": "noeviction",
}


def test_a_server_meeting_every_requirement_has_nothing_said() -> None:
    assert unmet(MET) == []
    assert unmet({}) == []  # INFO without those fields: nothing to tell
    assert unmet({**MET, "redis_version": "7.2.4"}) == []
    assert unmet({**MET, "redis_version": "8.0.0-rc1"}) == []


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({"redis_version": "6.2.14"}, "Redis 6.2.14 is older than 7.0"),
        ({"redis_version": "6"}, "Redis 6 is older than 7.0"),
        ({"role": "slave"}, "this server is a replica"),
        ({"maxmemory": 1 << 30, "maxmemory_policy": "volatile-lru"}, "volatile-lru"),
        ({"maxmemory": 1, "maxmemory_policy": "allkeys-random"}, "allkeys-random"),
    ],
)
def test_each_unmet_requirement_is_one_sentence(fields: dict[str, object], sentence: str) -> None:
    (said,) = unmet({**MET, **fields})
    assert said.startswith(sentence) or sentence in said


def test_an_eviction_policy_without_a_memory_limit_evicts_nothing() -> None:
    assert unmet({**MET, "maxmemory": 0, "maxmemory_policy": "allkeys-lru"}) == []


async def _unmet_on(url: str) -> list[str]:
    store = open_store(url, StoreSettings())
    assert isinstance(store, RedisStore)
    try:
        return await store.unmet_requirements()
    finally:
        await store.close()


@needs_redis_server
async def test_a_default_server_meets_every_requirement(tmp_path: Path) -> None:
    with private_server(tmp_path) as server:
        assert await _unmet_on(server.url) == []


@needs_redis_server
async def test_a_server_that_may_evict_is_told(tmp_path: Path) -> None:
    extra = ["--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru"]
    with private_server(tmp_path, extra) as server:
        (said,) = await _unmet_on(server.url)
    assert said.startswith("maxmemory-policy allkeys-lru under a memory limit")


@needs_redis_server
async def test_a_replica_is_told(tmp_path: Path) -> None:
    with private_server(tmp_path / "primary") as primary:
        replica_of = ["--replicaof", "127.0.0.1", str(primary.port)]
        with private_server(tmp_path / "replica", replica_of) as replica:
            (said,) = await _unmet_on(replica.url)
    assert said.startswith("this server is a replica")


@pytest.fixture
async def evicting_node(cluster_url: str) -> AsyncIterator[str]:
    """One primary of the test cluster given a memory limit and an eviction policy (put back
    afterwards); its node name."""
    async with raw_client(cluster_url) as cluster:
        assert isinstance(cluster, RedisCluster)
        await cluster.initialize()
        node = cluster.get_primaries()[0]
    client = Redis(host=node.host, port=int(node.port))
    try:
        await client.config_set("maxmemory", "1gb")
        await client.config_set("maxmemory-policy", "volatile-lru")
        yield node.name
    finally:
        await client.config_set("maxmemory", "0")
        await client.config_set("maxmemory-policy", "noeviction")
        await client.aclose()


async def test_a_cluster_names_the_node_that_does_not_meet_them(
    cluster_url: str, evicting_node: str
) -> None:
    (said,) = await _unmet_on(cluster_url)
    assert said.startswith(f"{evicting_node}: maxmemory-policy volatile-lru")
