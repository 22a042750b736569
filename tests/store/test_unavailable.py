"""Failure behaviour against a throwaway server: fast typed failures, recovery without restart.

The server persists with an fsync'ed append-only file, so stopping and starting it on the same
port keeps the game: the test can tell "the store works again" from "the store lost the game".
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from redis.asyncio import Redis

from hanafuda_referee.store import (
    BotTurn,
    Committed,
    Duplicate,
    GameRecord,
    RedisStore,
    StoreSettings,
    StoreUnavailable,
    VersionedEvents,
    redis_store,
)
from hanafuda_referee.store.failure_log import FailureLog
from hanafuda_referee.store.scripts import COMMIT

from .servers import REDIS_SERVER, ServerProcess, free_port, private_server

pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed"),
]

SETTINGS = StoreSettings(
    key_prefix="t:",
    connect_timeout=0.3,
    socket_timeout=0.5,
    operation_timeout=1.0,
    watch_block=0.3,
)
#: A failure must surface within the operation deadline plus scheduling slack.
FAST = SETTINGS.operation_timeout + 0.5


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    durable = ["--appendonly", "yes", "--appendfsync", "always"]
    with private_server(tmp_path, durable) as process:
        yield process


@pytest_asyncio.fixture
async def store(server: ServerProcess) -> AsyncIterator[RedisStore]:
    store = RedisStore.connect(server.url, SETTINGS)
    await store.create("g1", b"s0", b"meta", [b"e0"])
    assert await store.commit("g1", 0, b"s1", [b"e1"], "r1", b"a1") == Committed(1)
    try:
        yield store
    finally:
        await store.close()


def operations(store: RedisStore) -> dict[str, Callable[[], Awaitable[object]]]:
    return {
        "load": lambda: store.load("g1"),
        "commit": lambda: store.commit("g1", 1, b"s2", [b"e2"], "r2", b"a2"),
        "create": lambda: store.create("g2", b"s", b"m", []),
        "events": lambda: store.events("g1", -1, 10),
        "count_games": store.count_games,
        "ping": store.ping,
        "push_bot_turn": lambda: store.push_bot_turn("g1", 1),
        "take_bot_turns": lambda: store.take_bot_turns("worker", 1, 0, 1000),
        "finish_bot_turn": lambda: store.finish_bot_turn(BotTurn("1-0", "g1", 1, 1, 1)),
        "bot_queue_stats": store.bot_queue_stats,
    }


async def assert_all_fail_fast(store: RedisStore) -> None:
    for name, operation in operations(store).items():
        started = time.monotonic()
        with pytest.raises(StoreUnavailable):
            await operation()
        elapsed = time.monotonic() - started
        assert elapsed < FAST, f"{name} took {elapsed:.2f} s to fail"


async def assert_game_intact_and_usable(store: RedisStore) -> None:
    assert await store.load("g1") == GameRecord(1, b"s1", b"meta")
    assert await store.commit("g1", 0, b"x", [], "r1", b"") == Duplicate(b"a1", 1)
    assert await store.commit("g1", 1, b"s2", [b"e2"], "r2", b"a2") == Committed(2)
    assert await store.events("g1", -1, 10) == [
        VersionedEvents(0, [b"e0"]),
        VersionedEvents(1, [b"e1"]),
        VersionedEvents(2, [b"e2"]),
    ]


async def test_stopped_server_fails_fast_and_store_recovers_on_restart(
    server: ServerProcess, store: RedisStore
) -> None:
    server.stop()
    await assert_all_fail_fast(store)
    server.start()
    await assert_game_intact_and_usable(store)  # same store object, same pool


async def test_hung_server_times_out_fast_and_store_recovers(
    server: ServerProcess, store: RedisStore
) -> None:
    assert server.process is not None
    os.kill(server.process.pid, signal.SIGSTOP)  # accepts connections, never answers
    try:
        await assert_all_fail_fast(store)
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    # The commit tried while the server hung may have reached its socket, and then ran when it
    # resumed: its outcome was unknown. Retrying it with its request id tells which, and it
    # never runs twice.
    assert await store.commit("g1", 0, b"x", [], "r1", b"") == Duplicate(b"a1", 1)
    retried = await store.commit("g1", 1, b"s2", [b"e2"], "r2", b"a2")
    assert retried in (Committed(2), Duplicate(b"a2", 2))
    assert await store.load("g1") == GameRecord(2, b"s2", b"meta")
    assert await store.events("g1", -1, 10) == [
        VersionedEvents(0, [b"e0"]),
        VersionedEvents(1, [b"e1"]),
        VersionedEvents(2, [b"e2"]),
    ]


async def test_a_blocked_watcher_fails_fast_when_the_server_goes(
    server: ServerProcess, store: RedisStore
) -> None:
    follower, seen = _follow(store, "g1")
    await _until(lambda: len(seen) >= 2)
    await asyncio.sleep(0.1)  # now blocked waiting for version 2
    assert seen == [0, 1]
    server.stop()
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(follower, 5)
    assert time.monotonic() - started < SETTINGS.watch_block + FAST
    server.start()
    # Resuming from the last version seen loses nothing.
    await store.commit("g1", 1, b"s2", [b"e2"], None, b"")
    resumed = [entry async for entry in _take(store.watch("g1", seen[-1]), 1)]
    assert resumed == [VersionedEvents(2, [b"e2"])]


async def test_a_worker_waiting_for_a_bot_turn_fails_fast_when_the_server_goes(
    server: ServerProcess, store: RedisStore
) -> None:
    """Its blocking read has no socket timeout: the closed connection ends it, and after the
    restart the queue works again (its stream and group kept in the append-only file)."""
    await store.push_bot_turn("g1", 1)
    (turn,) = await store.take_bot_turns("worker", 1, 0, 1000)
    waiting = asyncio.create_task(store.take_bot_turns("worker", 1, 30_000, 60_000))
    await asyncio.sleep(0.2)
    assert not waiting.done()
    server.stop()
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        await asyncio.wait_for(waiting, 5)
    assert time.monotonic() - started < FAST
    server.start()
    await store.finish_bot_turn(turn)
    await store.push_bot_turn("g1", 2)
    (turn,) = await store.take_bot_turns("worker", 1, 1000, 60_000)
    assert (turn.game_id, turn.version, turn.deliveries) == ("g1", 2, 1)


async def test_a_lost_watchers_connection_fails_every_watcher_and_the_next_watch_follows(
    server: ServerProcess, store: RedisStore
) -> None:
    """The watchers of a process share one connection: losing it fails them all at once (they
    resume), and the next watch opens a new one."""
    await store.create("g2", b"s0", b"meta", [b"e0"])
    followers, seen = zip(*(_follow(store, game_id) for game_id in ("g1", "g1", "g2")), strict=True)
    await _until(lambda: list(seen) == [[0, 1], [0, 1], [0]])
    raw = Redis.from_url(server.url)
    try:
        # One connection for the three watchers of two games.
        assert await raw.client_kill_filter(_type="pubsub") == 1
    finally:
        await raw.aclose()
    started = time.monotonic()
    for follower in followers:
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(follower, 5)
    assert time.monotonic() - started < FAST
    resumed = asyncio.create_task(_first(store.watch("g1", 1)))
    await asyncio.sleep(0.1)
    await store.commit("g1", 1, b"s2", [b"e2"], None, b"")
    assert await asyncio.wait_for(resumed, 5) == VersionedEvents(2, [b"e2"])


class _SilencingProxy:
    """A TCP proxy to a server that can silence the connections that have subscribed: they stay
    open and forward nothing more either way, as a connection whose peer vanished without a
    word (or that a firewall dropped) does. Connections opened later are left alone."""

    def __init__(self, target_port: int) -> None:
        self._target_port = target_port
        self._subscribed: list[asyncio.Event] = []  # set: that connection forwards nothing
        self._links: set[asyncio.Task[None]] = set()
        self.port = 0

    async def start(self) -> None:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]

    def silence(self) -> None:
        for silenced in self._subscribed:
            silenced.set()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._target_port)
        silenced = asyncio.Event()

        async def pipe(
            source: asyncio.StreamReader, sink: asyncio.StreamWriter, upstream: bool
        ) -> None:
            while data := await source.read(1 << 16):
                if upstream and b"SSUBSCRIBE" in data and silenced not in self._subscribed:
                    self._subscribed.append(silenced)
                if silenced.is_set():
                    await asyncio.Event().wait()  # hold the connection open, silent
                sink.write(data)
                await sink.drain()

        for link in (pipe(reader, up_writer, True), pipe(up_reader, writer, False)):
            task = asyncio.create_task(link)
            self._links.add(task)


async def test_a_watchers_connection_gone_silent_fails_its_watchers_who_resume(
    server: ServerProcess,
) -> None:
    proxy = _SilencingProxy(server.port)
    await proxy.start()
    store = RedisStore.connect(f"redis://127.0.0.1:{proxy.port}/0", SETTINGS)
    try:
        await store.create("g1", b"s0", b"meta", [b"e0"])
        follower, seen = _follow(store, "g1")
        await _until(lambda: seen == [0])
        proxy.silence()
        started = time.monotonic()
        # The watcher's reads still work (other connections): only the unanswered PING tells.
        with pytest.raises(StoreUnavailable):
            await asyncio.wait_for(follower, 5)
        assert time.monotonic() - started < 2 * SETTINGS.watch_block + FAST
        resumed = asyncio.create_task(_first(store.watch("g1", 0)))
        await asyncio.sleep(0.1)
        await store.commit("g1", 0, b"s1", [b"e1"], None, b"")
        assert await asyncio.wait_for(resumed, 5) == VersionedEvents(1, [b"e1"])
    finally:
        await store.close()


def _follow(store: RedisStore, game_id: str) -> tuple[asyncio.Task[None], list[int]]:
    """A watcher of ``game_id`` from its creation: its task, and the versions it has seen."""
    seen: list[int] = []

    async def follow() -> None:
        async for entry in store.watch(game_id, -1):
            seen.append(entry.version)

    return asyncio.create_task(follow()), seen


async def _until(condition: Callable[[], bool]) -> None:
    """Wait (3 s at most) until ``condition`` holds."""
    async with asyncio.timeout(3):
        while not condition():
            await asyncio.sleep(0.01)


async def _first(iterator: AsyncIterator[VersionedEvents]) -> VersionedEvents:
    async for entry in _take(iterator, 1):
        return entry
    raise AssertionError("the watch ended without an entry")


async def test_commit_reloads_the_script_after_the_server_forgot_it(
    server: ServerProcess, store: RedisStore
) -> None:
    raw = Redis.from_url(server.url)
    try:
        assert await raw.script_exists(COMMIT.sha) == [True]
        await raw.script_flush()
        assert await raw.script_exists(COMMIT.sha) == [False]
        assert await store.commit("g1", 1, b"s2", [b"e2"], None, b"") == Committed(2)
        assert await raw.script_exists(COMMIT.sha) == [True]
    finally:
        await raw.aclose()


async def test_a_server_at_its_memory_limit_refuses_growth_and_serves_the_rest(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``maxmemory`` reached (``noeviction``), Redis refuses what would take more memory: a
    new game and a move fail as unavailable and change nothing, while reads, a retried move's
    answer and deletions go on; once memory is freed, both work again."""
    # A failure log of its own: the module's may have said these failures within its period.
    store_log = logging.getLogger("hanafuda_referee.store")
    monkeypatch.setattr(redis_store, "_FAILURES", FailureLog(store_log))
    caplog.set_level(logging.WARNING, logger=store_log.name)
    with private_server(tmp_path, ["--maxmemory-policy", "noeviction"]) as server:
        store = RedisStore.connect(server.url, SETTINGS)
        raw = Redis.from_url(server.url)
        try:
            await store.create("g1", b"s0", b"meta", [b"e0"])
            assert await store.commit("g1", 0, b"s1", [b"e1"], "r1", b"a1") == Committed(1)
            await store.create("g3", b"s", b"m", [])
            used = (await raw.info("memory"))["used_memory"]
            await raw.config_set("maxmemory", used // 2)

            with pytest.raises(StoreUnavailable):
                await store.create("g2", b"s", b"m", [b"e"])
            with pytest.raises(StoreUnavailable):
                await store.commit("g1", 1, b"s2", [b"e2"], "r2", b"a2")
            with pytest.raises(StoreUnavailable):
                await store.commit("g1", 1, b"s2", [b"e2"], "r2", b"a2")
            # The cause is logged, by its class and once a period, never by its message.
            assert [
                (r.getMessage(), r.__dict__["operation"], r.__dict__["error"])
                for r in caplog.records
            ] == [
                ("game store failed", "create", "OutOfMemoryError"),
                ("game store failed", "commit", "OutOfMemoryError"),
            ]
            assert await store.load("g2") is None
            assert await store.load("g1") == GameRecord(1, b"s1", b"meta")
            assert await store.events("g1", -1, 10) == [
                VersionedEvents(0, [b"e0"]),
                VersionedEvents(1, [b"e1"]),
            ]
            assert await store.commit("g1", 0, b"x", [], "r1", b"") == Duplicate(b"a1", 1)
            assert await store.delete("g3") is True
            assert await store.count_games() == 1

            await raw.config_set("maxmemory", 0)
            await store.create("g2", b"s", b"m", [b"e"])
            assert await store.commit("g1", 1, b"s2", [b"e2"], "r2", b"a2") == Committed(2)
            assert await store.count_games() == 2
        finally:
            await raw.aclose()
            await store.close()


async def test_unreachable_server_fails_fast_when_never_connected() -> None:
    store = RedisStore.connect(f"redis://127.0.0.1:{free_port()}/0", SETTINGS)
    try:
        await assert_all_fail_fast(store)
    finally:
        await store.close()


async def _take(
    iterator: AsyncIterator[VersionedEvents], count: int
) -> AsyncIterator[VersionedEvents]:
    async for entry in iterator:
        yield entry
        count -= 1
        if count == 0:
            return
