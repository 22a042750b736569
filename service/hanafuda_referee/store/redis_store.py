"""The Redis game store: single server or Redis Cluster, one round trip per operation.

Layout per game (all keys share the hash tag ``{<game_id>}``, see :mod:`.keys`):

* ``<prefix>{id}:g`` string -- version, meta and state (:mod:`.encoding`);
* ``<prefix>{id}:e`` stream -- one entry per version with the explicit ID ``<version>-1`` (version
  0, the creation, included: ``0-0`` is not a valid ID, hence the sequence 1). Readers resume with
  XRANGE/XREAD from ``<last version>-1`` and can never skip a version;
* ``<prefix>{id}:a`` hash -- answers to request ids with their expiry, only while there are any;
  it expires with its newest answer (answer ttl capped by the idle time).

Writes are Lua scripts (:mod:`.scripts`): compare-and-set on the version, atomic, one round trip.
Every commit gives the record and the stream the full idle time again (sliding expiry); reads do
not, so spectators cannot keep an abandoned game alive. Those two keys are always written with
the same PX, so they expire together (the create script removes any leftover of an earlier game
with the same id).

Memory: the stream is the dominant cost. Redis preallocates the tail node of a stream to
``stream-node-max-bytes`` (4 KB by default) and only shrinks a node once it is full, so with the
default server settings every game costs about 7 KB whatever its size. With
``stream-node-max-bytes 768`` on the server, a game with a 600-byte state, 100 bytes of meta and 40
small events costs about 2.0 KB (``tests/store/test_memory_footprint.py`` measures it); answers
still within their ttl come on top (about 300 B each for a 200-byte answer). The stream is not
capped (no MAXLEN): the log must stay complete for audits, and it dies with the game.

Failures: each operation runs under a deadline (``operation_timeout``, or the block time plus it
for a watcher's blocking read) and every connection-level problem becomes
:class:`~.errors.StoreUnavailable`. Nothing is retried automatically (see
:mod:`.redis_clients`).

Counting games (:meth:`RedisStore.count_games`) SCANs every primary for record keys of this
prefix. That is exact up to games created or expired during the scan, costs O(keys on the
server), and is meant for a gauge sampled every 30-60 s, not for a request path. A counter key
was rejected: keys of one game live in that game's slot, so a counter would be a second, cross-slot
write outside the atomic script, and expiry (which no script sees) would never decrement it.
"""

from __future__ import annotations

import asyncio
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
from .encoding import decode_record, pack_events, unpack_events
from .errors import GameExists, GameNotFound, StoreError, StoreUnavailable
from .keys import GameKeys, KeySpace
from .redis_clients import Clients, ClusterClients, SingleClients
from .scripts import COMMIT, CREATE, READ_EVENTS
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

#: Entries fetched per XREAD by a watcher; more simply arrive on the next (immediate) read.
_WATCH_BATCH = 100


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
        record = await self._run("load", self._clients.main.execute_command("GET", keys.record))
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
            request_id or "",
            check_bytes("answer", answer),
            self._settings.idle_ttl_ms,
            self._settings.answer_keep_ms,
        ]
        reply = await self._run("commit", COMMIT.run(self._clients.main, keys.all(), args))
        match reply:
            case [1, int(version)]:
                return Committed(version=version)
            case [2, bytes(stored)]:
                return Duplicate(answer=stored)
            case [3, int(version), bytes(state)]:
                return Conflict(version=version, state=state)
            case [0]:
                raise GameNotFound(game_id)
        raise StoreError(f"commit: unexpected script reply {reply!r}")

    async def events(self, game_id: str, after_version: int, limit: int) -> list[VersionedEvents]:
        """See :meth:`.contract.GameStore.events`. One script: existence check and XRANGE."""
        check_range(after_version, limit)
        keys = self._keys.game(game_id)
        first_id = f"{after_version + 1}-0"
        reply = await self._run(
            "events",
            READ_EVENTS.run(self._clients.main, (keys.record, keys.events), (first_id, limit)),
        )
        if reply is None:
            raise GameNotFound(game_id)
        return [_entry(entry_id, fields) for entry_id, fields in reply]

    async def watch(self, game_id: str, after_version: int) -> AsyncIterator[VersionedEvents]:
        """See :meth:`.contract.GameStore.watch`.

        XREAD BLOCK from ``<last version>-1``: returns at once while entries are pending, else
        waits up to ``watch_block``; after an empty wait the watcher checks that the game still
        exists and ends if not. Only the last yielded version is remembered, so a failure
        (StoreUnavailable, raised to the consumer) loses nothing: resume from that version.
        """
        check_range(after_version, 1)
        keys = self._keys.game(game_id)
        if not await self._exists(keys):
            raise GameNotFound(game_id)
        last = after_version
        block_ms = self._settings.watch_block_ms
        deadline = self._settings.watch_block + self._settings.operation_timeout
        while True:
            after_id = f"{last}-1" if last >= 0 else "0-0"
            reply = await self._run(
                "watch",
                self._clients.xread(keys.events, after_id, _WATCH_BATCH, block_ms),
                timeout=deadline,
            )
            if not reply:
                if not await self._exists(keys):
                    return
                continue
            [[_stream, entries]] = reply
            for entry_id, fields in entries:
                entry = _entry(entry_id, fields)
                yield entry
                last = entry.version

    async def _exists(self, keys: GameKeys) -> bool:
        found = await self._run("exists", self._clients.main.execute_command("EXISTS", keys.record))
        return bool(found)

    async def delete(self, game_id: str) -> bool:
        """See :meth:`.contract.GameStore.delete`."""
        keys = self._keys.game(game_id)
        # The record first: from then on a racing commit sees no game and writes nothing.
        main = self._clients.main
        removed = await self._run("delete", main.execute_command("DEL", keys.record))
        await self._run("delete", main.execute_command("DEL", keys.events, keys.answers))
        return bool(removed)

    async def count_games(self) -> int:
        """Record keys of this prefix, by SCAN over every primary (see the module docstring).

        Approximate: a game created or expired during the scan may be missed, and SCAN may
        return a key twice while the server resizes its tables. Runs under a longer deadline
        (ten operation timeouts), as it visits the whole keyspace.
        """
        return int(
            await self._run(
                "count_games",
                self._clients.count_keys(self._keys.record_pattern()),
                timeout=10 * self._settings.operation_timeout,
            )
        )

    async def ping(self) -> None:
        """PING the server (a cluster client: the node it picks, after discovering the cluster)."""
        await self._run("ping", self._clients.main.execute_command("PING"))

    async def close(self) -> None:
        """Close both clients' connections (ends blocked watchers with StoreUnavailable)."""
        with self._failures("close"):
            await self._clients.close()


def _entry(entry_id: bytes, fields: Any) -> VersionedEvents:
    """A stream entry as VersionedEvents; ``fields`` is [b"e", packed] or {b"e": packed}."""
    version = int(entry_id.split(b"-", 1)[0])
    packed = fields[b"e"] if isinstance(fields, dict) else fields[1]
    return VersionedEvents(version=version, events=unpack_events(packed))
