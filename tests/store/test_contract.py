"""The store contract, run against the in-memory store, one Redis server and a Redis Cluster."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import pytest

from hanafuda_referee.store import (
    Committed,
    Conflict,
    Duplicate,
    GameExists,
    GameNotFound,
    GameRecord,
    GameStore,
    MemoryStore,
    StoreFull,
    StoreSettings,
    StoreUnavailable,
    VersionedEvents,
    memory_store,
)
from hanafuda_referee.store.failure_log import FailureLog

from .conftest import Backend, FakeClock

pytestmark = pytest.mark.asyncio

STATE0 = bytes(range(256)) * 2 + b"\x00:state-0"
META = b"meta:\x00{seat-hashes}\xff"


def state(n: int) -> bytes:
    return b"state-%d:" % n + bytes([n % 256]) * 100


async def make_game(store: GameStore, game_id: str = "g1") -> str:
    await store.create(game_id, STATE0, META, [b"dealt", b"\x00\x01"])
    return game_id


# -- create / load -------------------------------------------------------------------------------


async def test_create_then_load_returns_version_zero_state_and_meta(store: GameStore) -> None:
    await make_game(store)
    assert await store.load("g1") == GameRecord(version=0, state=STATE0, meta=META)
    version, loaded_state, loaded_meta = await store.load("g1") or (None, None, None)
    assert (version, loaded_state, loaded_meta) == (0, STATE0, META)


async def test_load_of_unknown_game_is_none(store: GameStore) -> None:
    assert await store.load("nobody") is None


async def test_create_refuses_an_existing_id_and_keeps_the_game(store: GameStore) -> None:
    await make_game(store)
    await store.commit("g1", 0, state(1), [b"e1"], None, b"")
    with pytest.raises(GameExists):
        await store.create("g1", b"other", b"other", [])
    assert await store.load("g1") == GameRecord(1, state(1), META)
    assert [e.version for e in await store.events("g1", -1, 10)] == [0, 1]


async def test_empty_state_meta_and_events_are_stored_faithfully(store: GameStore) -> None:
    await store.create("empty", b"", b"", [])
    assert await store.load("empty") == GameRecord(0, b"", b"")
    assert await store.events("empty", -1, 10) == [VersionedEvents(0, [])]


async def test_mutable_bytes_are_stored_as_they_were_when_passed(store: GameStore) -> None:
    # Typed bytes, but the stores take any binary value, as an immutable copy.
    state_buffer: Any = bytearray(b"state")
    event_buffer: Any = bytearray(b"event")
    meta: Any = memoryview(b"meta")
    await store.create("g1", state_buffer, meta, [event_buffer])
    state_buffer[:] = event_buffer[:] = b"edited"
    assert await store.load("g1") == GameRecord(0, b"state", b"meta")
    assert await store.events("g1", -1, 10) == [VersionedEvents(0, [b"event"])]


async def test_invalid_arguments_are_refused(store: GameStore) -> None:
    for bad_id in ["", "a{b", "a}b", "x" * 65, "has space", "star*", "é"]:
        with pytest.raises(ValueError, match="game id"):
            await store.create(bad_id, b"s", b"m", [])
    with pytest.raises(TypeError):
        await store.create("g1", b"s", b"m", b"not-a-list")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await store.create("g1", "text", b"m", [])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await store.create("g1", b"s", b"m", bytearray(b"one-value"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await store.create("g1", b"s", b"m", [b"ok", "text"])  # type: ignore[list-item]
    assert await store.load("g1") is None
    await make_game(store)
    with pytest.raises(ValueError, match="request id"):
        await store.commit("g1", 0, b"s", [], "", b"")
    with pytest.raises(ValueError, match="limit"):
        await store.events("g1", -1, 0)
    with pytest.raises(ValueError, match="after_version"):
        await store.events("g1", -2, 5)
    assert await store.load("g1") == GameRecord(0, STATE0, META)


async def test_delete_removes_the_game_and_frees_its_id(store: GameStore) -> None:
    await make_game(store)
    await store.commit("g1", 0, state(1), [b"x"], "r1", b"answer")
    assert await store.delete("g1") is True
    assert await store.delete("g1") is False
    assert await store.load("g1") is None
    with pytest.raises(GameNotFound):
        await store.events("g1", -1, 10)
    await store.create("g1", b"new", b"new-meta", [b"fresh"])
    assert await store.load("g1") == GameRecord(0, b"new", b"new-meta")
    assert await store.events("g1", -1, 10) == [VersionedEvents(0, [b"fresh"])]
    # The old game's answer went with it: the request id is new to the new game.
    assert await store.commit("g1", 0, b"s1", [], "r1", b"second") == Committed(1)


# -- commit ------------------------------------------------------------------------------------


async def test_commit_stores_new_state_at_next_version_and_keeps_meta(store: GameStore) -> None:
    await make_game(store)
    assert await store.commit("g1", 0, state(1), [b"played"], None, b"") == Committed(1)
    assert await store.commit("g1", 1, state(2), [], None, b"") == Committed(2)
    assert await store.load("g1") == GameRecord(2, state(2), META)
    assert await store.events("g1", -1, 10) == [
        VersionedEvents(0, [b"dealt", b"\x00\x01"]),
        VersionedEvents(1, [b"played"]),
        VersionedEvents(2, []),
    ]


async def test_stale_commit_returns_current_state_and_changes_nothing(store: GameStore) -> None:
    await make_game(store)
    await store.commit("g1", 0, state(1), [b"first"], None, b"")
    await store.commit("g1", 1, state(2), [b"second"], None, b"")
    before_events = await store.events("g1", -1, 10)

    assert await store.commit("g1", 1, b"late", [b"late"], None, b"") == Conflict(2, state(2))
    assert await store.commit("g1", 0, b"late", [b"late"], "r-late", b"a") == Conflict(2, state(2))
    assert await store.commit("g1", 7, b"ahead", [], None, b"") == Conflict(2, state(2))

    assert await store.load("g1") == GameRecord(2, state(2), META)
    assert await store.events("g1", -1, 10) == before_events
    # A conflicting request recorded no answer: the same id, now current, commits.
    assert await store.commit("g1", 2, state(3), [], "r-late", b"a") == Committed(3)


async def test_commit_on_unknown_game_raises(store: GameStore) -> None:
    with pytest.raises(GameNotFound):
        await store.commit("nobody", 0, b"s", [b"e"], "r", b"a")
    assert await store.load("nobody") is None


async def test_concurrent_commits_on_one_version_exactly_one_wins(
    backend: Backend, store: GameStore
) -> None:
    await make_game(store)
    other = backend.replica(store)
    contenders = 24

    async def contender(n: int) -> object:
        target = store if n % 2 else other
        return await target.commit("g1", 0, state(n), [b"move-%d" % n], None, b"")

    results = await asyncio.gather(*(contender(n) for n in range(contenders)))

    winners = [n for n, result in enumerate(results) if isinstance(result, Committed)]
    assert len(winners) == 1
    [winner] = winners
    assert results[winner] == Committed(1)
    for n, result in enumerate(results):
        if n != winner:
            assert result == Conflict(1, state(winner))
    assert await other.load("g1") == GameRecord(1, state(winner), META)
    assert await store.events("g1", 0, 10) == [VersionedEvents(1, [b"move-%d" % winner])]


async def test_commit_race_across_many_versions_keeps_one_linear_history(
    backend: Backend, store: GameStore
) -> None:
    """Writers that reload on conflict, as the service does: every version is written once."""
    await make_game(store)
    other = backend.replica(store)
    moves_per_writer = 8

    async def writer(name: bytes, target: GameStore) -> int:
        done = 0
        version = 0
        while done < moves_per_writer:
            result = await target.commit(
                "g1", version, name + b"%d" % done, [name + b"%d" % done], None, b""
            )
            match result:
                case Committed(version=new_version):
                    version = new_version
                    done += 1
                case Conflict(version=current):
                    version = current
                case _:
                    raise AssertionError(result)
        return done

    await asyncio.gather(writer(b"a", store), writer(b"b", other), writer(b"c", store))
    log = await store.events("g1", 0, 100)
    assert [entry.version for entry in log] == list(range(1, 3 * moves_per_writer + 1))
    written = sorted(event for entry in log for event in entry.events)
    expected = sorted(name + b"%d" % i for name in (b"a", b"b", b"c") for i in range(8))
    assert written == expected


# -- idempotency ---------------------------------------------------------------------------------


async def test_retry_with_same_request_id_returns_first_answer(
    backend: Backend, store: GameStore
) -> None:
    await make_game(store)
    first = await store.commit("g1", 0, state(1), [b"e1"], "req-1", b"answer-1\x00")
    assert first == Committed(1)
    replica = backend.replica(store)
    # The retry carries the same request; whatever else it says, it changes nothing.
    assert await replica.commit("g1", 0, state(9), [b"x"], "req-1", b"other") == Duplicate(
        b"answer-1\x00", 1
    )
    assert await store.commit("g1", 1, state(9), [b"x"], "req-1", b"other") == Duplicate(
        b"answer-1\x00", 1
    )
    assert await store.load("g1") == GameRecord(1, state(1), META)
    assert [e.version for e in await store.events("g1", -1, 10)] == [0, 1]
    # Another id is a new request; request ids are per game.
    assert await store.commit("g1", 1, state(2), [], "req-2", b"answer-2") == Committed(2)
    await make_game(store, "g2")
    assert await store.commit("g2", 0, state(1), [], "req-1", b"g2-answer") == Committed(1)
    assert await store.commit("g1", 0, b"", [], "req-1", b"") == Duplicate(b"answer-1\x00", 1)
    # The duplicate says which version the answered commit produced, not the current one.
    assert await store.commit("g1", 2, b"", [], "req-2", b"") == Duplicate(b"answer-2", 2)


async def test_concurrent_retries_of_one_request_apply_it_once(
    backend: Backend, store: GameStore
) -> None:
    await make_game(store)
    other = backend.replica(store)
    results = await asyncio.gather(
        *(
            (store if n % 2 else other).commit("g1", 0, state(1), [b"e"], "req", b"the-answer")
            for n in range(12)
        )
    )
    assert results.count(Committed(1)) == 1
    assert results.count(Duplicate(b"the-answer", 1)) == 11
    assert (await store.load("g1") or GameRecord(-1, b"", b"")).version == 1


async def test_answers_expire_after_their_time_to_live(backend: Backend) -> None:
    store = backend.open(answer_ttl=0.3)
    await make_game(store)
    assert await store.commit("g1", 0, state(1), [], "req-1", b"a1") == Committed(1)
    await backend.advance(0.1)
    assert await store.commit("g1", 0, state(1), [], "req-1", b"a1") == Duplicate(b"a1", 1)
    await backend.advance(0.4)
    # Forgotten: the retry is now judged on its version like any other request.
    assert await store.commit("g1", 0, state(1), [], "req-1", b"a1") == Conflict(1, state(1))
    assert await store.commit("g1", 1, state(2), [], "req-1", b"a2") == Committed(2)
    assert await store.commit("g1", 1, state(2), [], "req-1", b"a2") == Duplicate(b"a2", 2)


async def test_answers_are_never_kept_longer_than_the_game_may_live(backend: Backend) -> None:
    store = backend.open(idle_ttl=0.5, answer_ttl=60)
    await make_game(store)
    assert await store.commit("g1", 0, state(1), [], "req", b"a") == Committed(1)
    await backend.advance(0.3)
    assert await store.commit("g1", 1, state(2), [], None, b"") == Committed(2)
    await backend.advance(0.3)
    assert await store.commit("g1", 1, state(2), [], "req", b"a") == Conflict(2, state(2))


async def test_a_burst_beyond_the_connection_pool_waits_for_connections(backend: Backend) -> None:
    """More calls at once than the client's pool holds connections wait for one (within the
    operation deadline) instead of failing: forty creations, then forty commits, at once, on
    pools of two connections with nothing batched (as on a cluster)."""
    store = backend.open(max_connections=2, batch_commits=False)
    games = [f"burst-{n}" for n in range(40)]
    await asyncio.gather(*(make_game(store, game_id) for game_id in games))
    committed = await asyncio.gather(
        *(store.commit(game_id, 0, state(1), [b"e1"], None, b"") for game_id in games)
    )
    assert committed == [Committed(1)] * 40


# -- events and watch ----------------------------------------------------------------------------


async def test_events_page_by_version(store: GameStore) -> None:
    await make_game(store)
    for v in range(1, 11):
        await store.commit("g1", v - 1, state(v), [b"e%d" % v, b"f%d" % v], None, b"")
    assert [e.version for e in await store.events("g1", -1, 4)] == [0, 1, 2, 3]
    assert await store.events("g1", 3, 2) == [
        VersionedEvents(4, [b"e4", b"f4"]),
        VersionedEvents(5, [b"e5", b"f5"]),
    ]
    assert [e.version for e in await store.events("g1", 8, 100)] == [9, 10]
    assert await store.events("g1", 10, 100) == []
    assert await store.events("g1", 50, 100) == []
    with pytest.raises(GameNotFound):
        await store.events("nobody", -1, 10)


async def test_events_of_any_size_and_content_round_trip(store: GameStore) -> None:
    events = [b"", bytes(range(256)), b"\x80", b"x" * 127, b"y" * 128, b"z" * 300, b"w" * 16384]
    await store.create("g1", b"s", b"m", events)
    await store.commit("g1", 0, b"s", list(reversed(events)), None, b"")
    assert await store.events("g1", -1, 10) == [
        VersionedEvents(0, events),
        VersionedEvents(1, list(reversed(events))),
    ]


async def test_watch_delivers_backlog_then_live_commits_in_order(store: GameStore) -> None:
    await make_game(store)
    await store.commit("g1", 0, state(1), [b"e1"], None, b"")
    seen: list[VersionedEvents] = []
    caught_up = asyncio.Event()

    async def follow() -> None:
        async for entry in store.watch("g1", -1):
            seen.append(entry)
            if entry.version == 1:
                caught_up.set()
            if entry.version == 6:
                return

    follower = asyncio.create_task(follow())
    await asyncio.wait_for(caught_up.wait(), 5)
    for v in range(2, 7):
        await store.commit("g1", v - 1, state(v), [b"e%d" % v], None, b"")
        await asyncio.sleep(0.01)
    await asyncio.wait_for(follower, 5)
    assert seen == [VersionedEvents(0, [b"dealt", b"\x00\x01"])] + [
        VersionedEvents(v, [b"e%d" % v]) for v in range(1, 7)
    ]


async def test_watch_resumed_from_last_seen_version_misses_nothing(
    backend: Backend, store: GameStore
) -> None:
    await make_game(store)
    writer = backend.replica(store)
    for v in range(1, 4):
        await writer.commit("g1", v - 1, state(v), [b"e%d" % v], None, b"")

    seen: list[int] = []
    watcher = store.watch("g1", 0)
    async for entry in watcher:
        seen.append(entry.version)
        if entry.version == 2:
            break  # the client disconnects after version 2
    await watcher.aclose()  # type: ignore[attr-defined]

    # Commits while nobody watches.
    for v in range(4, 8):
        await writer.commit("g1", v - 1, state(v), [b"e%d" % v], None, b"")

    async def resume() -> list[int]:
        got = []
        async for entry in store.watch("g1", seen[-1]):
            got.append(entry.version)
            assert entry.events == [b"e%d" % entry.version]
            if entry.version == 9:
                return got
        return got

    resumed = asyncio.create_task(resume())
    await asyncio.sleep(0.05)
    for v in range(8, 10):
        await writer.commit("g1", v - 1, state(v), [b"e%d" % v], None, b"")
    seen += await asyncio.wait_for(resumed, 5)
    assert seen == list(range(1, 10))


async def test_many_watchers_each_see_every_version(store: GameStore) -> None:
    await make_game(store)
    last = 15

    async def follow() -> list[int]:
        versions = []
        async for entry in store.watch("g1", 0):
            versions.append(entry.version)
            if entry.version == last:
                return versions
        return versions

    followers = [asyncio.create_task(follow()) for _ in range(5)]
    await asyncio.sleep(0.05)
    for v in range(1, last + 1):
        await store.commit("g1", v - 1, state(v), [], None, b"")
    results = await asyncio.wait_for(asyncio.gather(*followers), 5)
    assert results == [list(range(1, last + 1))] * 5


async def test_watch_of_unknown_game_raises(store: GameStore) -> None:
    with pytest.raises(GameNotFound):
        async for _ in store.watch("nobody", -1):
            pass


async def test_watch_ends_when_the_game_is_deleted(store: GameStore) -> None:
    await make_game(store)

    seen_one = asyncio.Event()

    async def follow() -> list[int]:
        versions = []
        async for entry in store.watch("g1", -1):
            versions.append(entry.version)
            if entry.version == 1:
                seen_one.set()
        return versions

    follower = asyncio.create_task(follow())
    await store.commit("g1", 0, state(1), [], None, b"")
    await asyncio.wait_for(seen_one.wait(), 3)
    await store.delete("g1")
    assert await asyncio.wait_for(follower, 3) == [0, 1]


async def test_commits_and_deletion_wake_watchers_at_once(backend: Backend) -> None:
    """A waiting watcher is woken by the commit (or the deletion) itself, not by its periodic
    wake-up: with that period at a minute, every step here must still take seconds at most."""
    store = backend.open(watch_block=60)
    await make_game(store)
    seen: list[int] = []
    changed = asyncio.Event()

    async def follow() -> None:
        async for entry in store.watch("g1", -1):
            seen.append(entry.version)
            changed.set()

    follower = asyncio.create_task(follow())
    try:
        for version in range(1, 4):
            async with asyncio.timeout(10):
                while seen[-1:] != [version - 1]:
                    await changed.wait()
                    changed.clear()
            await store.commit("g1", version - 1, state(version), [], None, b"")
        async with asyncio.timeout(10):
            while seen[-1:] != [3]:
                await changed.wait()
                changed.clear()
        await store.delete("g1")
        await asyncio.wait_for(follower, 10)
    finally:
        follower.cancel()
    assert seen == [0, 1, 2, 3]


async def test_cancelling_a_watcher_leaves_the_store_usable(store: GameStore) -> None:
    await make_game(store)

    async def follow() -> None:
        async for _ in store.watch("g1", 0):
            pass

    follower = asyncio.create_task(follow())
    await asyncio.sleep(0.1)  # blocked waiting for version 1
    follower.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await follower
    assert follower.cancelled()
    assert await store.commit("g1", 0, state(1), [], None, b"") == Committed(1)
    assert [e.version for e in await store.events("g1", 0, 5)] == [1]


# -- expiry --------------------------------------------------------------------------------------


async def test_commits_refresh_the_idle_time_and_idle_games_expire(backend: Backend) -> None:
    store = backend.open(idle_ttl=0.6)
    await make_game(store)
    await store.commit("g1", 0, state(1), [], None, b"")
    await backend.advance(0.4)
    assert await store.commit("g1", 1, state(2), [], "req", b"a") == Committed(2)
    await backend.advance(0.4)
    # 0.8 s after the first commit, 0.4 s after the last: alive, with all its parts.
    assert await store.load("g1") == GameRecord(2, state(2), META)
    assert [e.version for e in await store.events("g1", -1, 10)] == [0, 1, 2]
    assert await store.commit("g1", 0, b"", [], "req", b"") == Duplicate(b"a", 2)
    await backend.advance(0.8)
    # Reads did not refresh it.
    assert await store.load("g1") is None
    with pytest.raises(GameNotFound):
        await store.events("g1", -1, 10)
    with pytest.raises(GameNotFound):
        await store.commit("g1", 2, state(3), [], None, b"")
    assert await store.count_games() == 0
    if backend.is_redis:
        assert await backend.raw_keys() == []  # log and answers expired with the record
    await store.create("g1", b"again", b"m", [])
    assert await store.events("g1", -1, 10) == [VersionedEvents(0, [])]


async def test_a_finished_game_stays_for_its_own_time_to_live(backend: Backend) -> None:
    """The commit that ends a game, or the creation of a game over at once, gives it the
    finished time-to-live instead of the idle time; each game expires by its own time, whatever
    the order in which the games were written."""
    store = backend.open(idle_ttl=0.4, finished_ttl=1.2)
    await make_game(store, "played")
    await make_game(store, "ended")
    ended = await store.commit("ended", 0, state(1), [b"e"], None, b"", finished=True)
    assert ended == Committed(1)
    await store.create("over-at-once", STATE0, META, [b"e"], finished=True)
    await make_game(store, "later")  # written after the finished ones, expires before them
    await backend.advance(0.7)
    assert await store.load("played") is None
    assert await store.load("later") is None
    assert await store.load("ended") == GameRecord(1, state(1), META)
    assert [e.version for e in await store.events("ended", -1, 10)] == [0, 1]
    assert await store.load("over-at-once") == GameRecord(0, STATE0, META)
    assert await store.count_games() == 2
    await backend.advance(0.8)
    assert await store.load("ended") is None
    assert await store.load("over-at-once") is None
    assert await store.count_games() == 0
    if backend.is_redis:
        assert await backend.raw_keys() == []


async def test_a_finished_time_to_live_may_be_the_shorter(backend: Backend) -> None:
    store = backend.open(idle_ttl=1.2, finished_ttl=0.4)
    await make_game(store, "played")  # written first, expires last
    await make_game(store, "ended")
    assert await store.commit("ended", 0, state(1), [], None, b"", finished=True) == Committed(1)
    await backend.advance(0.7)
    assert await store.load("ended") is None
    assert await store.load("played") == GameRecord(0, STATE0, META)
    assert await store.count_games() == 1


async def test_expired_game_ends_its_watchers(backend: Backend) -> None:
    store = backend.open(idle_ttl=0.3)
    await make_game(store)

    first_seen = asyncio.Event()

    async def follow() -> list[int]:
        versions = []
        async for entry in store.watch("g1", -1):
            versions.append(entry.version)
            first_seen.set()
        return versions

    follower = asyncio.create_task(follow())
    # Let the watcher read the live game before it expires; a fixed sleep lost this race on a
    # loaded CI machine, where connecting to the cluster took longer than the game's lifetime.
    await asyncio.wait_for(first_seen.wait(), 3)
    await backend.advance(0.5)
    assert await asyncio.wait_for(follower, 3) == [0]


# -- rate limits ---------------------------------------------------------------------------------


async def test_a_token_bucket_is_shared_and_says_how_long_to_wait(backend: Backend) -> None:
    """A bucket starts full, gives its size in tokens at once, then one token per 1/rate
    seconds; a refusal takes nothing and names the wait. Replicas draw from the same bucket."""
    store = backend.open()
    other = backend.replica(store)
    assert [await s.take_token("client-a", 2.0, 3) for s in (store, other, store)] == [0.0] * 3
    wait = await other.take_token("client-a", 2.0, 3)
    assert 0 < wait <= 0.5
    assert await store.take_token("client-b", 2.0, 3) == 0.0  # each client its own bucket
    await backend.advance(0.6)
    assert await other.take_token("client-a", 2.0, 3) == 0.0
    assert 0 < await store.take_token("client-a", 2.0, 3) <= 0.5
    with pytest.raises(ValueError, match="positive rate"):
        await store.take_token("client-a", 0.0, 3)
    with pytest.raises(ValueError, match="size"):
        await store.take_token("client-a", 1.0, 0)
    if backend.is_redis:
        keys = await backend.raw_keys()
        assert sorted(keys) == [f"{backend.prefix}rate:client-{c}".encode() for c in "ab"]


# -- kept values and the index of deadlines --------------------------------------------------


async def test_a_kept_value_is_kept_once_and_shared(backend: Backend) -> None:
    """The first value under a key stays for the answer time-to-live; a second gets the first
    back and changes nothing; replicas see the same."""
    store = backend.open()
    other = backend.replica(store)
    assert await store.recall("creation:x") is None
    assert await store.remember("creation:x", b"first") is None
    assert await other.remember("creation:x", b"second") == b"first"
    assert await other.recall("creation:x") == b"first"
    assert await store.remember("creation:y", b"\x00\xff") is None
    assert await store.recall("creation:y") == b"\x00\xff"


async def test_the_index_of_deadlines(backend: Backend) -> None:
    """Entries move earlier, never later, on a proposal; come out due in deadline order; and
    are settled only by the caller that saw them as they are."""
    store = backend.open()
    other = backend.replica(store)
    a, b = "game-a", "game-b"
    await store.propose_deadline(a, 5_000)
    await other.propose_deadline(a, 9_000)  # later: ignored
    await other.propose_deadline(b, 3_000)
    assert await store.due_deadlines(4_000, 10) == [(b, 3_000)]
    assert await other.due_deadlines(6_000, 10) == [(b, 3_000), (a, 5_000)]
    assert await other.due_deadlines(6_000, 1) == [(b, 3_000)]
    await store.propose_deadline(a, 4_000)  # earlier: moves
    await store.settle_deadline(a, 5_000, 12_000)  # seen stale: left alone
    assert await store.due_deadlines(6_000, 10) == [(b, 3_000), (a, 4_000)]
    await store.settle_deadline(a, 4_000, 12_000)  # later, by the one that looked
    await store.settle_deadline(b, 3_000, None)  # removed
    assert await other.due_deadlines(11_999, 10) == []
    assert await other.due_deadlines(12_000, 10) == [(a, 12_000)]
    await store.settle_deadline(a, 12_000, None)


async def test_the_in_process_store_forgets_buckets_full_again() -> None:
    """Its buckets stay bounded by the clients of the last moments, as Redis expires them."""
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    for n in range(1100):
        assert await store.take_token(f"client-{n}", 1.0, 1) == 0.0
    # All in use: a sweep keeps them all, and the next waits until they could have doubled.
    assert len(store._buckets) == 1100
    clock.advance(2.0)  # every bucket is full again
    for n in range(1000):
        assert await store.take_token(f"newcomer-{n}", 1.0, 1) == 0.0
    # The sweep forgot the 1,100 full buckets and kept the newcomers' in use.
    assert set(store._buckets) == {f"newcomer-{n}" for n in range(1000)}
    assert await store.take_token("client-0", 1.0, 1) == 0.0  # a forgotten bucket is full


# -- counting ------------------------------------------------------------------------------------


async def test_count_games_counts_live_games_of_this_store(backend: Backend) -> None:
    store = backend.open(idle_ttl=0.5)
    assert await store.count_games() == 0
    for n in range(5):
        await make_game(store, f"game-{n}")
    await store.commit("game-0", 0, state(1), [b"e"], "r", b"a")
    assert await store.count_games() == 5
    await store.delete("game-4")
    assert await store.count_games() == 4
    await backend.advance(0.3)
    await store.commit("game-0", 1, state(2), [], None, b"")
    await backend.advance(0.3)
    assert await store.count_games() == 1


async def test_ping_succeeds_on_a_working_store(store: GameStore) -> None:
    await store.ping()


async def test_the_in_process_store_refuses_new_games_past_its_limit(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At ``max_games`` the in-process store refuses a creation as a full Redis does
    (unavailable, nothing stored) and says so in the log; the games it holds go on, and a game
    that expires makes room."""
    # A failure log of its own: the module's may have said a StoreFull within its period.
    store_log = logging.getLogger("hanafuda_referee.store")
    monkeypatch.setattr(memory_store, "_FAILURES", FailureLog(store_log))
    clock = FakeClock()
    settings = StoreSettings(max_games=2, idle_ttl=60.0)
    store = MemoryStore(settings, clock=clock)
    await store.create("g1", b"s", b"m", [b"e"])
    clock.advance(30.0)
    await store.create("g2", b"s", b"m", [b"e"])
    with (
        caplog.at_level(logging.WARNING, logger="hanafuda_referee.store"),
        pytest.raises(StoreFull),
    ):
        await store.create("g3", b"s", b"m", [b"e"])
    assert await store.load("g3") is None
    (line,) = [r for r in caplog.records if r.getMessage() == "game store failed"]
    assert (line.operation, line.error) == ("create", "StoreFull")  # type: ignore[attr-defined]
    assert await store.commit("g1", 0, b"s1", [b"e1"], None, b"") == Committed(1)
    clock.advance(45.0)  # g2 has been idle for 45 s, g1 for 45 s since its move: both live
    with pytest.raises(StoreUnavailable):
        await store.create("g3", b"s", b"m", [b"e"])
    clock.advance(20.0)  # g2 expires (65 s idle); g1 (65 s since its move) too
    await store.create("g3", b"s", b"m", [b"e"])
    assert (await store.load("g3")) is not None

    unlimited = MemoryStore(StoreSettings(max_games=0))
    for n in range(3):
        await unlimited.create(f"g{n}", b"s", b"m", [])
    with pytest.raises(ValueError, match="max_games"):
        StoreSettings(max_games=-1)
