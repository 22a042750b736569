"""The redis-py clients a RedisStore talks through, for a single server or a Redis Cluster.

Two clients per store, both with short connect timeouts and **no automatic retries**:

* ``main`` for every short command. Its read timeout is the (short) socket timeout, so a dead or
  hung server turns into an error in about a second instead of a hung request. redis-py's default
  retries (with backoff) would stretch a failure over seconds and, worse, could run a commit
  script twice when only its reply was lost; the store leaves retrying to the caller, who can do
  it safely with a request id. After an outage nothing needs restarting: the pool notices closed
  connections when it hands them out and reconnects, and a cluster client refreshes its slot map
  after a connection error.
* ``watch`` for the watchers' subscriptions only (sharded pub/sub: SSUBSCRIBE to the game's
  channel). redis-py applies the socket timeout to every reply, so a client whose timeout is
  shorter than the wait would cut every wait for a message; this client's read timeout is the
  watch wake-up period plus the socket timeout. Each watcher holds one of its connections for as
  long as it follows a game.

Both speak RESP2: every reply shape the store parses is then the same on every server version,
and nothing here needs RESP3.

The single-server and cluster variants differ in four places only, which :class:`Clients`
hides: discovering the cluster before use, subscribing on the node that owns the game's slot,
scanning every primary, and closing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AskError, ConnectionError

from .scripts import ScriptRunner
from .settings import StoreSettings

__all__ = ["Clients", "ClusterClients", "SingleClients", "Subscription"]

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


class Subscription:
    """One watcher's subscription to a game's sharded channel, on a connection of its own.

    Messages are only wake-ups (each commit publishes its version): the watcher reads the log
    itself, so a message that arrives while it reads, or several merged into one wake-up, lose
    nothing. What would lose something is a commit published before the subscription took effect,
    hence :meth:`open` returns only once the server has confirmed it. A lost connection is never
    silently re-established (the clients do not retry): it raises, and the watcher resumes.
    """

    def __init__(self, pubsub: PubSub, channel: str) -> None:
        self._pubsub = pubsub
        self._channel = channel

    async def open(self) -> None:
        """Subscribe, and wait until the server says the subscription is in effect."""
        await self._pubsub.ssubscribe(self._channel)
        while True:
            try:
                message = await self._pubsub.get_message(timeout=None)
            except AskError as error:  # MOVED included: the slot is moving or just moved
                raise ConnectionError(f"the game's slot is not on this node: {error}") from error
            if message is not None and message["type"] == "ssubscribe":
                return

    async def wait(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a message; True if one (or more) came."""
        message = await self._pubsub.get_message(timeout=timeout)
        if message is None:
            return False
        while message is not None:
            if message["type"] == "sunsubscribe":
                # The server dropped the subscription (its slot moved to another node).
                raise ConnectionError("the game's channel subscription was ended by the server")
            message = await self._pubsub.get_message(timeout=0)
        return True

    async def close(self) -> None:
        """Drop the subscription and its connection."""
        await self._pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves it bare


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
    async def subscription(self, channel: str) -> Subscription:
        """A new, not yet opened, subscription to ``channel`` (on the node owning its slot)."""

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

    async def subscription(self, channel: str) -> Subscription:
        return Subscription(self._watch.pubsub(), channel)

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
        self._max_connections = settings.max_connections
        #: node name -> a client of that node alone, for the watchers' subscriptions.
        self._node_clients: dict[str, Redis] = {}

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

    async def subscription(self, channel: str) -> Subscription:
        # A plain client per node rather than redis-py's ClusterPubSub: a watcher follows one
        # channel, and if its slot moves the server ends the subscription, which the watcher
        # reports (it then resumes through a client that has learnt the new slot map).
        await self._watch.initialize()  # no-op once the slot map is known
        node = self._watch.get_node_from_key(channel)
        if node is None:
            raise ConnectionError("no cluster node serves the game's slot")
        client = self._node_clients.get(node.name)
        if client is None:
            # The node's connection settings: its address, and the cluster client's options.
            pool = ConnectionPool(
                connection_class=node.connection_class,
                max_connections=self._max_connections,
                **node.connection_kwargs,
            )
            client = self._node_clients[node.name] = Redis(connection_pool=pool)
        return Subscription(client.pubsub(), channel)

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
        for client in self._node_clients.values():
            await client.aclose()
        self._node_clients.clear()
