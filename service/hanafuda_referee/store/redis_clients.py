"""The redis-py clients a RedisStore talks through, for a single server or a Redis Cluster.

The clients of a store, all with short connect timeouts and **no automatic retries**:

* ``main`` for every short command. Its read timeout is the (short) socket timeout, so a dead or
  hung server turns into an error in about a second instead of a hung request. redis-py's default
  retries (with backoff) would stretch a failure over seconds and, worse, could run a commit
  script twice when only its reply was lost; the store leaves retrying to the caller, who can do
  it safely with a request id. After an outage nothing needs restarting: the pool notices closed
  connections when it hands them out and reconnects, and a cluster client refreshes its slot map
  after a connection error.
* ``watch`` for the watchers' wake-ups only (sharded pub/sub: SSUBSCRIBE to the game's channel):
  one connection per server, or per cluster node owning a followed game, shared by every
  watcher of the process (a :class:`~.subscriptions.Subscriber`). A message may be hours away,
  so its replies are read without the socket timeout: after a watch wake-up period of quiet, a
  PING checks that the connection is still there. Its writes have the socket timeout.
* on a single server, ``blocking`` for the bot workers' blocking reads of the bot queue
  (``XREADGROUP ... BLOCK``): a pool of its own, so a worker waiting for a turn holds none of the
  connections the requests or the batched commits use. Its replies are read without the socket
  timeout (a read may wait for its whole block time); the store's deadline, the block time plus
  the operation timeout, bounds it. A Redis Cluster's workers wait on the watchers' shared
  connections instead (:mod:`.redis_store`, "The bot queue").
* on a single server, ``batch`` for the store's batched commits (:meth:`Clients.pipelines`):
  pipelines that are never transactions and never retried. A pipeline takes one connection,
  writes every command at once and reads the replies in order, straight through the connection.
  Its connections have no socket timeout: the batch's own deadline (the operation timeout) bounds
  them, and redis-py then spares, per write, the task ``asyncio.wait_for`` starts and, per reply,
  a timer (some 20 us of a lone commit). Between batches they wait in a list of their own rather
  than in the pool, checked as the pool would check them (a connection the server closed is
  reconnected), which spares the pool's bookkeeping (some 10 us per batch). redis-py's
  ``Pipeline`` would add, per batch, its retry wrapper, a task to release the connection and a
  scan of the commands for client-side features the store does not use, for no change in what
  is sent. Any failure before the last reply is read drops the connection (redis-py does so on a
  deadline's cancellation too), so unread replies are never served to the next batch.

All speak RESP2: every reply shape the store parses is then the same on every server version,
and nothing here needs RESP3.

On a cluster, a MOVED answer (a slot served by another node: after a failover, for every game of
the master that handed over) is followed by the cluster client, which corrects its slot map from
it (one answer corrects the whole range of slots the old master served). redis-py's default would
also rediscover the cluster at every fifth MOVED, closing the connections of every node, those
in use included, and fail the operations in flight on them: under load, a graceful failover of
one master then cost every game some ``UNAVAILABLE`` answers (89 and 139 over six failovers of
a test with 64 busy games, none without; ``tests/store/test_cluster_moves.py``). The client
here never does: a connection error or CLUSTERDOWN still makes it rediscover the cluster.

The single-server and cluster variants differ in seven places only, which :class:`Clients`
hides: discovering the cluster before use, batching commits or not, a client for blocking reads
or not, subscribing on the node that owns the game's slot, scanning every primary, reading every
primary's INFO, and closing.

A cluster sends each commit alone. redis-py's cluster pipeline (which would group a batch by the
node owning each game's slot) costs more per command than the round trips it saves, except in
large batches: with it, ``tests/benchmarks/store_commits.py --cluster`` on a private three-master
cluster measured a lone commit at twice the CPU and latency (90 to 180 us of CPU, p50 100 to
210 us), and 32 concurrent lanes at only a quarter less CPU per commit (76 to 57 us). A leaner
per-node pipeline would have to redo the cluster client's handling of redirections (MOVED, ASK,
TRYAGAIN) and of failovers (refreshing the slot map after a node fails), which is where that
client earns its cost.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError, ResponseError

from .resp import pack_commands
from .scripts import Command, PipelineRunner, ScriptRunner
from .settings import StoreSettings
from .subscriptions import Subscriber, Subscription

__all__ = ["Clients", "ClusterClients", "SingleClients"]

_SCAN_BATCH = 1000
#: The INFO sections :mod:`.server_requirements` reads.
_INFO_SECTIONS = ("server", "replication", "memory")


def _options(settings: StoreSettings, socket_timeout: float | None) -> dict[str, Any]:
    return {
        "socket_connect_timeout": settings.connect_timeout,
        "socket_timeout": socket_timeout,
        "retry": Retry(NoBackoff(), 0),
        "protocol": 2,
        "decode_responses": False,
        "max_connections": settings.max_connections,
    }


def _subscriber_on(
    pool: ConnectionPool, settings: StoreSettings, moved: Callable[[bytes], None] | None = None
) -> Subscriber:
    """A subscriber whose connection comes from (and goes back to) ``pool``: a subscription
    must be confirmed within the operation deadline, and a quiet connection is checked once per
    watch wake-up period."""

    async def connect() -> AbstractConnection:
        connection: AbstractConnection = await pool.get_connection()  # type: ignore[no-untyped-call]
        return connection

    return Subscriber(
        connect, pool.release, settings.operation_timeout, settings.watch_block, moved
    )


class Clients(ABC):
    """The connections of one RedisStore."""

    @property
    @abstractmethod
    def main(self) -> ScriptRunner:
        """The client for short commands and scripts."""

    @abstractmethod
    async def ready(self) -> None:
        """Make the clients ready to route commands (a cluster client: learn the slot map)."""

    @property
    def pipelines(self) -> PipelineRunner | None:
        """Where the store's batched commits go, or None if each commit should go alone."""
        return None

    @property
    def blocking(self) -> ScriptRunner | None:
        """The client for blocking reads of the bot queue, or None where workers wait on the
        queue's channels instead (a cluster)."""
        return None

    @abstractmethod
    async def subscription(self, channel: str) -> Subscription:
        """A new, not yet opened, subscription to ``channel`` (on the node owning its slot)."""

    @abstractmethod
    async def count_keys(self, pattern: str) -> int:
        """How many keys match ``pattern``, by SCAN over every primary (duplicates possible)."""

    @abstractmethod
    async def server_infos(self) -> list[tuple[str, dict[str, Any]]]:
        """``INFO server replication memory`` of the server, or of each primary of a cluster,
        parsed; each with the node's name (``""`` for a single server)."""

    @abstractmethod
    async def close(self) -> None:
        """Close every connection of every client."""


class SingleClients(Clients):
    """Clients of one Redis server (``redis://``, ``rediss://`` or ``unix://`` URL)."""

    def __init__(self, url: str, settings: StoreSettings) -> None:
        self._main: Redis = Redis.from_url(url, **_options(settings, settings.socket_timeout))
        self._watch: Redis = Redis.from_url(url, **_options(settings, settings.socket_timeout))
        self._settings = settings
        #: The watchers' shared connection; replaced by a new one once it has failed.
        self._subscriber: Subscriber | None = None
        self._batch: Redis = Redis.from_url(url, **_options(settings, None))
        self._blocking: Redis = Redis.from_url(url, **_options(settings, None))
        #: Connections of ``batch`` between two batches (still counted in use by its pool).
        self._idle: list[AbstractConnection] = []

    @property
    def main(self) -> ScriptRunner:
        return self._main

    async def ready(self) -> None:
        return None

    @property
    def pipelines(self) -> PipelineRunner:
        return self

    @property
    def blocking(self) -> ScriptRunner:
        return self._blocking

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        """See :class:`~.scripts.PipelineRunner`; on the ``batch`` client (module docstring)."""
        connection = await self._batch_connection()
        replies: list[Any] = []
        try:
            await connection.send_packed_command(pack_commands(commands))
            for _ in commands:
                try:
                    replies.append(await connection.read_response())
                except ResponseError as error:  # an error reply: the next ones still follow
                    replies.append(error)
        except BaseException:
            # redis-py drops the connection on most failures already; this makes sure unread
            # replies can never be served to the next batch.
            await connection.disconnect(nowait=True)
            await self._batch.connection_pool.release(connection)
            raise
        self._idle.append(connection)
        return replies

    async def _batch_connection(self) -> AbstractConnection:
        """An idle connection of the ``batch`` client, checked as the pool checks it."""
        pool = self._batch.connection_pool
        while self._idle:
            connection = self._idle.pop()
            try:
                if connection.is_connected and not await connection.can_read():
                    return connection
            except ConnectionError:
                pass
            # Closed by the server (or holding stray data): the pool reconnects it.
            await connection.disconnect(nowait=True)
            await pool.release(connection)
        fresh: AbstractConnection = await pool.get_connection()  # type: ignore[no-untyped-call]
        return fresh

    async def subscription(self, channel: str) -> Subscription:
        subscriber = self._subscriber
        if subscriber is None or subscriber.failure is not None:
            subscriber = self._subscriber = _subscriber_on(
                self._watch.connection_pool, self._settings
            )
        return Subscription(subscriber, channel)

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

    async def server_infos(self) -> list[tuple[str, dict[str, Any]]]:
        client: ScriptRunner = self._main
        return [("", await client.execute_command("INFO", *_INFO_SECTIONS))]

    async def close(self) -> None:
        if self._subscriber is not None:
            await self._subscriber.close()
        await self._main.aclose()
        await self._watch.aclose()
        idle, self._idle = self._idle, []
        for connection in idle:
            await self._batch.connection_pool.release(connection)
        await self._batch.aclose()
        await self._blocking.aclose()


class ClusterClients(Clients):
    """Clients of a Redis Cluster, discovered from the node(s) in the URL."""

    def __init__(self, url: str, settings: StoreSettings) -> None:
        self._main: RedisCluster = RedisCluster.from_url(
            url,
            # Never close every connection on a count of MOVED answers (see the module
            # docstring): a MOVED corrects the slot map by itself.
            reinitialize_steps=0,
            **_options(settings, settings.socket_timeout),
        )
        self._max_connections = settings.max_connections
        self._settings = settings
        #: node name -> a client of that node alone, for the watchers' shared connection.
        self._node_clients: dict[str, Redis] = {}
        #: node name -> the watchers' shared connection to that node.
        self._subscribers: dict[str, Subscriber] = {}
        #: Channels whose subscription a node refused or ended: their slot has moved.
        self._moved: set[bytes] = set()

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
        # A connection per node rather than redis-py's ClusterPubSub: if a game's slot moves,
        # the server ends that game's subscriptions (or refuses new ones), and their watchers
        # fail and resume. The node is then found anew: a keyed command through the main client
        # (on the channel's name, which is in the game's slot and names no key) follows the slot
        # wherever it went, and updates the client's slot map.
        if channel.encode() in self._moved:
            await self._main.execute_command("EXISTS", channel)
            self._moved.discard(channel.encode())
        await self._main.initialize()  # no-op once the slot map is known
        node = self._main.get_node_from_key(channel)
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
        subscriber = self._subscribers.get(node.name)
        if subscriber is None or subscriber.failure is not None:
            subscriber = self._subscribers[node.name] = _subscriber_on(
                client.connection_pool, self._settings, self._moved.add
            )
        return Subscription(subscriber, channel)

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

    async def server_infos(self) -> list[tuple[str, dict[str, Any]]]:
        await self._main.initialize()
        client: ScriptRunner = self._main
        infos = []
        for node in self._main.get_primaries():
            # One target node: its reply itself (not a reply per node, as SCAN's is).
            info = await client.execute_command("INFO", *_INFO_SECTIONS, target_nodes=node)
            infos.append((node.name, info))
        return infos

    async def close(self) -> None:
        for subscriber in self._subscribers.values():
            await subscriber.close()
        self._subscribers.clear()
        await self._main.aclose()
        for client in self._node_clients.values():
            await client.aclose()
        self._node_clients.clear()
