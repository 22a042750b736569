"""The redis-py clients a RedisStore talks through, for a single server or a Redis Cluster.

Two clients per store, both with short connect timeouts and **no automatic retries**:

* ``main`` for every short command. Its read timeout is the (short) socket timeout, so a dead or
  hung server turns into an error in about a second instead of a hung request. redis-py's default
  retries (with backoff) would stretch a failure over seconds and, worse, could run a commit
  script twice when only its reply was lost; the store leaves retrying to the caller, who can do
  it safely with a request id. After an outage nothing needs restarting: the pool notices closed
  connections when it hands them out and reconnects, and a cluster client refreshes its slot map
  after a connection error.
* ``watch`` for XREAD BLOCK only. redis-py applies the socket timeout to every reply, so a client
  whose timeout is shorter than the block time would cut every blocking read; this client's read
  timeout is the block time plus the socket timeout. Each waiting watcher holds one of its
  connections while it blocks.

Both speak RESP2: every reply shape the store parses is then the same on every server version,
and nothing here needs RESP3.

The single-server and cluster variants differ in four places only, which :class:`Clients`
hides: discovering the cluster before use, routing a blocking XREAD (a cluster client would
otherwise ask a node for the keys of every XREAD with COMMAND GETKEYS, as XREAD's key positions
are not fixed), scanning every primary, and closing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from .scripts import ScriptRunner
from .settings import StoreSettings

__all__ = ["Clients", "ClusterClients", "SingleClients"]

_SCAN_BATCH = 1000


def _options(settings: StoreSettings, socket_timeout: float) -> dict[str, Any]:
    return {
        "socket_connect_timeout": settings.connect_timeout,
        "socket_timeout": socket_timeout,
        "retry": Retry(NoBackoff(), 0),
        "protocol": 2,
        "decode_responses": False,
        "max_connections": settings.max_connections,
    }


class Clients(ABC):
    """The connections of one RedisStore."""

    @property
    @abstractmethod
    def main(self) -> ScriptRunner:
        """The client for short commands and scripts."""

    @abstractmethod
    async def ready(self) -> None:
        """Make the clients ready to route commands (a cluster client: learn the slot map)."""

    @abstractmethod
    async def xread(self, key: str, after_id: str, count: int, block_ms: int) -> Any:
        """XREAD COUNT ``count`` BLOCK ``block_ms`` STREAMS ``key`` ``after_id`` (parsed reply)."""

    @abstractmethod
    async def count_keys(self, pattern: str) -> int:
        """How many keys match ``pattern``, by SCAN over every primary (duplicates possible)."""

    @abstractmethod
    async def close(self) -> None:
        """Close every connection of both clients."""


class SingleClients(Clients):
    """Clients of one Redis server (``redis://``, ``rediss://`` or ``unix://`` URL)."""

    def __init__(self, url: str, settings: StoreSettings) -> None:
        self._main: Redis = Redis.from_url(url, **_options(settings, settings.socket_timeout))
        self._watch: Redis = Redis.from_url(
            url, **_options(settings, settings.watch_block + settings.socket_timeout)
        )

    @property
    def main(self) -> ScriptRunner:
        return self._main

    async def ready(self) -> None:
        return None

    async def xread(self, key: str, after_id: str, count: int, block_ms: int) -> Any:
        client: ScriptRunner = self._watch
        return await client.execute_command(
            "XREAD", "COUNT", count, "BLOCK", block_ms, "STREAMS", key, after_id
        )

    async def count_keys(self, pattern: str) -> int:
        client: ScriptRunner = self._main
        total = 0
        cursor = 0
        while True:
            cursor, keys = await client.execute_command(
                "SCAN", cursor, "MATCH", pattern, "COUNT", _SCAN_BATCH
            )
            total += len(keys)
            if int(cursor) == 0:
                return total

    async def close(self) -> None:
        await self._main.aclose()
        await self._watch.aclose()


class ClusterClients(Clients):
    """Clients of a Redis Cluster, discovered from the node(s) in the URL."""

    def __init__(self, url: str, settings: StoreSettings) -> None:
        self._main: RedisCluster = RedisCluster.from_url(
            url, **_options(settings, settings.socket_timeout)
        )
        self._watch: RedisCluster = RedisCluster.from_url(
            url, **_options(settings, settings.watch_block + settings.socket_timeout)
        )

    @property
    def main(self) -> ScriptRunner:
        return self._main

    async def ready(self) -> None:
        # redis-py 8.1 routes a command before it learns the slot map, so commands that
        # trigger that discovery concurrently on a fresh (or just failed) client may go to the
        # wrong node or to a connection being torn down (seen as "Connection closed by
        # server" or AttributeError). Discovering first, on its own, avoids that. A no-op once
        # the slot map is known.
        await self._main.initialize()

    async def xread(self, key: str, after_id: str, count: int, block_ms: int) -> Any:
        await self._watch.initialize()  # no-op once the slot map is known
        node = self._watch.get_node_from_key(key)
        client: ScriptRunner = self._watch
        return await client.execute_command(
            "XREAD", "COUNT", count, "BLOCK", block_ms, "STREAMS", key, after_id,
            target_nodes=node,
        )  # fmt: skip

    async def count_keys(self, pattern: str) -> int:
        await self._main.initialize()
        client: ScriptRunner = self._main
        total = 0
        for node in self._main.get_primaries():
            cursor = 0
            while True:
                cursors, keys = await client.execute_command(
                    "SCAN", cursor, "MATCH", pattern, "COUNT", _SCAN_BATCH, target_nodes=node
                )
                total += len(keys)
                cursor = int(cursors[node.name])
                if cursor == 0:
                    break
        return total

    async def close(self) -> None:
        await self._main.aclose()
        await self._watch.aclose()
