"""Fixtures of the store tests: real Redis servers and one ``backend`` per store kind.

Every contract test runs three times: against the in-memory store, a RedisStore on a single
server (the one on 127.0.0.1:6379 if it answers, else one started here) and a RedisStore on a
three-master Redis Cluster started here on free loopback ports. Each test uses its own key prefix
``test-<uuid>:`` and deletes every key under it afterwards, so the shared server keeps nothing.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from hanafuda_referee.store import GameStore, StoreSettings, open_store, parse_store_url

from .servers import REDIS_SERVER, ClusterProcesses, ServerProcess, free_port, port_answers

SHARED_REDIS_PORT = 6379


class FakeClock:
    """A monotonic clock that only moves when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Backend:
    """One kind of store under test, able to open stores that share its data and key prefix."""

    kind: str
    url: str | None
    prefix: str = field(default_factory=lambda: f"test-{uuid.uuid4().hex}:")
    clock: FakeClock | None = None
    opened: list[GameStore] = field(default_factory=list)
    settings: StoreSettings = field(init=False)

    def __post_init__(self) -> None:
        # Short watch wake-ups keep "the watcher notices a deleted game" tests fast.
        self.settings = StoreSettings(key_prefix=self.prefix, watch_block=0.2)
        if self.url is None:
            self.clock = FakeClock()

    @property
    def is_redis(self) -> bool:
        return self.url is not None

    def open(self, **overrides: Any) -> GameStore:
        """A new store on this backend's data (memory: a new, empty process-local store)."""
        store = open_store(self.url, replace(self.settings, **overrides), clock=self.clock)
        self.opened.append(store)
        return store

    def replica(self, store: GameStore) -> GameStore:
        """A second store that sees ``store``'s games, as another service replica would.

        For Redis that is a second client; in memory only the same object shares the data.
        """
        return self.open() if self.is_redis else store

    async def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass for the store: the fake clock in memory, real time on Redis."""
        if self.clock is not None:
            self.clock.advance(seconds)
            await asyncio.sleep(0)
        else:
            await asyncio.sleep(seconds)

    async def raw_keys(self) -> list[bytes]:
        """Every key under this backend's prefix, straight from Redis (all primaries)."""
        assert self.url is not None
        async with raw_client(self.url) as client:
            return await _scan(client, self.prefix.encode() + b"*")

    async def cleanup(self) -> None:
        for store in self.opened:
            await store.close()
        if self.url is None:
            return
        async with raw_client(self.url) as client:
            for key in await _scan(client, self.prefix.encode() + b"*"):
                await client.delete(key)


class raw_client:  # noqa: N801 - used like a function: `async with raw_client(url)`
    def __init__(self, url: str) -> None:
        redis_url, cluster = parse_store_url(url)
        self.client: Redis | RedisCluster = (
            RedisCluster.from_url(redis_url) if cluster else Redis.from_url(redis_url)
        )

    async def __aenter__(self) -> Redis | RedisCluster:
        if isinstance(self.client, RedisCluster):
            # Before it learns the topology, a cluster client knows no primary: a scan of
            # "every primary" would read none and find nothing.
            await self.client.initialize()
        return self.client

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()


async def _scan(client: Redis | RedisCluster, pattern: bytes) -> list[bytes]:
    if isinstance(client, RedisCluster):
        keys: list[bytes] = []
        for node in client.get_primaries():
            keys.extend([key async for key in node_scan(client, node, pattern)])
        return keys
    return [key async for key in client.scan_iter(match=pattern, count=1000)]


async def node_scan(client: RedisCluster, node: Any, pattern: bytes) -> AsyncIterator[bytes]:
    """SCAN one cluster node."""
    cursor = 0
    while True:
        cursors, keys = await client.execute_command(
            "SCAN", cursor, "MATCH", pattern, "COUNT", 1000, target_nodes=node
        )
        for key in keys:
            yield key
        cursor = int(cursors[node.name])
        if cursor == 0:
            return


@pytest.fixture(scope="session")
def single_redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The shared server on 6379 if it answers, else a server started for this session."""
    if port_answers(SHARED_REDIS_PORT):
        yield f"redis://127.0.0.1:{SHARED_REDIS_PORT}/0"
        return
    if REDIS_SERVER is None:
        pytest.skip("no Redis on 127.0.0.1:6379 and redis-server is not installed")
    server = ServerProcess(tmp_path_factory.mktemp("redis-single"), free_port())
    server.start()
    try:
        yield server.url
    finally:
        server.stop()


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A three-master Redis Cluster started for this session (skipped without redis-server)."""
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed: cannot start a Redis Cluster")
    cluster = ClusterProcesses(Path(tmp_path_factory.mktemp("redis-cluster")))
    cluster.start()
    try:
        yield cluster.url
    finally:
        cluster.stop()


async def _backend_of(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """The store kind ``request.param``, with a fresh key prefix, cleaned up afterwards."""
    kind: str = request.param
    url: str | None = None
    if kind == "redis":
        url = request.getfixturevalue("single_redis_url")
    elif kind == "cluster":
        url = request.getfixturevalue("cluster_url")
    backend = Backend(kind, url)
    try:
        yield backend
    finally:
        await backend.cleanup()


@pytest_asyncio.fixture(params=["memory", "redis", "cluster"])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """Each store kind in turn, with a fresh key prefix, cleaned up afterwards."""
    async for backend in _backend_of(request):
        yield backend


@pytest_asyncio.fixture(params=["redis", "cluster"])
async def redis_backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """:func:`backend` on a Redis server, then on a Redis Cluster (not in memory)."""
    async for backend in _backend_of(request):
        yield backend


@pytest_asyncio.fixture
async def store(backend: Backend) -> GameStore:
    """A store of the current backend."""
    return backend.open()
