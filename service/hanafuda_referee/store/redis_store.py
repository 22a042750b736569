"""The Redis game store: single server or Redis Cluster, one round trip per operation.

Layout per game (every name shares the hash tag ``{<game_id>}``, see :mod:`.keys`):

* ``<prefix>{id}:g`` list -- element 0 is the record (version, meta and state, :mod:`.encoding`),
  element ``v + 1`` the log entry of version ``v`` (its packed events; version 0, the creation,
  included). The log is never trimmed: it dies with the game;
* ``<prefix>{id}:a`` hash -- the answers to request ids (by digest) with their version and expiry,
  only while there are any; it expires with its newest answer (answer ttl capped by the idle
  time);
* ``<prefix>{id}:w`` sharded pub/sub channel -- every commit publishes its version there, and each
  watcher subscribes to it (one connection per watcher) and reads the log from its last version
  whenever woken. A watcher subscribes before it reads, so no commit falls between the two.

Writes are Lua scripts (:mod:`.scripts`): compare-and-set on the version, atomic, one round trip.
Every commit gives the game's list the full idle time again (sliding expiry); reads do not, so
spectators cannot keep an abandoned game alive. Record and log share one key, so they can only
expire together.

Memory (``tests/store/test_memory_footprint.py`` measures it at default server settings): a game
costs its list (the record, then each log entry plus about 3 bytes) and, while its moves carry
request ids, about 35 bytes per answer of the last answer ttl when the answers are empty (as the
service stores them): some 1.4 KB for a Koi-Koi game ten moves in, key names included. Games
kept in a stream per game cost 7 KB and more: Redis preallocates a stream's tail node to
``stream-node-max-bytes`` (4 KB by default). A list grows in place with no such reserve, and
sharded pub/sub wakes watchers as immediately as a blocking XREAD did. Needs Redis 7.0 or later
(SPUBLISH).

Failures: each operation runs under a deadline (``operation_timeout``, or the wake-up period plus
it for a watcher's wait) and every connection-level problem becomes
:class:`~.errors.StoreUnavailable`. Nothing is retried automatically (see
:mod:`.redis_clients`).

Counting games (:meth:`RedisStore.count_games`) SCANs every primary for the game keys of this
prefix. That is exact up to games created or expired during the scan, costs O(keys on the
server), and is meant for a gauge sampled every 30-60 s, not for a request path. A counter key
was rejected: keys of one game live in that game's slot, so a counter would be a second, cross-slot
write outside the atomic script, and expiry (which no script sees) would never decrement it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from redis.exceptions import (
    BusyLoadingError,
    ClusterError,
    ConnectionError,
    OutOfMemoryError,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from .contract import (
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    GameRecord,
    VersionedEvents,
)
from .encoding import decode_record, pack_events, request_digest, unpack_events
from .errors import GameExists, GameNotFound, StoreError, StoreUnavailable
from .keys import GameKeys, KeySpace
from .redis_clients import Clients, ClusterClients, SingleClients, Subscription
from .scripts import COMMIT, CREATE, DELETE, READ_EVENTS
from .settings import StoreSettings
from .validation import check_bytes, check_events, check_range, check_request_id

__all__ = ["RedisStore"]

#: Errors that mean "the server cannot serve now", as opposed to a defect in a command.
_UNAVAILABLE: tuple[type[BaseException], ...] = (
    ConnectionError,  # includes BusyLoadingError, MaxConnectionsError, auth failures
    RedisTimeoutError,
    ClusterError,  # includes ClusterDownError, MasterDownError
    RedisClusterException,  # cluster unreachable, slot not covered
    TryAgainError,
    ReadOnlyError,
    OutOfMemoryError,
    BusyLoadingError,
    OSError,
)

#: Log entries fetched per read by a watcher; more simply arrive on the next (immediate) read.
_WATCH_BATCH = 100
#: How long the benchmark's reference write keeps its key, in milliseconds.
_PROBE_TTL_MS = 10_000


class RedisStore:
    """A :class:`~.contract.GameStore` in Redis. Build it with :meth:`connect` or ``open_store``."""

    def __init__(self, clients: Clients, settings: StoreSettings) -> None:
        self._clients = clients
        self._settings = settings
        self._keys = KeySpace(settings.key_prefix)

    @classmethod
    def connect(
        cls, url: str, settings: StoreSettings | None = None, *, cluster: bool = False
    ) -> RedisStore:
        """A store on the server (or, with ``cluster``, the cluster) at ``url``.

        Connections are opened lazily, on the first operation, so this never blocks or fails
        because the server is down: that surfaces as StoreUnavailable on use (and in ``ping``).
        """
        settings = settings or StoreSettings()
        clients = ClusterClients(url, settings) if cluster else SingleClients(url, settings)
        return cls(clients, settings)

    @property
    def settings(self) -> StoreSettings:
        """The settings this store runs with."""
        return self._settings

    def keys_of(self, game_id: str) -> GameKeys:
        """The Redis keys of ``game_id`` (for inspection, e.g. MEMORY USAGE in tests)."""
        return self._keys.game(game_id)

    @property
    def probe_key(self) -> str:
        """The key :meth:`write_probe` sets."""
        return self._keys.probe()

    @contextmanager
    def _failures(self, operation: str) -> Iterator[None]:
        """Translate redis-py errors into store errors."""
        try:
            yield
        except TimeoutError as exc:  # the operation deadline (asyncio.timeout)
            raise StoreUnavailable(f"{operation}: Redis did not answer in time") from exc
        except _UNAVAILABLE as exc:
            raise StoreUnavailable(f"{operation}: {type(exc).__name__}: {exc}") from exc
        except RedisError as exc:
            raise StoreError(f"{operation}: {type(exc).__name__}: {exc}") from exc

    async def _run(
        self, operation: str, call: Coroutine[Any, Any, Any], timeout: float | None = None
    ) -> Any:
        """Await ``call`` under the operation deadline, translating failures."""
        try:
            with self._failures(operation):
                async with asyncio.timeout(timeout or self._settings.operation_timeout):
                    await self._clients.ready()
                    return await call
        finally:
            call.close()  # no-op once it ran; spares a "never awaited" warning if ready() failed

    # -- GameStore ----------------------------------------------------------------------------

    async def create(
        self, game_id: str, state: bytes, meta: bytes, events: Sequence[bytes]
    ) -> None:
        """See :meth:`.contract.GameStore.create`."""
        keys = self._keys.game(game_id)
        args: list[bytes | str | int] = [
            check_bytes("meta", meta),
            check_bytes("state", state),
            pack_events(check_events(events)),
            self._settings.idle_ttl_ms,
        ]
        created = await self._run("create", CREATE.run(self._clients.main, keys.all(), args))
        if created != 1:
            raise GameExists(game_id)

    async def load(self, game_id: str) -> GameRecord | None:
        """See :meth:`.contract.GameStore.load`."""
        keys = self._keys.game(game_id)
        record = await self._run("load", self._clients.main.execute_command("LINDEX", keys.game, 0))
        return None if record is None else decode_record(record)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        new_state: bytes,
        events: Sequence[bytes],
        request_id: str | None,
        answer: bytes,
    ) -> CommitResult:
        """See :meth:`.contract.GameStore.commit`. One EVALSHA, never retried."""
        keys = self._keys.game(game_id)
        check_request_id(request_id)
        args: list[bytes | str | int] = [
            int(expected_version),
            check_bytes("new_state", new_state),
            pack_events(check_events(events)),
            b"" if request_id is None else request_digest(request_id),
            check_bytes("answer", answer),
            self._settings.idle_ttl_ms,
            self._settings.answer_keep_ms,
            keys.channel,
        ]
        reply = await self._run("commit", COMMIT.run(self._clients.main, keys.all(), args))
        match reply:
            case [1, int(version)]:
                return Committed(version=version)
            case [2, bytes(stored), int(version)]:
                return Duplicate(answer=stored, version=version)
            case [3, int(version), bytes(state)]:
                return Conflict(version=version, state=state)
            case [0]:
                raise GameNotFound(game_id)
        raise StoreError(f"commit: unexpected script reply {reply!r}")

    async def events(self, game_id: str, after_version: int, limit: int) -> list[VersionedEvents]:
        """See :meth:`.contract.GameStore.events`. One script: existence check and LRANGE."""
        check_range(after_version, limit)
        entries = await self._read(self._keys.game(game_id), after_version, limit)
        if entries is None:
            raise GameNotFound(game_id)
        return entries

    async def _read(
        self, keys: GameKeys, after_version: int, limit: int
    ) -> list[VersionedEvents] | None:
        """Up to ``limit`` log entries after ``after_version``; None if the game does not exist."""
        first = after_version + 1
        # List indexes: the record is element 0, version v is element v + 1.
        reply = await self._run(
            "events",
            READ_EVENTS.run(self._clients.main, (keys.game,), (first + 1, first + limit)),
        )
        if reply is None:
            return None
        return [
            VersionedEvents(version=first + n, events=unpack_events(packed))
            for n, packed in enumerate(reply)
        ]

    async def watch(self, game_id: str, after_version: int) -> AsyncIterator[VersionedEvents]:
        """See :meth:`.contract.GameStore.watch`.

        Subscribes to the game's channel first, then reads the log from ``after_version`` and,
        once caught up, waits for a commit's message (or ``watch_block`` at most) before reading
        again. An empty read of a game that no longer exists ends the watch. Only the last
        yielded version is remembered, so a failure (StoreUnavailable, raised to the consumer)
        loses nothing: resume from that version.
        """
        check_range(after_version, 1)
        keys = self._keys.game(game_id)
        subscription: Subscription = await self._run(
            "watch", self._clients.subscription(keys.channel)
        )
        try:
            await self._run("watch", subscription.open())
            last = after_version
            started = False
            while True:
                entries = await self._read(keys, last, _WATCH_BATCH)
                if entries is None:
                    if not started:
                        raise GameNotFound(game_id)
                    return
                started = True
                for entry in entries:
                    yield entry
                    last = entry.version
                if len(entries) < _WATCH_BATCH:
                    await self._run(
                        "watch",
                        subscription.wait(self._settings.watch_block),
                        timeout=self._settings.watch_block + self._settings.operation_timeout,
                    )
        finally:
            # Closing only drops a connection: its failure changes nothing for the consumer.
            with contextlib.suppress(RedisError, OSError):
                await subscription.close()

    async def delete(self, game_id: str) -> bool:
        """See :meth:`.contract.GameStore.delete`. One script, which also wakes the watchers."""
        keys = self._keys.game(game_id)
        removed = await self._run(
            "delete", DELETE.run(self._clients.main, keys.all(), (keys.channel,))
        )
        return bool(removed)

    async def count_games(self) -> int:
        """Game keys of this prefix, by SCAN over every primary (see the module docstring).

        Approximate: a game created or expired during the scan may be missed, and SCAN may
        return a key twice while the server resizes its tables. Runs under a longer deadline
        (ten operation timeouts), as it visits the whole keyspace.
        """
        return int(
            await self._run(
                "count_games",
                self._clients.count_keys(self._keys.game_pattern()),
                timeout=10 * self._settings.operation_timeout,
            )
        )

    async def ping(self) -> None:
        """PING the server (a cluster client: the node it picks, after discovering the cluster)."""
        await self._run("ping", self._clients.main.execute_command("PING"))

    async def write_probe(self) -> None:
        """The benchmark's reference write: one plain SET of a short-lived key under the prefix
        (:attr:`probe_key`, 10 s), through the same client and deadline as every operation."""
        await self._run(
            "write_probe",
            self._clients.main.execute_command(
                "SET", self._keys.probe(), b"1", "PX", _PROBE_TTL_MS
            ),
        )

    async def close(self) -> None:
        """Close both clients' connections (ends blocked watchers with StoreUnavailable)."""
        with self._failures("close"):
            await self._clients.close()
