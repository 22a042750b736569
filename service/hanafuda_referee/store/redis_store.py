"""The Redis game store: single server or Redis Cluster, one round trip per operation or batch.

Layout per game (every name shares the hash tag ``{<game_id>}``, see :mod:`.keys`):

* ``<prefix>{id}:g`` list -- element 0 is the record (version, meta and state, :mod:`.encoding`),
  element ``v + 1`` the log entry of version ``v`` (its packed events; version 0, the creation,
  included). The log is never trimmed: it dies with the game;
* ``<prefix>{id}:a`` hash -- the answers to request ids (by digest) with their version and expiry,
  only while there are any; it expires with its newest answer (answer ttl capped by the idle
  time);
* ``<prefix>{id}:w`` sharded pub/sub channel -- every commit publishes its version there. A
  process subscribes to it once for all its watchers of the game, on one connection for all the
  games it follows (per cluster node: :mod:`.subscriptions`), and each watcher reads the log from
  its last version whenever woken (the watchers woken by one commit, at the same version, share
  one read). A watcher's subscription takes effect before it reads, so no commit falls between
  the two.

Writes are Lua scripts (:mod:`.scripts`): compare-and-set on the version, atomic, one round trip;
the commits and game loads started during one event-loop iteration share theirs (see "Batching"
below). Every
commit gives the game's list the full idle time again (sliding expiry); reads do not, so
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
:class:`~.errors.StoreUnavailable`, redis-py's own stumbles on a connection closed under an
operation included (:func:`_torn_connection`). Nothing is retried automatically (see
:mod:`.redis_clients`); a batch that fails fails each of its calls with StoreUnavailable.

Batching (on a single server): a commit queues its script call, a load (``load``: a game's
record, for a read or a cache miss) its LINDEX, and a read of the log (``events``, and a
watcher's reads, which a commit sets off for every watcher of its game at once) its script call,
a bot turn's push (which follows the commit that hands a turn to a bot seat) its script call,
and each waits for its own reply. The first call
of a batch starts the task that sends it, whose first step runs at the end of the current loop
iteration, so a lone call waits for no timer; every call started before then joins the batch, up
to :data:`_BATCH_MAX`, and the batch goes as one pipeline (see :mod:`.redis_clients`), its calls
in the order they were made: a load made after a commit sees it. Under load this turns a
connection checkout, a write and a read per call into one of each per batch. One batch is in
flight at a time: while it is, the next batch goes on taking calls, and goes when the one in
flight is answered (or has failed). Redis runs the commands of a server one after the other
anyway; what the wait of about one round trip buys is larger batches under load, hence less work
per call (HTTP moves per second of ``tests.benchmarks.service``: about 5,100 against 4,800 with
each batch sent at once on a connection of its own, and 4,900 with two in flight). A batch runs
under the operation deadline, which starts at the end of the iteration that opened it and covers
its wait for the batch in flight: it is each of its calls' deadline. A batch that fails, or does
not end in time, fails every call it has not answered with StoreUnavailable, and is not sent
again (a commit whose reply was lost may have run). Commits answered NOSCRIPT did not run and go
again with EVAL (:mod:`.scripts`). A caller that gives up (a cancelled request) before its batch
goes out is left out of it. On a Redis Cluster each call goes alone, through the cluster client:
redis-py's cluster pipeline costs more than it saves there (measured in :mod:`.redis_clients`).
Turning ``batch_commits`` off (:class:`~.settings.StoreSettings`) sends each call alone
everywhere.

The bot queue (PLAY.md, "Bots think off the request path"): ``<prefix>{bot-turns-<n>}:q``, one
stream per partition (``bot_queue_partitions``, 16 by default; a game's turns go to the partition
of the CRC-32 of its id), each entry ``{g: game id, v: version}``, read by one consumer group
(``bot-workers``). Each partition's hash tag is its own, so on a cluster the partitions spread
over the masters (and each script stays in one slot). A push is ``XADD`` (a script, batched with
the commits on a single server, which on a cluster also publishes on the partition's sharded
channel ``<prefix>{bot-turns-<n>}:qw``). A take
runs a script that first reclaims (``XAUTOCLAIM``) the entries handed out at least
``reclaim_after_ms`` ago and never finished, then hands out new ones (``XREADGROUP``), oldest
first across the partitions it is given; it creates a partition's group, at id 0, when the
stream or the group is missing (first use, or a restart that lost them), so no turn pushed
before is skipped. With nothing to take it waits:

* on a single server, one ``XREADGROUP ... BLOCK`` over every partition, on a connection of its
  own (``blocking``, :mod:`.redis_clients`), so neither the batched pipeline nor the requests
  wait behind it. ``COUNT`` there is per stream: should pushes to two partitions land in one
  step of the server, the read may bring more than asked (from Redis 7.2, which runs a woken
  read again; 7.0 serves it one stream), and those beyond are handed back
  (``XCLAIM ... IDLE``) for the next take, by anyone, to reclaim at once as a first delivery. A
  turn pushed while a worker waits reaches it in about a millisecond on an idle server (the
  push's own round trip and one reply; 3 ms measured on a busy 2-core test machine);
* on a cluster, a blocking read would need a connection per partition (keys of a command must
  share a slot), so the workers wait on the partitions' channels instead, on the watchers'
  shared connection per node (:mod:`.subscriptions`), subscribed before the first look so no
  push falls in between; a message sends the worker to look at that partition only. The first
  look of each take visits the partitions one script each, starting at a different one each
  time: turns come out in push order within a partition, and the partitions take turns.

Finishing a turn is ``XACK`` and ``XDEL`` (one script): a stream holds only the turns waiting or
being decided, so the depth (:meth:`RedisStore.bot_queue_stats`) is the sum of ``XLEN`` and the
oldest push time is the smallest first entry id (entry ids are the server's clock). A take
cancelled during its blocking read may leave what the read took pending for its consumer: that
is reclaimed after ``reclaim_after_ms`` like a dead worker's.

Counting games (:meth:`RedisStore.count_games`) SCANs every primary for the game keys of this
prefix. That is exact up to games created or expired during the scan, costs O(keys on the
server), and is meant for a gauge sampled every 30-60 s, not for a request path. A counter key
was rejected: keys of one game live in that game's slot, so a counter would be a second, cross-slot
write outside the atomic script, and expiry (which no script sees) would never decrement it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator, Sequence
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
    ResponseError,
    TryAgainError,
)
from redis.exceptions import TimeoutError as RedisTimeoutError

from .call_spans import CallSpan, CallSpans
from .contract import (
    BotTurn,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    GameRecord,
    QueueStats,
    VersionedEvents,
)
from .encoding import decode_record, pack_events, request_digest, unpack_events
from .errors import GameExists, GameNotFound, StoreError, StoreUnavailable
from .failure_log import FailureLog
from .holdings import HOLD_GAME, RELEASE_GONE, check_holder, check_limit
from .keys import GameKeys, KeySpace
from .redis_clients import Clients, ClusterClients, SingleClients
from .scripts import (
    BOT_QUEUE_STATS,
    COMMIT,
    CREATE,
    DELETE,
    FINISH_BOT_TURN,
    HAND_BACK_BOT_TURNS,
    PUSH_BOT_TURN,
    READ_EVENTS,
    SETTLE_DEADLINE,
    TAKE_BOT_TURNS,
    TAKE_TOKEN,
    Command,
    PipelineRunner,
    ScriptCall,
    ScriptRunner,
    run_pipeline,
)
from .server_requirements import unmet
from .settings import StoreSettings
from .subscriptions import Subscription
from .validation import (
    check_bucket,
    check_bytes,
    check_events,
    check_game_id,
    check_job,
    check_queue_take,
    check_range,
    check_request_id,
    check_version,
)

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
#: Most calls in one pipeline: bounds the memory and the head-of-line wait of one batch.
_BATCH_MAX = 64
#: The consumer group every bot worker reads the bot queue's streams in.
_BOT_GROUP = "bot-workers"
#: How long the benchmark's reference write keeps its key, in milliseconds.
_PROBE_TTL_MS = 10_000
#: A script's run, as its span names it (its EVAL fallback, when the server lacks it, included).
_EVALSHA = "EVALSHA"


#: What :func:`_store_error` turns into a store error.
_TRANSLATED: tuple[type[BaseException], ...] = (TimeoutError, RedisError, *_UNAVAILABLE)
#: What redis-py raises, besides its own errors, when another task closed the connection it was
#: using: AttributeError (its reader or writer gone), RuntimeError (uvloop: its transport closed).
#: A store error only when raised beneath redis-py's connection code (:func:`_torn_connection`).
_TORN: tuple[type[BaseException], ...] = (AttributeError, RuntimeError)
#: What :meth:`RedisStore._failures` hands to :func:`_store_error`.
_CAUGHT: tuple[type[BaseException], ...] = (*_TRANSLATED, *_TORN)
#: redis-py's module of connections: where it connects, sends and reads.
_CONNECTION_MODULE = "redis.asyncio.connection"

#: One queued call: the store operation it serves (for its errors), the script run or command,
#: and its caller's future.
_Call = tuple[str, ScriptCall | Command, asyncio.Future[Any]]


#: Says in the log what the store failed with (the requests say only UNAVAILABLE).
_FAILURES = FailureLog(logging.getLogger("hanafuda_referee.store"))


async def _ended(span: CallSpan, call: Awaitable[Any]) -> Any:
    """The reply of ``call``, ending ``span`` when it comes (or the call fails)."""
    try:
        reply = await call
    except BaseException as error:
        span.end(error)
        raise
    span.end(None)
    return reply


def _torn_connection(exc: BaseException) -> bool:
    """Whether ``exc`` is redis-py tripping over a connection closed under it by another task:
    one of :data:`_TORN` raised beneath redis-py's connection code (or in it).

    redis-py's cluster client closes the connections of every node, those in use included, when
    a node answers CLUSTERDOWN (every node does, between a master's failure and its replica's
    promotion) or a discovery of the slots fails; an operation that was opening its connection
    then fails so (``tests/store/test_cluster_down.py``). It is a connection cut like any other:
    the command was not sent, or its reply is lost.
    """
    if not isinstance(exc, _TORN):
        return False
    frame = exc.__traceback__
    while frame is not None:
        if frame.tb_frame.f_globals.get("__name__") == _CONNECTION_MODULE:
            return True
        frame = frame.tb_next
    return False


def _store_error(operation: str, exc: BaseException) -> BaseException:
    """The store error that stands for ``exc`` (``exc`` itself if it is no Redis failure); a
    Redis failure is also noted in the :data:`_FAILURES` log."""
    torn = _torn_connection(exc)
    if torn or isinstance(exc, _TRANSLATED):
        _FAILURES.failed(operation, exc)
    if isinstance(exc, TimeoutError):  # the operation deadline (asyncio.timeout)
        error: BaseException = StoreUnavailable(f"{operation}: Redis did not answer in time")
    elif torn or isinstance(exc, _UNAVAILABLE):
        error = StoreUnavailable(f"{operation}: {type(exc).__name__}: {exc}")
    elif isinstance(exc, RedisError):
        error = StoreError(f"{operation}: {type(exc).__name__}: {exc}")
    else:
        return exc
    error.__cause__ = exc
    return error


#: A log read: the game id and the version it reads after.
_ReadKey = tuple[str, int]
_Read = asyncio.Task[list[VersionedEvents] | None]


class _SharedReads:
    """The watchers' log reads about to start, each shared by the watchers of its game who ask
    for it meanwhile: a commit wakes all of a game's watchers in this process at once (they
    resume in the same turn of the event loop), and each would read the same entries. A read
    takes no one once it has started: it might be answered before the commit that woke a later
    watcher. It runs in a task of its own, so a watcher that leaves does not cut it short for
    the others."""

    def __init__(self) -> None:
        self._reads: dict[_ReadKey, _Read] = {}

    async def read(
        self, key: _ReadKey, start: Callable[[], Coroutine[Any, Any, list[VersionedEvents] | None]]
    ) -> list[VersionedEvents] | None:
        """The entries of the read ``key`` (see the class docstring), starting it if need be."""
        task = self._reads.get(key)
        if task is None or task.done():
            task = self._reads[key] = asyncio.get_running_loop().create_task(self._run(key, start))
            task.add_done_callback(functools.partial(self._done, key))
        return await asyncio.shield(task)

    async def _run(
        self, key: _ReadKey, start: Callable[[], Coroutine[Any, Any, list[VersionedEvents] | None]]
    ) -> list[VersionedEvents] | None:
        self._forget(key, asyncio.current_task())
        return await start()

    def _done(self, key: _ReadKey, task: _Read) -> None:
        self._forget(key, task)
        if not task.cancelled():
            task.exception()  # retrieved, even if every watcher that wanted it has left

    def _forget(self, key: _ReadKey, task: object) -> None:
        if self._reads.get(key) is task:
            del self._reads[key]


class _Batcher:
    """Sends the calls (COMMIT runs, game loads, log reads) started in one event-loop iteration, and
    those started while the batch before was in flight, as one pipeline.

    :meth:`submit` returns a future per call, resolved with the call's raw reply, or failed
    with the store error of its own error reply or of its batch's failure. A batch is sent by a
    task of its own, so a caller that gives up (a cancelled request) cancels only its own future,
    never the batch, whose other calls may have run already.
    """

    def __init__(self, runner: PipelineRunner, timeout: float) -> None:
        self._runner = runner
        self._timeout = timeout
        #: The batch still taking calls, if any.
        self._open: list[_Call] | None = None
        #: Batches opened and not yet answered (the loop keeps only weak references to tasks).
        self._sending: set[asyncio.Task[None]] = set()
        #: Held by the batch in flight: the next one fills until it gets it.
        self._in_flight = asyncio.Lock()

    def submit(self, operation: str, call: ScriptCall | Command) -> asyncio.Future[Any]:
        """Add one call to the open batch, opening one if there is none; ``operation`` names
        the store operation in the errors it may fail with."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        batch = self._open
        if batch is None:
            batch = self._open = []
            task = loop.create_task(self._send(batch))
            self._sending.add(task)
            task.add_done_callback(functools.partial(self._sent, batch))
        batch.append((operation, call, future))
        if len(batch) >= _BATCH_MAX:
            self._open = None
        return future

    async def _send(self, batch: list[_Call]) -> None:
        # The task's first step runs at the end of the iteration that opened the batch; its
        # deadline starts then and covers the wait for the batch in flight.
        try:
            async with asyncio.timeout(self._timeout):
                async with self._in_flight:
                    if self._open is batch:
                        self._open = None
                    calls = [call for call in batch if not call[2].done()]
                    if not calls:
                        return
                    replies = await run_pipeline(self._runner, [call for _, call, _ in calls])
        except Exception as exc:  # a cancellation is left to _sent
            if self._open is batch:  # failed while waiting for its turn: closed now
                self._open = None
            for operation, _, future in batch:
                if not future.done():
                    future.set_exception(_store_error(operation, exc))
            return
        for (operation, _, future), reply in zip(calls, replies, strict=True):
            if not future.done():
                if isinstance(reply, Exception):
                    future.set_exception(_store_error(operation, reply))
                else:
                    future.set_result(reply)

    def _sent(self, batch: list[_Call], task: asyncio.Task[None]) -> None:
        """Done callback of a batch's task. If the task was cancelled (even before it started, as
        when the loop shuts down) or failed, fails the calls it left unanswered: their callers
        wait for nothing else."""
        self._sending.discard(task)
        if not task.cancelled() and task.exception() is None:
            return
        if self._open is batch:
            self._open = None
        for operation, _, future in batch:
            if not future.done():
                if task.cancelled():
                    future.set_exception(StoreUnavailable(f"{operation}: its batch was cancelled"))
                else:
                    error = StoreError(f"{operation}: the batch failed: {task.exception()!r}")
                    error.__cause__ = task.exception()
                    future.set_exception(error)

    async def close(self) -> None:
        """Wait for the batches in flight (each bounded by its deadline)."""
        if self._sending:
            await asyncio.wait(set(self._sending))


class RedisStore:
    """A :class:`~.contract.GameStore` in Redis. Build it with :meth:`connect` or ``open_store``."""

    def __init__(self, clients: Clients, settings: StoreSettings) -> None:
        self._clients = clients
        self._settings = settings
        self._keys = KeySpace(settings.key_prefix)
        # Read on every commit: the settings compute them.
        self._idle_ttl_ms = settings.idle_ttl_ms
        self._finished_ttl_ms = settings.finished_ttl_ms
        self._answer_keep_ms = settings.answer_keep_ms
        runner = clients.pipelines if settings.batch_commits else None
        self._batcher = None if runner is None else _Batcher(runner, settings.operation_timeout)
        self._watch_reads = _SharedReads()
        # redis-py's pools refuse a connection past their size rather than wait for one: a burst
        # of calls (a stalled server, a cluster, where nothing is batched) would fail at once.
        self._pooled = asyncio.Semaphore(settings.max_connections)
        #: The spans of the calls, when tracing is on (see trace_calls).
        self._spans: CallSpans | None = None
        #: The bot queue's streams, by partition, and where the next take starts looking.
        self._bot_keys = [
            self._keys.bot_turns(partition) for partition in range(settings.bot_queue_partitions)
        ]
        self._next_partition = 0
        #: A cluster's workers' wake-ups: every partition's channel, once first waited on.
        self._bot_wakeups: list[Subscription] | None = None
        self._wakeups_opening = asyncio.Lock()

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

    def bot_key_of(self, game_id: str) -> str:
        """The stream of the bot queue's partition that holds ``game_id``'s turns (for
        inspection in tests)."""
        return self._bot_keys[self._partition_of(check_game_id(game_id))]

    def trace_calls(self, spans: CallSpans | None) -> None:
        """Give each Redis call a span started by ``spans`` (see :mod:`.call_spans`), or none
        (None, the default). Every call sent alone is one span (a script's run is one, its
        EVAL fallback included); every call sent in a batch is one too, marked pipelined, from
        the call to its reply. The readiness checks, the watchers' wait for a message and the
        games' count are calls too, outside requests."""
        self._spans = spans

    def _traced(self, operation: str, command: str, future: asyncio.Future[Any]) -> Awaitable[Any]:
        """``future`` (a batched call's reply), its span ended when it comes, if it has one."""
        spans = self._spans
        span = None if spans is None else spans.start(operation, command, pipelined=True)
        return future if span is None else _ended(span, future)

    @property
    def probe_key(self) -> str:
        """The key :meth:`write_probe` sets."""
        return self._keys.probe()

    @contextmanager
    def _failures(self, operation: str) -> Iterator[None]:
        """Translate redis-py errors into store errors."""
        try:
            yield
        except _CAUGHT as exc:
            error = _store_error(operation, exc)
            if error is exc:  # not raised beneath redis-py's connection code: a defect, let out
                raise
            raise error from exc

    async def _run(
        self,
        operation: str,
        call: Coroutine[Any, Any, Any],
        timeout: float | None = None,
        *,
        pooled: bool = True,
        command: str = "",
    ) -> Any:
        """Await ``call`` under the operation deadline, translating failures. ``pooled``: the
        call takes a connection of the main client's pool, and waits (within the deadline) for
        one of the pool's places when all are taken. ``command``: the Redis command it sends,
        which names its span when calls are traced ("" for none: a wait for a message)."""
        if command and self._spans is not None:
            span = self._spans.start(operation, command)
            if span is not None:
                return await _ended(span, self._run(operation, call, timeout, pooled=pooled))
        try:
            with self._failures(operation):
                async with asyncio.timeout(timeout or self._settings.operation_timeout):
                    await self._clients.ready()
                    if not pooled:
                        return await call
                    async with self._pooled:
                        return await call
        finally:
            call.close()  # no-op once it ran; spares a "never awaited" warning if ready() failed

    # -- GameStore ----------------------------------------------------------------------------

    async def create(
        self,
        game_id: str,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        *,
        finished: bool = False,
    ) -> None:
        """See :meth:`.contract.GameStore.create`."""
        keys = self._keys.game(game_id)
        args: list[bytes | str | int] = [
            check_bytes("meta", meta),
            check_bytes("state", state),
            pack_events(check_events(events)),
            self._finished_ttl_ms if finished else self._idle_ttl_ms,
        ]
        created = await self._run(
            "create", CREATE.run(self._clients.main, keys.all(), args), command=_EVALSHA
        )
        if created != 1:
            raise GameExists(game_id)

    async def load(self, game_id: str) -> GameRecord | None:
        """See :meth:`.contract.GameStore.load`."""
        keys = self._keys.game(game_id)
        command: Command = ("LINDEX", keys.game, 0)
        if self._batcher is None:
            record = await self._run(
                "load", self._clients.main.execute_command(*command), command="LINDEX"
            )
        else:
            # As a commit's, the batch's deadline is this call's, and failures come translated.
            pending = self._batcher.submit("load", command)
            record = await (
                pending if self._spans is None else self._traced("load", "LINDEX", pending)
            )
        return None if record is None else decode_record(record)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        new_state: bytes,
        events: Sequence[bytes],
        request_id: str | None,
        answer: bytes,
        *,
        finished: bool = False,
    ) -> CommitResult:
        """See :meth:`.contract.GameStore.commit`. One script run (in a batch unless
        ``batch_commits`` is off), never retried."""
        keys = self._keys.game(game_id)
        check_request_id(request_id)
        args: list[bytes | str | int] = [
            int(expected_version),
            check_bytes("new_state", new_state),
            pack_events(check_events(events)),
            b"" if request_id is None else request_digest(request_id),
            check_bytes("answer", answer),
            self._finished_ttl_ms if finished else self._idle_ttl_ms,
            self._answer_keep_ms,
            keys.channel,
        ]
        if self._batcher is None:
            reply = await self._run(
                "commit", COMMIT.run(self._clients.main, keys.all(), args), command=_EVALSHA
            )
        else:
            # The batch's deadline is this call's: it starts by the end of this loop iteration
            # and fails every call it has not answered when it ends. Failures come translated.
            pending = self._batcher.submit("commit", ScriptCall(COMMIT, keys.all(), args))
            reply = await (
                pending if self._spans is None else self._traced("commit", _EVALSHA, pending)
            )
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
        bounds = (first + 1, first + limit)
        if self._batcher is None:
            reply = await self._run(
                "events",
                READ_EVENTS.run(self._clients.main, (keys.game,), bounds),
                command=_EVALSHA,
            )
        else:
            # Watchers of several games woken together read in one round trip.
            pending = self._batcher.submit("events", ScriptCall(READ_EVENTS, (keys.game,), bounds))
            reply = await (
                pending if self._spans is None else self._traced("events", _EVALSHA, pending)
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
            await self._run("watch", subscription.open(), pooled=False, command="SSUBSCRIBE")
            last = after_version
            started = False
            while True:
                entries = await self._watch_reads.read(
                    (game_id, last), functools.partial(self._read, keys, last, _WATCH_BATCH)
                )
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
                        pooled=False,
                    )
        finally:
            # Closing only drops a connection: its failure changes nothing for the consumer.
            with contextlib.suppress(RedisError, OSError):
                await subscription.close()

    async def delete(self, game_id: str) -> bool:
        """See :meth:`.contract.GameStore.delete`. One script, which also wakes the watchers."""
        keys = self._keys.game(game_id)
        removed = await self._run(
            "delete", DELETE.run(self._clients.main, keys.all(), (keys.channel,)), command=_EVALSHA
        )
        return bool(removed)

    async def take_token(self, bucket: str, per_second: float, size: int) -> float:
        """See :meth:`.contract.GameStore.take_token`. One script run on Redis's clock, so
        every replica draws from the same bucket."""
        check_bucket(per_second, size)
        args: list[bytes | str | int] = [repr(per_second / 1000), size]
        key = self._keys.rate(bucket)
        wait_ms = await self._run(
            "take_token", TAKE_TOKEN.run(self._clients.main, [key], args), command=_EVALSHA
        )
        return int(wait_ms) / 1000

    async def remember(self, key: str, value: bytes) -> bytes | None:
        """See :meth:`.contract.GameStore.remember`: ``SET NX GET PX``, one command."""
        value = check_bytes("value", value)
        command = (
            "SET", self._keys.remembered(key), value, "NX", "GET",
            "PX", self._settings.answer_keep_ms,
        )  # fmt: skip
        # get=True: redis-py's reply parser for SET gives the old value only when told.
        kept = await self._run("remember", self._clients.main.execute_command(*command, get=True))
        return None if kept is None else bytes(kept)

    async def recall(self, key: str) -> bytes | None:
        """See :meth:`.contract.GameStore.recall`."""
        command = ("GET", self._keys.remembered(key))
        kept = await self._run("recall", self._clients.main.execute_command(*command))
        return None if kept is None else bytes(kept)

    async def propose_deadline(self, game_id: str, deadline_ms: int) -> None:
        """See :meth:`.contract.GameStore.propose_deadline`: ``ZADD LT``, which adds or moves
        earlier, never later."""
        check_game_id(game_id)
        command = ("ZADD", self._keys.deadlines(), "LT", int(deadline_ms), game_id)
        await self._run("propose_deadline", self._clients.main.execute_command(*command))

    async def due_deadlines(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """See :meth:`.contract.GameStore.due_deadlines`."""
        command = (
            "ZRANGE", self._keys.deadlines(), "-inf", int(now_ms), "BYSCORE",
            "LIMIT", 0, int(limit), "WITHSCORES",
        )  # fmt: skip
        reply = await self._run("due_deadlines", self._clients.main.execute_command(*command))
        return [
            (member.decode() if isinstance(member, bytes) else str(member), int(float(score)))
            for member, score in _pairs(reply)
        ]

    async def settle_deadline(self, game_id: str, seen_ms: int, deadline_ms: int | None) -> None:
        """See :meth:`.contract.GameStore.settle_deadline`: one script on the index."""
        check_game_id(game_id)
        args: list[bytes | str | int] = [
            game_id,
            int(seen_ms),
            "" if deadline_ms is None else int(deadline_ms),
        ]
        key = self._keys.deadlines()
        await self._run("settle_deadline", SETTLE_DEADLINE.run(self._clients.main, [key], args))

    async def push_bot_turn(self, game_id: str, version: int, job: str = "") -> None:
        """See :meth:`.contract.GameStore.push_bot_turn`: one script, ``XADD`` to the game's
        partition (and, on a cluster, ``SPUBLISH`` on the partition's channel). A job is the
        entry's field ``j``; a turn has none."""
        check_game_id(game_id)
        check_version(version)
        check_job(job)
        partition = self._partition_of(game_id)
        channel = "" if self._clients.blocking else self._keys.bot_turns_channel(partition)
        keys = [self._bot_keys[partition]]
        args: list[bytes | str | int] = [game_id, version, channel, job]
        if self._batcher is None:
            await self._run(
                "push_bot_turn",
                PUSH_BOT_TURN.run(self._clients.main, keys, args),
                command=_EVALSHA,
            )
        else:
            # It follows a commit on a request's path: it joins the commits' batch.
            pending = self._batcher.submit("push_bot_turn", ScriptCall(PUSH_BOT_TURN, keys, args))
            await (
                pending if self._spans is None else self._traced("push_bot_turn", _EVALSHA, pending)
            )

    async def take_bot_turns(
        self, consumer: str, count: int, block_ms: int, reclaim_after_ms: int
    ) -> list[BotTurn]:
        """See :meth:`.contract.GameStore.take_bot_turns` and the module docstring ("The bot
        queue"): a script that reclaims and reads without waiting, then, with nothing to take,
        a wait for a push (a blocking ``XREADGROUP`` on a single server, the partitions'
        channels on a cluster), and again until ``block_ms`` has passed."""
        check_queue_take(consumer, count, block_ms, reclaim_after_ms)
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + block_ms / 1000
        blocking = self._clients.blocking
        wakeups = None
        if blocking is None and block_ms > 0:
            # Subscribed before the first look: a push after it wakes the wait below.
            wakeups = await self._bot_turn_wakeups()
        partitions: Sequence[int] = range(len(self._bot_keys))
        while True:
            turns = await self._take_now(consumer, count, reclaim_after_ms, partitions)
            left = give_up_at - loop.time()
            if turns or left <= 0:
                return turns
            if wakeups is None:
                assert blocking is not None
                turns = await self._block_for_turns(blocking, consumer, count, left)
                if turns:
                    return turns
            else:
                # Then look only where a push came: every waiting worker is woken by it.
                partitions = await self._wait_for_push(wakeups, left)

    def _partition_of(self, game_id: str) -> int:
        """The partition of the bot queue that holds ``game_id``'s turns (stable everywhere:
        CRC-32 of the id, not Python's salted hash)."""
        return zlib.crc32(game_id.encode()) % len(self._bot_keys)

    def _first_partition(self) -> int:
        """Where the next take starts looking: turned at each take, so that on a cluster every
        partition is looked at first in turn (a single server merges them by age anyway)."""
        self._next_partition = (self._next_partition + 1) % len(self._bot_keys)
        return self._next_partition

    async def _take_now(
        self, consumer: str, count: int, reclaim_after_ms: int, partitions: Sequence[int]
    ) -> list[BotTurn]:
        """The turns there are now, without waiting: one script over every partition on a
        single server; on a cluster (a script's keys must share a slot) one per partition of
        ``partitions``, starting at a different one each time, until ``count`` are taken."""
        first = self._first_partition()
        if self._clients.blocking is not None:
            groups = [self._bot_keys]
        else:
            n = len(partitions)
            groups = [[self._bot_keys[partitions[(first + i) % n]]] for i in range(n)]
            first = 0
        turns: list[BotTurn] = []
        for keys in groups:
            args: list[bytes | str | int] = [
                _BOT_GROUP,
                consumer,
                count - len(turns),
                reclaim_after_ms,
                first,
            ]
            reply = await self._run(
                "take_bot_turns",
                TAKE_BOT_TURNS.run(self._clients.main, keys, args),
                command=_EVALSHA,
            )
            # A sixth item is the entry's job, nil for a turn (or left out by an older script).
            turns.extend(
                _bot_turn(receipt, game_id, version, deliveries, (job[0] if job else None) or b"")
                for _, receipt, game_id, version, deliveries, *job in reply
            )
            if len(turns) >= count:
                break
        return turns

    async def _block_for_turns(
        self, client: ScriptRunner, consumer: str, count: int, left: float
    ) -> list[BotTurn]:
        """New turns, waiting up to ``left`` seconds for one: one ``XREADGROUP ... BLOCK`` over
        every partition, on the blocking client's connection. Empty if none came, or if a
        partition's group is gone (the next look creates it again)."""
        keys = self._bot_keys
        command = (
            "XREADGROUP", "GROUP", _BOT_GROUP, consumer, "COUNT", count,
            "BLOCK", max(1, round(left * 1000)), "STREAMS", *keys, *[">"] * len(keys),
        )  # fmt: skip

        async def read() -> Any:
            try:
                return await client.execute_command(*command)
            except ResponseError as error:
                # NOGROUP: a group (or its stream) is gone, as after a restart; UNBLOCKED: the
                # stream was deleted while the read waited.
                if str(error).startswith(("NOGROUP", "UNBLOCKED")):
                    return None
                raise

        reply = await self._run(
            "take_bot_turns",
            read(),
            timeout=left + self._settings.operation_timeout,
            pooled=False,
            command="XREADGROUP",
        )
        by_key = {key.encode(): n for n, key in enumerate(keys)}
        taken = [
            (
                by_key[bytes(key)],
                _bot_turn(receipt, fields[b"g"], fields[b"v"], 1, fields.get(b"j") or b""),
            )
            for key, entries in reply or []
            for receipt, fields in entries
        ]
        # COUNT is per stream: pushes to two partitions in one server step could bring more.
        for partition in {partition for partition, _ in taken[count:]}:
            extra = [turn.receipt for p, turn in taken[count:] if p == partition]
            await self._run(
                "take_bot_turns",
                HAND_BACK_BOT_TURNS.run(
                    self._clients.main, [keys[partition]], [_BOT_GROUP, consumer, *extra]
                ),
                command=_EVALSHA,
            )
        return [turn for _, turn in taken[:count]]

    async def _bot_turn_wakeups(self) -> list[Subscription]:
        """The subscriptions to every partition's channel, opened on first use and kept (a
        failed one is dropped, with its fellows, by :meth:`_wait_for_push`)."""
        async with self._wakeups_opening:
            if self._bot_wakeups is None:
                opened: list[Subscription] = []
                try:
                    for partition in range(len(self._bot_keys)):
                        channel = self._keys.bot_turns_channel(partition)
                        subscription: Subscription = await self._run(
                            "take_bot_turns", self._clients.subscription(channel)
                        )
                        opened.append(subscription)
                        await self._run(
                            "take_bot_turns",
                            subscription.open(),
                            pooled=False,
                            command="SSUBSCRIBE",
                        )
                except BaseException:
                    await _close_all(opened)
                    raise
                self._bot_wakeups = opened
            return self._bot_wakeups

    async def _wait_for_push(self, wakeups: list[Subscription], left: float) -> list[int]:
        """Wait up to ``left`` seconds for a push to any partition (a cluster's workers); the
        partitions pushed to (none: the time is up)."""

        async def wait() -> list[int]:
            waits = [asyncio.ensure_future(wakeup.wait(left)) for wakeup in wakeups]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()
            # A failed subscription raises its ConnectionError.
            return [n for n, w in enumerate(waits) if w.done() and not w.cancelled() and w.result()]

        try:
            woken: list[int] = await self._run(
                "take_bot_turns",
                wait(),
                timeout=left + self._settings.operation_timeout,
                pooled=False,
            )
        except StoreError:
            if self._bot_wakeups is wakeups:
                self._bot_wakeups = None
            await _close_all(wakeups)
            raise
        return woken

    async def finish_bot_turn(self, turn: BotTurn) -> None:
        """See :meth:`.contract.GameStore.finish_bot_turn`: one script, ``XACK`` and ``XDEL``."""
        key = self._bot_keys[self._partition_of(check_game_id(turn.game_id))]
        await self._run(
            "finish_bot_turn",
            FINISH_BOT_TURN.run(self._clients.main, [key], [_BOT_GROUP, turn.receipt]),
            command=_EVALSHA,
        )

    async def bot_queue_stats(self) -> QueueStats:
        """See :meth:`.contract.GameStore.bot_queue_stats`: the length and first entry of every
        partition (finished turns are deleted, so the length is the depth); one script on a
        single server, one per partition on a cluster."""
        if self._clients.blocking is not None:
            groups = [self._bot_keys]
        else:
            groups = [[key] for key in self._bot_keys]
        replies = await asyncio.gather(
            *[
                self._run(
                    "bot_queue_stats",
                    BOT_QUEUE_STATS.run(self._clients.main, keys, ()),
                    command=_EVALSHA,
                )
                for keys in groups
            ]
        )
        stats = [(int(length), bytes(first)) for reply in replies for length, first in reply]
        heads = [_entry_ms(first) for _, first in stats if first]
        return QueueStats(
            depth=sum(length for length, _ in stats),
            oldest_queued_ms=min(heads) if heads else None,
        )

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
                command="SCAN",
            )
        )

    async def unmet_requirements(self) -> list[str]:
        """What the server (each primary of a cluster) lacks that the referee needs, read from its
        INFO (see :mod:`.server_requirements`); a cluster's sentences name their node."""
        infos = await self._run("unmet_requirements", self._clients.server_infos(), command="INFO")
        return [
            f"{node}: {sentence}" if node else sentence
            for node, info in infos
            for sentence in unmet(info)
        ]

    async def ping(self) -> None:
        """PING the server (a cluster client: the node it picks, after discovering the cluster)."""
        await self._run("ping", self._clients.main.execute_command("PING"), command="PING")

    async def write_probe(self) -> None:
        """The benchmark's reference write: one plain SET of a short-lived key under the prefix
        (:attr:`probe_key`, 10 s), through the same client and deadline as every operation."""
        await self._run(
            "write_probe",
            self._clients.main.execute_command(
                "SET", self._keys.probe(), b"1", "PX", _PROBE_TTL_MS
            ),
            command="SET",
        )

    async def close(self) -> None:
        """Close the clients' connections (ends blocked watchers with StoreUnavailable), once the
        commit batches in flight are done."""
        if self._batcher is not None:
            await self._batcher.close()
        wakeups, self._bot_wakeups = self._bot_wakeups, None
        await _close_all(wakeups or [])
        with self._failures("close"):
            await self._clients.close()

    # -- what one client holds (see :mod:`.holdings`) ------------------------------------------

    async def hold_game(self, holder: str, game_id: str, limit: int) -> bool:
        """See :meth:`.contract.GameStore.hold_game`: one script on the holder's set."""
        check_game_id(game_id)
        key = self._keys.held(check_holder(holder))
        args: list[bytes | str | int] = [game_id, check_limit(limit), self._idle_ttl_ms]
        held = await self._run(
            "hold_game", HOLD_GAME.run(self._clients.main, [key], args), command=_EVALSHA
        )
        return bool(held)

    async def held_games(self, holder: str, grace_ms: int) -> list[str]:
        """See :meth:`.contract.GameStore.held_games`: the holder's set, then whether each of
        its games exists (one pipeline on a single server, a call per game on a cluster, where
        they live on other nodes), then one script dropping the games gone."""
        key = self._keys.held(check_holder(holder))
        members = await self._run(
            "held_games", self._clients.main.execute_command("ZRANGE", key, 0, -1), command="ZRANGE"
        )
        ids = [m.decode() if isinstance(m, bytes) else str(m) for m in members or ()]
        if not ids:
            return []
        found = await asyncio.gather(*(self._game_exists(game_id) for game_id in ids))
        gone = [game_id for game_id, exists in zip(ids, found, strict=True) if not exists]
        if gone:
            args: list[bytes | str | int] = [max(0, int(grace_ms)), *gone]
            await self._run(
                "held_games", RELEASE_GONE.run(self._clients.main, [key], args), command=_EVALSHA
            )
        return [game_id for game_id, exists in zip(ids, found, strict=True) if exists]

    async def _game_exists(self, game_id: str) -> bool:
        command: Command = ("EXISTS", self._keys.game(game_id).game)
        if self._batcher is None:
            reply = await self._run(
                "held_games", self._clients.main.execute_command(*command), command="EXISTS"
            )
        else:
            pending = self._batcher.submit("held_games", command)
            reply = await (
                pending if self._spans is None else self._traced("held_games", "EXISTS", pending)
            )
        return bool(reply)

    async def release_games(self, holder: str, game_ids: Sequence[str]) -> None:
        """See :meth:`.contract.GameStore.release_games`: ``ZREM``."""
        key = self._keys.held(check_holder(holder))
        if game_ids:
            command = ("ZREM", key, *(check_game_id(game_id) for game_id in game_ids))
            await self._run(
                "release_games", self._clients.main.execute_command(*command), command="ZREM"
            )

    async def memory_use(self) -> tuple[int, int] | None:
        """See :meth:`.contract.GameStore.memory_use`: ``INFO`` of each primary. A server that
        refuses ``INFO`` (an ACL, a managed offering) is not checked: None."""
        try:
            infos = await self._run("memory_use", self._clients.server_infos(), command="INFO")
        except StoreUnavailable:
            raise
        except StoreError:
            return None
        fullest: tuple[int, int] | None = None
        for _, info in infos:
            limit = int(info.get("maxmemory", 0) or 0)
            if limit <= 0:
                continue
            used = int(info.get("used_memory", 0) or 0)
            if fullest is None or used * fullest[1] > fullest[0] * limit:
                fullest = (used, limit)
        return fullest


def _entry_ms(entry_id: bytes | str) -> int:
    """The milliseconds part of a stream entry id: when Redis added it.

    >>> _entry_ms(b"1700000000123-4")
    1700000000123
    """
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[0])


def _bot_turn(
    receipt: bytes | str,
    game_id: bytes | str,
    version: bytes | str | int,
    deliveries: int,
    job: bytes | str = b"",
) -> BotTurn:
    """A turn from a stream entry (its id, its fields) and its delivery count."""
    receipt = receipt.decode() if isinstance(receipt, bytes) else receipt
    return BotTurn(
        receipt=receipt,
        game_id=game_id.decode() if isinstance(game_id, bytes) else game_id,
        version=int(version),
        queued_ms=_entry_ms(receipt),
        deliveries=int(deliveries),
        job=job.decode() if isinstance(job, bytes) else job,
    )


async def _close_all(subscriptions: list[Subscription]) -> None:
    """Close ``subscriptions``; closing only drops a connection's channel, so failures (of a
    connection that failed already) change nothing."""
    for subscription in subscriptions:
        with contextlib.suppress(RedisError, OSError):
            await subscription.close()


def _pairs(reply: Any) -> list[tuple[Any, Any]]:
    """A WITHSCORES reply as (member, score) pairs: redis-py gives pairs already for ZRANGE
    under RESP2 with its score callback, a flat list otherwise."""
    items = list(reply or [])
    if items and isinstance(items[0], (list, tuple)):
        return [(m, s) for m, s in items]
    return list(zip(items[0::2], items[1::2], strict=True))
