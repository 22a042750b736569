"""Batched commits and loads: concurrent calls share one pipeline and keep their own outcomes.

The outcome tests run on one server and on a Redis Cluster (where each call goes alone); the
ones about how calls are grouped watch the pipelines a single server's clients send, through
a subclass of its clients that records them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError

from hanafuda_referee.store import (
    Committed,
    Conflict,
    Duplicate,
    GameNotFound,
    GameRecord,
    RedisStore,
    StoreError,
    StoreSettings,
    StoreUnavailable,
    VersionedEvents,
    parse_store_url,
)
from hanafuda_referee.store.redis_clients import ClusterClients, SingleClients
from hanafuda_referee.store.scripts import Command

from .conftest import Backend
from .servers import REDIS_SERVER, ServerProcess, private_server

pytestmark = pytest.mark.asyncio

META = b"meta"


def state(game: int, version: int) -> bytes:
    return b"state-%d-%d:" % (game, version) + bytes([version % 256]) * 50


class RecordingClients(SingleClients):
    """Single-server clients that record the command names of every pipeline they send."""

    def __init__(self, url: str, settings: StoreSettings) -> None:
        super().__init__(url, settings)
        self.pipelines_sent: list[list[str]] = []

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        self.pipelines_sent.append([str(command[0]) for command in commands])
        return await super().pipeline(commands)


class FlushingClients(RecordingClients):
    """Once armed, flushes the server's scripts halfway through the next pipeline's commands:
    the commits before run, the ones after are answered NOSCRIPT."""

    armed = False
    #: Whether the pipeline after the flush fails as if the connection were lost.
    lose_next = False

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        if self.lose_next and not self.armed:
            self.lose_next = False
            self.pipelines_sent.append([str(command[0]) for command in commands])
            raise RedisConnectionError("connection lost (simulated)")
        if not self.armed:
            return await super().pipeline(commands)
        self.armed = False
        half = len(commands) // 2
        sent = [*commands[:half], ("SCRIPT", "FLUSH"), *commands[half:]]
        replies = await super().pipeline(sent)
        self.pipelines_sent[-1] = [str(command[0]) for command in commands]
        return replies[:half] + replies[half + 1 :]


def open_redis_store(backend: Backend, clients: SingleClients | None = None) -> RedisStore:
    """A store on ``backend`` (``clients``, if given, for a single server), closed at cleanup."""
    assert backend.url is not None
    if clients is None:
        redis_url, cluster = parse_store_url(backend.url)
        store = RedisStore.connect(redis_url, backend.settings, cluster=cluster)
    else:
        store = RedisStore(clients, backend.settings)
    backend.opened.append(store)
    return store


def recording_store(
    backend: Backend, kind: type[RecordingClients] = RecordingClients
) -> tuple[RedisStore, RecordingClients]:
    assert backend.url is not None and backend.kind == "redis"
    clients = kind(backend.url, backend.settings)
    return open_redis_store(backend, clients), clients


async def flush_scripts(url: str) -> None:
    """SCRIPT FLUSH on the server, or on every primary of the cluster."""
    redis_url, cluster = parse_store_url(url)
    if cluster:
        cluster_client = RedisCluster.from_url(redis_url)
        try:
            await cluster_client.initialize()
            for node in cluster_client.get_primaries():
                await cluster_client.execute_command("SCRIPT", "FLUSH", target_nodes=node)
        finally:
            await cluster_client.aclose()
        return
    client = Redis.from_url(redis_url)
    try:
        await client.script_flush()
    finally:
        await client.aclose()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    with private_server(tmp_path) as process:
        yield process


@pytest_asyncio.fixture(params=["redis", "cluster"])
async def flushable_backend(request: pytest.FixtureRequest) -> AsyncIterator[Backend]:
    """A server of this test's own, then the cluster: their scripts may be flushed."""
    kind: str = request.param
    if kind == "redis":
        url = request.getfixturevalue("server").url
    else:
        url = request.getfixturevalue("cluster_url")
    backend = Backend(kind, url)
    try:
        yield backend
    finally:
        await backend.cleanup()


async def create_games(store: RedisStore, count: int) -> list[str]:
    games = [f"game-{n}" for n in range(count)]
    for n, game in enumerate(games):
        await store.create(game, state(n, 0), META, [b"dealt"])
    return games


async def break_game(backend: Backend, store: RedisStore, game: str) -> None:
    """Replace ``game``'s list by a string: every LINDEX of it (a load's, a commit script's)
    then fails with WRONGTYPE."""
    redis_url, cluster = parse_store_url(backend.url or "")
    raw: Redis | RedisCluster = (
        RedisCluster.from_url(redis_url) if cluster else Redis.from_url(redis_url)
    )
    try:
        await raw.set(store.keys_of(game).game, b"not a list")
    finally:
        await raw.aclose()


# -- outcomes (single server and cluster) -------------------------------------------------------


@pytest.mark.parametrize("backend", ["redis", "cluster"], indirect=True)
async def test_concurrent_commits_to_different_games_all_land_in_order(
    backend: Backend,
) -> None:
    store = open_redis_store(backend)
    games = await create_games(store, 40)
    moves = 5

    async def play(n: int, game: str) -> list[object]:
        return [
            await store.commit(game, v, state(n, v + 1), [b"e%d" % (v + 1)], f"r{v}", b"a")
            for v in range(moves)
        ]

    results = await asyncio.gather(*(play(n, game) for n, game in enumerate(games)))
    expected = [Committed(v + 1) for v in range(moves)]
    assert results == [expected] * len(games)
    for n, game in enumerate(games):
        assert await store.load(game) == GameRecord(moves, state(n, moves), META)
        assert await store.events(game, -1, 100) == [
            VersionedEvents(0, [b"dealt"]),
            *(VersionedEvents(v, [b"e%d" % v]) for v in range(1, moves + 1)),
        ]


@pytest.mark.parametrize("backend", ["redis", "cluster"], indirect=True)
async def test_conflicting_commits_on_one_game_exactly_one_wins(backend: Backend) -> None:
    store = open_redis_store(backend)
    [game] = await create_games(store, 1)
    rivals = 10
    results = await asyncio.gather(
        *(store.commit(game, 0, state(r, 1), [b"r%d" % r], None, b"") for r in range(rivals))
    )
    winners = [r for r, result in enumerate(results) if isinstance(result, Committed)]
    assert len(winners) == 1
    [winner] = winners
    assert results[winner] == Committed(1)
    assert [result for r, result in enumerate(results) if r != winner] == [
        Conflict(1, state(winner, 1))
    ] * (rivals - 1)
    assert await store.load(game) == GameRecord(1, state(winner, 1), META)
    assert await store.events(game, 0, 10) == [VersionedEvents(1, [b"r%d" % winner])]


@pytest.mark.parametrize("backend", ["redis", "cluster"], indirect=True)
async def test_each_commit_of_a_batch_gets_its_own_outcome(backend: Backend) -> None:
    store = open_redis_store(backend)
    fresh, answered, stale = await create_games(store, 3)
    assert await store.commit(answered, 0, b"s1", [b"e1"], "req", b"the answer") == Committed(1)
    assert await store.commit(stale, 0, b"s1", [b"e1"], None, b"") == Committed(1)
    results = await asyncio.gather(
        store.commit(fresh, 0, b"s1", [b"e1"], "req", b""),
        store.commit(answered, 0, b"retry", [b"x"], "req", b"other"),
        store.commit(stale, 0, b"late", [b"x"], None, b""),
        store.commit("missing", 0, b"s1", [], None, b""),
        return_exceptions=True,
    )
    assert list(results[:3]) == [Committed(1), Duplicate(b"the answer", 1), Conflict(1, b"s1")]
    assert isinstance(results[3], GameNotFound)


@pytest.mark.parametrize("backend", ["redis", "cluster"], indirect=True)
async def test_an_error_reply_fails_only_its_own_commit(backend: Backend) -> None:
    store = open_redis_store(backend)
    good, broken = await create_games(store, 2)
    await break_game(backend, store, broken)
    results = await asyncio.gather(
        store.commit(good, 0, b"s1", [b"e1"], None, b""),
        store.commit(broken, 0, b"s1", [b"e1"], None, b""),
        return_exceptions=True,
    )
    assert results[0] == Committed(1)
    assert isinstance(results[1], StoreError)
    assert not isinstance(results[1], StoreUnavailable)
    assert "WRONGTYPE" in str(results[1])


async def test_commits_after_a_script_flush_each_land_once(flushable_backend: Backend) -> None:
    store = open_redis_store(flushable_backend)
    games = await create_games(store, 20)
    for n, game in enumerate(games):  # the script is cached everywhere
        assert await store.commit(game, 0, state(n, 1), [b"one"], None, b"") == Committed(1)
    assert flushable_backend.url is not None
    await flush_scripts(flushable_backend.url)
    results = await asyncio.gather(
        *(store.commit(game, 1, state(n, 2), [b"two"], None, b"") for n, game in enumerate(games))
    )
    assert results == [Committed(2)] * len(games)
    for n, game in enumerate(games):
        assert await store.load(game) == GameRecord(2, state(n, 2), META)
        assert await store.events(game, 0, 10) == [
            VersionedEvents(1, [b"one"]),
            VersionedEvents(2, [b"two"]),
        ]


# -- how commits are grouped (single server) ----------------------------------------------------


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_commits_of_one_loop_iteration_share_one_pipeline(backend: Backend) -> None:
    store, clients = recording_store(backend)
    games = await create_games(store, 100)
    assert await store.commit(games[0], 0, b"s", [], None, b"") == Committed(1)
    assert clients.pipelines_sent == [["EVALSHA"]]  # a lone commit: a pipeline of one

    clients.pipelines_sent.clear()
    results = await asyncio.gather(
        *(store.commit(game, 0, b"s", [], None, b"") for game in games[1:33])
    )
    assert results == [Committed(1)] * 32
    assert clients.pipelines_sent == [["EVALSHA"] * 32]

    clients.pipelines_sent.clear()
    versions = [1] * 33 + [0] * 67
    results = await asyncio.gather(
        *(
            store.commit(game, v, b"s", [], None, b"")
            for game, v in zip(games, versions, strict=True)
        )
    )
    assert results == [Committed(v + 1) for v in versions]
    assert clients.pipelines_sent == [["EVALSHA"] * 64, ["EVALSHA"] * 36]  # at most 64 each

    clients.pipelines_sent.clear()
    for game in games[:3]:  # one after the other: nothing to share
        assert await store.commit(game, 2, b"s", [], None, b"") == Committed(3)
    assert clients.pipelines_sent == [["EVALSHA"]] * 3


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_loads_join_the_pipeline_of_their_loop_iteration_in_call_order(
    backend: Backend,
) -> None:
    store, clients = recording_store(backend)
    first, second = await create_games(store, 2)
    results = await asyncio.gather(
        store.load(first),
        store.commit(first, 0, state(0, 1), [b"e1"], None, b""),
        store.load(first),
        store.load(second),
        store.load("missing"),
    )
    assert list(results) == [
        GameRecord(0, state(0, 0), META),
        Committed(1),
        GameRecord(1, state(0, 1), META),  # made after the commit: sees it
        GameRecord(0, state(1, 0), META),
        None,
    ]
    assert clients.pipelines_sent == [["LINDEX", "EVALSHA", "LINDEX", "LINDEX", "LINDEX"]]


@pytest.mark.parametrize("backend", ["redis", "cluster"], indirect=True)
async def test_an_error_reply_fails_only_its_own_load(backend: Backend) -> None:
    store = open_redis_store(backend)
    good, broken = await create_games(store, 2)
    await break_game(backend, store, broken)
    results = await asyncio.gather(store.load(good), store.load(broken), return_exceptions=True)
    assert results[0] == GameRecord(0, state(0, 0), META)
    assert isinstance(results[1], StoreError)
    assert not isinstance(results[1], StoreUnavailable)
    assert "load" in str(results[1]) and "WRONGTYPE" in str(results[1])


class GatedClients(RecordingClients):
    """Clients whose pipelines, while ``gate`` is an event, are recorded and then wait for that
    event before they go: a batch held in flight, or a server that hangs."""

    gate: asyncio.Event | None = None

    async def pipeline(self, commands: Sequence[Command]) -> list[Any]:
        if self.gate is None:
            return await super().pipeline(commands)
        self.pipelines_sent.append([str(command[0]) for command in commands])
        await self.gate.wait()
        return await SingleClients.pipeline(self, commands)


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_commits_started_while_a_batch_is_in_flight_go_together_next(
    backend: Backend,
) -> None:
    store, clients = recording_store(backend, GatedClients)
    games = await create_games(store, 7)
    assert isinstance(clients, GatedClients)
    release = clients.gate = asyncio.Event()
    first = asyncio.create_task(store.commit(games[0], 0, b"s", [], None, b""))
    await asyncio.sleep(0.01)  # its batch is in flight, held at the gate
    later = []
    for pair in (games[1:3], games[3:5], games[5:7]):  # over three iterations of the loop
        later += [asyncio.create_task(store.commit(g, 0, b"s", [], None, b"")) for g in pair]
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)
    assert clients.pipelines_sent == [["EVALSHA"]]  # the next batch waits for the first
    release.set()
    assert await first == Committed(1)
    assert await asyncio.gather(*later) == [Committed(1)] * 6
    assert clients.pipelines_sent == [["EVALSHA"], ["EVALSHA"] * 6]


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_a_batch_waiting_for_its_turn_fails_at_its_own_deadline(backend: Backend) -> None:
    settings = replace(backend.settings, operation_timeout=0.5)
    clients = GatedClients(backend.url or "", settings)
    store = RedisStore(clients, settings)
    backend.opened.append(store)
    games = await create_games(store, 3)
    clients.gate = asyncio.Event()  # never set: every pipeline hangs, as on a hung server
    held = asyncio.create_task(store.commit(games[0], 0, b"s", [], None, b""))
    # Its batch is in flight. Half the timeout later, so that the next batch has a quarter of a
    # second to be sent, between that one's failure and its own deadline, on a loaded machine.
    await asyncio.sleep(settings.operation_timeout / 2)
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await store.commit(games[1], 0, b"s", [], None, b"")
    # Its deadline covered its wait for the batch in flight: not that one's and then its own.
    assert time.monotonic() - started < settings.operation_timeout + 0.2
    with pytest.raises(StoreUnavailable):
        await held
    assert clients.pipelines_sent == [["EVALSHA"], ["EVALSHA"]]
    clients.gate = None  # the server answers again: the batcher takes commits as before
    assert await store.commit(games[2], 0, b"s", [], None, b"") == Committed(1)


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_with_batching_off_each_commit_goes_alone(backend: Backend) -> None:
    settings = replace(backend.settings, batch_commits=False)
    assert backend.url is not None
    clients = RecordingClients(backend.url, settings)
    store = RedisStore(clients, settings)
    backend.opened.append(store)
    games = await create_games(store, 5)
    results = await asyncio.gather(*(store.commit(game, 0, b"s", [], None, b"") for game in games))
    assert results == [Committed(1)] * 5
    assert clients.pipelines_sent == []


async def test_cluster_clients_send_each_commit_alone(cluster_url: str) -> None:
    redis_url, _ = parse_store_url(cluster_url)
    clients = ClusterClients(redis_url, StoreSettings())
    try:
        assert clients.pipelines is None
    finally:
        await clients.close()


async def test_noscript_in_a_batch_sends_only_those_commits_again(server: ServerProcess) -> None:
    backend = Backend("redis", server.url)
    try:
        store, clients = recording_store(backend, FlushingClients)
        games = await create_games(store, 11)
        spare = games.pop()
        assert await store.commit(spare, 0, b"s", [], None, b"") == Committed(1)  # now cached
        assert isinstance(clients, FlushingClients)
        clients.pipelines_sent.clear()
        clients.armed = True
        results = await asyncio.gather(
            *(store.commit(game, 0, state(n, 1), [b"e"], None, b"") for n, game in enumerate(games))
        )
        assert results == [Committed(1)] * 10
        # The first five ran before the flush; the last five, answered NOSCRIPT, went again.
        assert clients.pipelines_sent == [["EVALSHA"] * 10, ["EVAL"] * 5]
        for n, game in enumerate(games):
            assert await store.events(game, -1, 10) == [
                VersionedEvents(0, [b"dealt"]),
                VersionedEvents(1, [b"e"]),
            ]
            assert await store.load(game) == GameRecord(1, state(n, 1), META)
    finally:
        await backend.cleanup()


async def test_a_failed_eval_pipeline_fails_only_the_commits_it_carried(
    server: ServerProcess,
) -> None:
    backend = Backend("redis", server.url)
    try:
        store, clients = recording_store(backend, FlushingClients)
        games = await create_games(store, 11)
        assert await store.commit(games.pop(), 0, b"s", [], None, b"") == Committed(1)
        assert isinstance(clients, FlushingClients)
        clients.armed = clients.lose_next = True
        results = await asyncio.gather(
            *(store.commit(game, 0, b"s1", [b"e"], None, b"") for game in games),
            return_exceptions=True,
        )
        assert results[:5] == [Committed(1)] * 5  # ran before the flush: their replies stand
        assert all(isinstance(result, StoreUnavailable) for result in results[5:]), results
        for n, game in enumerate(games):
            record = await store.load(game)
            assert record is not None and record.version == (1 if n < 5 else 0)
    finally:
        await backend.cleanup()


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_a_commit_given_up_before_its_batch_went_is_not_sent(
    backend: Backend,
) -> None:
    store, clients = recording_store(backend)
    abandoned, kept = await create_games(store, 2)
    gone = asyncio.create_task(store.commit(abandoned, 0, b"s1", [b"e"], None, b""))
    other = asyncio.create_task(store.commit(kept, 0, b"s1", [b"e"], None, b""))
    await asyncio.sleep(0)  # both queued in the batch, which goes at the end of this iteration
    gone.cancel()
    assert await other == Committed(1)
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert clients.pipelines_sent == [["EVALSHA"]]
    assert await store.load(abandoned) == GameRecord(0, state(0, 0), META)


@pytest.mark.parametrize("backend", ["redis"], indirect=True)
async def test_a_batch_cancelled_before_it_went_fails_its_commits(backend: Backend) -> None:
    store, clients = recording_store(backend)
    [game] = await create_games(store, 1)
    commit = asyncio.create_task(store.commit(game, 0, b"s1", [], None, b""))
    await asyncio.sleep(0)  # queued; its batch goes at the end of this iteration
    [batch] = [
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") == "_Batcher._send"
    ]
    batch.cancel()  # as a shutting-down loop would
    with pytest.raises(StoreUnavailable, match="cancelled"):
        async with asyncio.timeout(5):  # without its batch, nothing else would answer it
            await commit
    assert clients.pipelines_sent == []
    assert await store.commit(game, 0, b"s1", [], None, b"") == Committed(1)  # a new batch


# -- failures (a server of the test's own) --------------------------------------------------------

FAILING = StoreSettings(
    key_prefix="t:",
    connect_timeout=0.3,
    socket_timeout=0.5,
    operation_timeout=1.0,
)
#: A failure must surface within the operation deadline plus scheduling slack.
FAST = FAILING.operation_timeout + 0.5


@pytest_asyncio.fixture
async def failing(server: ServerProcess) -> AsyncIterator[tuple[RedisStore, RecordingClients]]:
    """A store on ``server`` with ten games, each committed once (connections open)."""
    clients = RecordingClients(server.url, FAILING)
    store = RedisStore(clients, FAILING)
    games = await create_games(store, 10)
    results = await asyncio.gather(*(store.commit(game, 0, b"s1", [], None, b"") for game in games))
    assert results == [Committed(1)] * 10
    clients.pipelines_sent.clear()
    try:
        yield store, clients
    finally:
        await store.close()


async def commit_all_expecting_unavailable(store: RedisStore) -> None:
    started = time.monotonic()
    async with asyncio.timeout(FAST + 5):  # a store without a deadline would hang here
        results = await asyncio.gather(
            *(store.commit(f"game-{n}", 1, b"s2", [b"e2"], None, b"") for n in range(10)),
            return_exceptions=True,
        )
    elapsed = time.monotonic() - started
    assert all(isinstance(result, StoreUnavailable) for result in results), results
    assert elapsed < FAST, f"the batch took {elapsed:.2f} s to fail"


async def test_a_stopped_server_fails_every_commit_of_the_batch_fast(
    server: ServerProcess, failing: tuple[RedisStore, RecordingClients]
) -> None:
    store, clients = failing
    server.stop()
    await commit_all_expecting_unavailable(store)
    assert clients.pipelines_sent == [["EVALSHA"] * 10]  # one attempt, never retried
    server.start()  # no persistence: an empty server, which the same store uses again
    await store.create("after", b"s0", META, [])
    assert await store.commit("after", 0, b"s1", [], None, b"") == Committed(1)


async def test_a_stopped_server_fails_every_load_of_the_batch_fast(
    server: ServerProcess, failing: tuple[RedisStore, RecordingClients]
) -> None:
    store, clients = failing
    server.stop()
    started = time.monotonic()
    async with asyncio.timeout(FAST + 5):
        results = await asyncio.gather(
            *(store.load(f"game-{n}") for n in range(10)), return_exceptions=True
        )
    assert time.monotonic() - started < FAST
    assert all(isinstance(result, StoreUnavailable) for result in results), results
    assert all(str(result).startswith("load") for result in results), results
    assert clients.pipelines_sent == [["LINDEX"] * 10]
    server.start()
    assert await store.load("game-0") is None  # no persistence: an empty server


async def test_after_a_server_restart_the_next_batch_reconnects(
    server: ServerProcess, failing: tuple[RedisStore, RecordingClients]
) -> None:
    store, clients = failing
    # In a thread: the loop runs on meanwhile, as it would, and sees the server close the idle
    # connection the last batch used.
    await asyncio.to_thread(server.stop)
    await asyncio.to_thread(server.start)  # no persistence: an empty server, without the script
    with pytest.raises(GameNotFound):  # answered: the batch went on a new connection
        await store.commit("game-0", 1, b"s2", [], None, b"")
    assert clients.pipelines_sent == [["EVALSHA"], ["EVAL"]]


async def test_a_hung_server_fails_the_batch_at_its_deadline_and_runs_each_commit_once(
    server: ServerProcess, failing: tuple[RedisStore, RecordingClients]
) -> None:
    store, clients = failing
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGSTOP)  # accepts connections, never answers
    try:
        await commit_all_expecting_unavailable(store)
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    assert clients.pipelines_sent == [["EVALSHA"] * 10]
    # The batch reached the hung server's socket: it may run once the server resumes, but
    # once only (it was not sent again), and the store works on.
    for n in range(10):
        record = await store.load(f"game-{n}")
        assert record is not None and record.version in (1, 2)
        events = await store.events(f"game-{n}", -1, 10)
        assert [entry.version for entry in events] == list(range(record.version + 1))
        retry = await store.commit(f"game-{n}", 1, b"s2", [b"e2"], None, b"")
        assert retry == (Committed(2) if record.version == 1 else Conflict(2, b"s2"))
