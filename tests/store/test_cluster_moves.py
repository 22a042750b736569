"""Graceful failovers of a Redis Cluster's masters under many concurrent operations.

After ``CLUSTER FAILOVER``, every operation on a game of the master that handed over is answered
MOVED by it, and the cluster client follows to the new master. That must cost the operations in
flight on the other connections nothing: the client corrects its slot map from the answer and
never closes every connection to rediscover the cluster (redis-py's default does at every fifth
MOVED, which failed operations on every node with a cut connection).

What may still fail, on a loaded machine, is an operation the old master held (it stops taking
writes while its replica catches up) for longer than the socket timeout: that is a timeout.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from hanafuda_referee.store import GameStore, StoreSettings, StoreUnavailable, open_store
from tests.system.cluster import (
    CALM_NODE_TIMEOUT_MS,
    CLUSTER_TOOLS,
    FailoverCluster,
    replicated_cluster,
)

pytestmark = pytest.mark.skipif(
    not CLUSTER_TOOLS, reason="redis-server and redis-cli are needed for a Redis Cluster"
)

#: Games operated on at once, spread over the three masters by their ids.
LANES = 64
#: Graceful failovers, each of another master.
FAILOVERS = 3
#: Seconds of operations before each failover, and after the last.
BETWEEN = 0.5


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[FailoverCluster]:
    with replicated_cluster(tmp_path, CALM_NODE_TIMEOUT_MS) as started:
        yield started


@pytest_asyncio.fixture
async def store(cluster: FailoverCluster) -> AsyncIterator[GameStore]:
    store = open_store(cluster.url, StoreSettings(key_prefix=f"t-{uuid.uuid4().hex}:"))
    try:
        yield store
    finally:
        await store.close()


async def test_a_graceful_failover_cuts_no_connection_of_the_operations_in_flight(
    cluster: FailoverCluster, store: GameStore
) -> None:
    games = [uuid.uuid4().hex for _ in range(LANES)]
    for game in games:
        await store.create(game, b"s", b"m", [b"e"])
    causes: Counter[str] = Counter()
    done = asyncio.Event()

    async def lane(game: str) -> None:
        version = 0
        while not done.is_set():
            try:
                version = (await store.commit(game, version, b"s", [b"e"], None, b"")).version
                causes["ok"] += 1
            except StoreUnavailable as error:
                causes[type(error.__cause__).__name__] += 1
                # The commit may have been taken: read the version to go on from.
                record = None
                while record is None and not done.is_set():
                    try:
                        record = await store.load(game)
                    except StoreUnavailable as again:
                        causes[type(again.__cause__).__name__] += 1
                if record is not None:
                    version = record.version
            await asyncio.sleep(0.005)

    lanes = [asyncio.create_task(lane(game)) for game in games]
    try:
        for n in range(FAILOVERS):
            await asyncio.sleep(BETWEEN)
            # Another shard each time: see FailoverCluster.fail_over.
            await asyncio.to_thread(cluster.fail_over, cluster.masters()[n % 3])
        await asyncio.sleep(BETWEEN)
    finally:
        done.set()
        await asyncio.gather(*lanes)
    assert causes["ok"] > LANES * FAILOVERS, causes
    # Only a write the old master held past the socket timeout may have failed, as a timeout.
    assert set(causes) <= {"ok", "TimeoutError"}, causes
