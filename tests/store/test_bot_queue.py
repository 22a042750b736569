"""The bot queue of the store contract (push, take, finish, stats), over every store kind.

The in-process store runs on the fake clock, so its reclaim times are exact; on Redis they are
real milliseconds, so those tests leave a margin.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from hanafuda_referee.store import BotTurn, GameStore
from hanafuda_referee.store.scripts import HAND_BACK_BOT_TURNS

from .conftest import Backend, raw_client

pytestmark = pytest.mark.asyncio


#: Long enough that no test reclaims a turn by accident.
NEVER = 600_000


async def take_all(store: GameStore, consumer: str) -> list[BotTurn]:
    """Every turn there is now, for ``consumer``, without waiting."""
    return await store.take_bot_turns(consumer, 1000, 0, NEVER)


async def test_turns_are_handed_out_once_in_the_order_they_were_pushed(backend: Backend) -> None:
    store = backend.open()
    other = backend.replica(store)
    for version in range(1, 6):
        await store.push_bot_turn("game-a", version)
    first = await other.take_bot_turns("worker-1", 3, 0, NEVER)
    rest = await store.take_bot_turns("worker-2", 10, 0, NEVER)
    assert [(t.game_id, t.version, t.deliveries) for t in first + rest] == [
        ("game-a", version, 1) for version in range(1, 6)
    ]
    assert len({t.receipt for t in first + rest}) == 5
    assert await take_all(store, "worker-3") == []


async def test_turns_of_many_games_are_each_handed_out_once(backend: Backend) -> None:
    """Whatever partitions the games land in, every turn comes out once, each with what was
    pushed, and a game's turns in their order."""
    store = backend.open()
    pushed = [(f"game-{n}", version) for version in (3, 4) for n in range(40)]
    for game_id, version in pushed:
        await store.push_bot_turn(game_id, version)
    taken: list[BotTurn] = []
    while batch := await store.take_bot_turns(f"worker-{len(taken)}", 7, 0, NEVER):
        assert len(batch) <= 7
        taken.extend(batch)
    assert sorted((t.game_id, t.version) for t in taken) == sorted(pushed)
    for n in range(40):
        versions = [t.version for t in taken if t.game_id == f"game-{n}"]
        assert versions == [3, 4]


async def test_a_take_waits_for_a_push_and_returns_at_once(backend: Backend) -> None:
    store = backend.open()
    other = backend.replica(store)
    assert await store.take_bot_turns("worker", 1, 0, NEVER) == []
    started = time.monotonic()
    waiting = asyncio.create_task(store.take_bot_turns("worker", 1, 5_000, NEVER))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    await other.push_bot_turn("game-a", 7)
    (turn,) = await asyncio.wait_for(waiting, 2.0)
    assert (turn.game_id, turn.version, turn.deliveries) == ("game-a", 7, 1)
    assert time.monotonic() - started < 1.0


async def test_a_take_with_nothing_to_take_waits_its_time_and_returns_empty(
    backend: Backend,
) -> None:
    store = backend.open()
    started = time.monotonic()
    assert await store.take_bot_turns("worker", 1, 200, NEVER) == []
    assert 0.18 <= time.monotonic() - started < 2.0


async def test_waiting_workers_share_the_pushed_turns(backend: Backend) -> None:
    """Two workers wait; one push wakes them; one takes the turn, the other waits on and takes
    the next push."""
    store = backend.open()
    other = backend.replica(store)
    await store.take_bot_turns("a", 1, 0, NEVER)  # the group exists before anyone waits
    waits = [asyncio.create_task(other.take_bot_turns(name, 1, 3_000, NEVER)) for name in "ab"]
    await asyncio.sleep(0.1)
    await store.push_bot_turn("game-a", 1)
    done, _ = await asyncio.wait(waits, timeout=2.0, return_when=asyncio.FIRST_COMPLETED)
    assert len(done) == 1
    await asyncio.sleep(0.1)
    assert sum(w.done() for w in waits) == 1  # the other one waits on
    await store.push_bot_turn("game-b", 1)
    results = await asyncio.wait_for(asyncio.gather(*waits), 2.0)
    assert sorted(t.game_id for turns in results for t in turns) == ["game-a", "game-b"]


async def test_a_turn_of_a_worker_that_died_goes_to_another_after_the_reclaim_time(
    backend: Backend,
) -> None:
    store = backend.open()
    other = backend.replica(store)
    await store.push_bot_turn("game-a", 4)
    (held,) = await store.take_bot_turns("dies", 1, 0, 300)
    assert held.deliveries == 1
    assert await other.take_bot_turns("lives", 1, 0, 300) == []  # held, not yet stale
    await backend.advance(0.35)
    (again,) = await other.take_bot_turns("lives", 1, 0, 300)
    assert (again.receipt, again.game_id, again.version) == (held.receipt, "game-a", 4)
    assert again.queued_ms == held.queued_ms
    assert again.deliveries == 2
    # Reclaimed turns come before new ones.
    await store.push_bot_turn("game-b", 1)
    await backend.advance(0.35)
    turns = await other.take_bot_turns("lives", 2, 0, 300)
    assert [(t.game_id, t.deliveries) for t in turns] == [("game-a", 3), ("game-b", 1)]
    await other.finish_bot_turn(turns[0])
    await other.finish_bot_turn(turns[1])
    await backend.advance(0.35)
    assert await store.take_bot_turns("dies", 5, 0, 300) == []


async def test_finishing_a_turn_removes_it_and_twice_is_harmless(backend: Backend) -> None:
    store = backend.open()
    other = backend.replica(store)
    await store.push_bot_turn("game-a", 1)
    await store.push_bot_turn("game-b", 1)
    first, second = await take_all(store, "worker")
    await store.finish_bot_turn(first)
    await other.finish_bot_turn(first)  # a second time, from another replica
    assert (await store.bot_queue_stats()).depth == 1
    await backend.advance(0.05)
    # Only the unfinished one is ever handed out again.
    (again,) = await other.take_bot_turns("another", 5, 0, 10)
    assert again.receipt == second.receipt
    await store.finish_bot_turn(again)
    await store.finish_bot_turn(second)  # finished already, by its other delivery
    assert tuple(await store.bot_queue_stats()) == (0, None)


async def test_stats_count_waiting_and_pending_turns_and_tell_the_oldest(
    backend: Backend,
) -> None:
    store = backend.open()
    other = backend.replica(store)
    assert tuple(await store.bot_queue_stats()) == (0, None)
    before_ms = time.time() * 1000
    await store.push_bot_turn("game-a", 1)
    await backend.advance(0.02)
    await store.push_bot_turn("game-b", 1)
    await store.push_bot_turn("game-c", 2)
    taken = {t.game_id: t for t in await take_all(other, "worker")}
    first = taken["game-a"].queued_ms
    assert before_ms - 1000 < first < time.time() * 1000 + 1000
    assert taken["game-b"].queued_ms >= first + 20
    await store.push_bot_turn("game-d", 1)  # waits, while the others are being decided
    assert tuple(await other.bot_queue_stats()) == (4, first)
    await other.finish_bot_turn(taken["game-a"])
    stats = await store.bot_queue_stats()
    assert stats.depth == 3
    assert stats.oldest_queued_ms == min(taken["game-b"].queued_ms, taken["game-c"].queued_ms)
    for turn in [*taken.values(), *await take_all(store, "worker")]:
        await store.finish_bot_turn(turn)
    assert tuple(await store.bot_queue_stats()) == (0, None)


async def test_a_turn_pushed_while_nobody_reads_is_kept(backend: Backend) -> None:
    """Before any worker ever asked, and while none is asking."""
    store = backend.open()
    await store.push_bot_turn("game-a", 1)
    (turn,) = await store.take_bot_turns("worker", 5, 0, NEVER)
    assert turn.game_id == "game-a"
    await store.push_bot_turn("game-b", 1)
    await backend.advance(0.1)
    (turn,) = await store.take_bot_turns("worker", 5, 0, NEVER)
    assert turn.game_id == "game-b"


async def test_a_job_comes_back_with_its_entry_however_it_is_taken(backend: Backend) -> None:
    """An entry's job (a hint, a review) is handed out with it: by a take that finds it there,
    by a take that waited for it, by a take that reclaims it; a turn has none."""
    store = backend.open()
    other = backend.replica(store)
    await store.push_bot_turn("game-a", 3, "hint:1")
    await store.push_bot_turn("game-b", 2)
    first = await store.take_bot_turns("w1", 5, 0, 300)
    assert sorted((t.game_id, t.version, t.job) for t in first) == [
        ("game-a", 3, "hint:1"),
        ("game-b", 2, ""),
    ]
    await backend.advance(0.35)
    again = await other.take_bot_turns("w2", 5, 0, 300)
    assert sorted((t.game_id, t.job, t.deliveries) for t in again) == [
        ("game-a", "hint:1", 2),
        ("game-b", "", 2),
    ]
    for turn in again:
        await other.finish_bot_turn(turn)
    waiting = asyncio.create_task(store.take_bot_turns("w3", 1, 3_000, NEVER))
    await asyncio.sleep(0.1)
    await other.push_bot_turn("game-c", 9, "review:0")
    (woken,) = await asyncio.wait_for(waiting, 2.0)
    assert (woken.game_id, woken.version, woken.job) == ("game-c", 9, "review:0")


async def test_invalid_queue_arguments_are_refused(store: GameStore) -> None:
    for game_id, version in [("", 1), ("a{b}", 1), ("game", -1), ("game", True)]:
        with pytest.raises(ValueError, match=r"game id|version"):
            await store.push_bot_turn(game_id, version)
    for job in ["x" * 33, "two words", "é"]:
        with pytest.raises(ValueError, match=r"job"):
            await store.push_bot_turn("game", 1, job)
    for consumer, count, block_ms, reclaim_ms in [
        ("", 1, 0, 1),
        ("w", 0, 0, 1),
        ("w", 1, -1, 1),
        ("w", 1, 0, -1),
    ]:
        with pytest.raises(ValueError, match=r"consumer|count|block_ms|reclaim_after_ms"):
            await store.take_bot_turns(consumer, count, block_ms, reclaim_ms)


# -- Redis only ----------------------------------------------------------------------------------


async def queue_streams(backend: Backend) -> list[bytes]:
    return sorted(key for key in await backend.raw_keys() if key.endswith(b":q"))


async def test_the_partitions_have_slots_of_their_own_spread_over_the_masters(
    redis_backend: Backend,
) -> None:
    store = redis_backend.open()
    partitions = store.settings.bot_queue_partitions  # type: ignore[attr-defined]
    for n in range(20 * partitions):
        await store.push_bot_turn(f"game-{n}", 1)
    streams = await queue_streams(redis_backend)
    assert len(streams) == partitions
    assert len({key_slot(key) for key in streams}) == partitions
    assert len(await take_all(store, "worker")) == 20 * partitions
    if redis_backend.kind == "cluster":
        async with raw_client(redis_backend.url or "") as client:
            assert isinstance(client, RedisCluster)
            nodes = [client.get_node_from_key(key.decode()) for key in streams]
            masters = {node.name for node in nodes if node is not None}
            assert len(masters) == len(client.get_primaries())


async def test_a_queue_whose_streams_vanished_is_made_again(redis_backend: Backend) -> None:
    """As after a restart of a Redis that kept nothing: the next push and take recreate the
    streams and their group, and a worker that was waiting on them goes on waiting and takes
    the next push."""
    store = redis_backend.open()
    other = redis_backend.open()
    for n in range(40):
        await store.push_bot_turn(f"game-{n}", 1)
    assert len(await take_all(store, "worker")) == 40
    waiting = asyncio.create_task(store.take_bot_turns("worker", 1, 5_000, NEVER))
    await asyncio.sleep(0.1)
    async with raw_client(redis_backend.url or "") as client:
        for key in await queue_streams(redis_backend):
            await client.delete(key)
    await asyncio.sleep(0.1)
    assert not waiting.done()
    await other.push_bot_turn("game-a", 9)
    (turn,) = await asyncio.wait_for(waiting, 2.0)
    assert (turn.game_id, turn.version, turn.deliveries) == ("game-a", 9, 1)
    await store.finish_bot_turn(turn)
    assert tuple(await other.bot_queue_stats()) == (0, None)


async def test_a_queue_whose_group_vanished_hands_out_its_turns_again(
    redis_backend: Backend,
) -> None:
    store = redis_backend.open()
    await store.push_bot_turn("game-a", 1)
    (held,) = await take_all(store, "worker")
    async with raw_client(redis_backend.url or "") as client:
        for key in await queue_streams(redis_backend):
            await client.execute_command("XGROUP", "DESTROY", key, "bot-workers")
    await store.push_bot_turn("game-b", 1)
    turns = sorted(await take_all(store, "worker"), key=lambda turn: turn.game_id)
    assert [(t.game_id, t.deliveries) for t in turns] == [("game-a", 1), ("game-b", 1)]
    assert turns[0].receipt == held.receipt
    for turn in turns:
        await store.finish_bot_turn(turn)
    await store.finish_bot_turn(held)
    assert tuple(await store.bot_queue_stats()) == (0, None)


async def test_a_waiting_worker_takes_a_pushed_turn_within_milliseconds(
    redis_backend: Backend,
) -> None:
    """Pickup latency: from the push's start to the take's return (an idle Redis: about a
    millisecond on one server, a few on a cluster; the bound leaves room for a busy machine)."""
    store = redis_backend.open()
    other = redis_backend.open()
    await other.push_bot_turn("warm-up", 1)
    (warm,) = await store.take_bot_turns("worker", 1, 1000, NEVER)
    await store.finish_bot_turn(warm)
    delays = []
    for n in range(20):
        waiting = asyncio.create_task(store.take_bot_turns("worker", 1, 5_000, NEVER))
        await asyncio.sleep(0.02)
        started = time.perf_counter()
        await other.push_bot_turn(f"game-{n}", 1)
        (turn,) = await waiting
        delays.append(time.perf_counter() - started)
        await store.finish_bot_turn(turn)
    delays.sort()
    assert delays[len(delays) // 2] < 0.010, delays
    assert delays[-1] < 0.100, delays


async def test_turns_beyond_the_count_of_one_blocking_read_are_handed_back(
    single_redis_url: str,
) -> None:
    """A blocking XREADGROUP counts per stream: from Redis 7.2, which runs a woken read again,
    pushes to two partitions in one step of the server bring both (7.0 serves one stream at a
    time). The turn beyond ``count`` is handed back: pending as if long idle, so the next take,
    by anyone, reclaims it at once as a first delivery."""
    backend = Backend("redis", single_redis_url)
    try:
        store = backend.open()
        games = two_games_in_different_partitions(store)
        keys = [store.bot_key_of(game) for game in games]  # type: ignore[attr-defined]
        await store.take_bot_turns("worker", 1, 0, NEVER)  # the groups exist
        waiting = asyncio.create_task(store.take_bot_turns("worker", 1, 5_000, NEVER))
        await asyncio.sleep(0.1)
        async with raw_client(single_redis_url) as client:
            async with client.pipeline(transaction=True) as both:  # one step of the server
                for key, game in zip(keys, games, strict=True):
                    both.xadd(key, {"g": game, "v": 1})
                await both.execute()
            (first,) = await asyncio.wait_for(waiting, 2.0)
            (second,) = await store.take_bot_turns("another", 1, 0, NEVER)
            assert sorted([first.game_id, second.game_id]) == sorted(games)
            assert second.deliveries == 1
            assert await store.take_bot_turns("another", 5, 0, NEVER) == []
            # The hand-back itself, whichever server version: a turn taken and handed back
            # goes to the next taker at once, as its first delivery.
            await store.push_bot_turn(games[0], 2)
            (taken,) = await store.take_bot_turns("worker", 1, 0, NEVER)
            await HAND_BACK_BOT_TURNS.run(
                client, [keys[0]], ["bot-workers", "worker", taken.receipt]
            )
            (again,) = await store.take_bot_turns("another", 1, 0, NEVER)
            assert (again.receipt, again.deliveries) == (taken.receipt, 1)
    finally:
        await backend.cleanup()


def two_games_in_different_partitions(store: GameStore) -> tuple[str, str]:
    keys = {store.bot_key_of(f"game-{n}"): f"game-{n}" for n in range(50)}  # type: ignore[attr-defined]
    first, second = list(keys.values())[:2]
    return first, second
