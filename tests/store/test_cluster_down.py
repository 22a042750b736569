"""A Redis Cluster that answers CLUSTERDOWN, as every node does while a failed master's slots
wait for its replica, under many concurrent operations.

redis-py's cluster client answers a CLUSTERDOWN by closing the connections of every node, those
that other operations are using at that moment included. An operation caught in the middle of
opening its connection then fails inside redis-py with an ``AttributeError`` (its writer gone),
or on uvloop with a ``RuntimeError`` (its transport closed), rather than a connection error. The
store must still fail it as unavailable (``StoreUnavailable``, which the service answers
``UNAVAILABLE``), never let it out as an internal error, and serve again as soon as the cluster
is whole. Both event loops are tried: the service runs on uvloop.

The test cluster is its own (three masters, no replicas): it takes one slot away from a master
(``CLUSTER DELSLOTS``), which puts that master's view of the cluster in the fail state at once,
so every command sent to it is answered CLUSTERDOWN, and gives it back (``ADDSLOTS``) a moment
later, several times over.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis
import uvloop

from hanafuda_referee.store import (
    GameStore,
    StoreSettings,
    StoreUnavailable,
    open_store,
    redis_store,
)

from .servers import REDIS_CLI, REDIS_SERVER, ClusterProcesses

pytestmark = pytest.mark.skipif(
    REDIS_SERVER is None or REDIS_CLI is None, reason="redis-server and redis-cli are needed"
)

#: Games operated on at once, spread over the three masters by their ids.
LANES = 64
#: Times the slot is taken away and given back.
TOGGLES = 4
#: Seconds the cluster stays down each time, then whole.
DOWN = 0.4
UP = 0.3

_Result = TypeVar("_Result")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[ClusterProcesses]:
    processes = ClusterProcesses(tmp_path)
    processes.start()
    try:
        yield processes
    finally:
        processes.stop()


#: How each event loop runs a coroutine: the service runs on uvloop, whose transports refuse a
#: write once closed (a RuntimeError), where asyncio's ignore it.
RUNNERS: dict[str, Callable[[Coroutine[Any, Any, None]], None]] = {
    "asyncio": asyncio.run,
    "uvloop": uvloop.run,
}


@pytest.mark.parametrize("loop", sorted(RUNNERS))
def test_operations_during_clusterdown_fail_as_unavailable_and_then_succeed(
    cluster: ClusterProcesses, loop: str
) -> None:
    RUNNERS[loop](operate_through_clusterdowns(cluster))


async def operate_through_clusterdowns(cluster: ClusterProcesses) -> None:
    store = open_store(cluster.url, StoreSettings(key_prefix=f"t-{uuid.uuid4().hex}:"))
    try:
        await _operate(cluster, store)
    finally:
        await store.close()


async def _operate(cluster: ClusterProcesses, store: GameStore) -> None:
    games = [uuid.uuid4().hex for _ in range(LANES)]
    for game in games:
        await store.create(game, b"s", b"m", [b"e"])
    outcomes: Counter[str] = Counter()
    others: list[BaseException] = []
    done = asyncio.Event()

    async def attempt(call: Awaitable[_Result]) -> _Result | None:
        """The result of ``call``, or None once its failure is counted."""
        try:
            result = await call
        except StoreUnavailable:
            outcomes["unavailable"] += 1
            return None
        except Exception as error:
            others.append(error)
            outcomes[type(error).__name__] += 1
            return None
        outcomes["ok"] += 1
        return result

    async def lane(game: str) -> None:
        version = 0
        while not done.is_set():
            # Committed or Conflict: either way, the version to go on from.
            result = await attempt(store.commit(game, version, b"s", [b"e"], None, b""))
            if result is not None:
                version = result.version
            record = await attempt(store.load(game))
            if record is not None:
                version = record.version
            await asyncio.sleep(0)

    admin = redis.Redis(port=cluster.servers[0].port)
    lanes = [asyncio.create_task(lane(game)) for game in games]
    try:
        for _ in range(TOGGLES):
            await asyncio.sleep(UP)
            admin.cluster("DELSLOTS", 0)
            await asyncio.sleep(DOWN)
            admin.cluster("ADDSLOTS", 0)
        cluster.wait_ok(cluster.servers)
        # Whole again: every game is served without an error.
        deadline = time.monotonic() + 10
        while True:
            served = await asyncio.gather(
                *(store.load(game) for game in games), return_exceptions=True
            )
            if not any(isinstance(s, BaseException) for s in served):
                break
            assert time.monotonic() < deadline, [s for s in served if isinstance(s, Exception)]
            await asyncio.sleep(0.05)
    finally:
        done.set()
        await asyncio.gather(*lanes)
        admin.close()
    assert outcomes["unavailable"] > 0, outcomes  # the cluster was down, and it showed
    assert not others, (outcomes, others[:3])


def test_an_error_outside_redis_py_stays_a_defect() -> None:
    """Only redis-py's own stumble is taken for a cut connection: the same errors raised by the
    store's code are defects, and go out as they are (an internal error, logged)."""
    with pytest.raises(AttributeError) as attribute:
        getattr(None, "writelines")  # noqa: B009 - raised here, not in redis-py
    assert redis_store._store_error("load", attribute.value) is attribute.value
    with pytest.raises(RuntimeError) as runtime:
        raise RuntimeError("the handler is closed")
    assert redis_store._store_error("load", runtime.value) is runtime.value
