"""The store contract of what one client holds (``hold_game``, ``held_games``,
``release_games``) and of ``memory_use``, against the in-memory store, one Redis server and a
Redis Cluster."""

from __future__ import annotations

import asyncio

import pytest

from hanafuda_referee.store import GameStore

from .conftest import Backend

pytestmark = pytest.mark.asyncio


async def _create(store: GameStore, *game_ids: str) -> None:
    for game_id in game_ids:
        await store.create(game_id, b"state", b"meta", [b"dealt"])


async def test_a_holder_holds_up_to_its_limit_on_every_replica(backend: Backend) -> None:
    store = backend.open()
    other = backend.replica(store)
    await _create(store, "g1", "g2", "g3")
    assert await store.hold_game("client-a", "g1", 2) is True
    assert await other.hold_game("client-a", "g1", 2) is True  # held already: no new place
    assert await other.hold_game("client-a", "g2", 2) is True
    assert await store.hold_game("client-a", "g3", 2) is False
    assert await other.hold_game("client-b", "g3", 2) is True  # each holder its own
    assert await store.held_games("client-a", 0) == ["g1", "g2"]
    assert await other.held_games("client-b", 0) == ["g3"]
    assert await store.held_games("nobody", 0) == []


async def test_racing_holds_never_pass_the_limit(backend: Backend) -> None:
    stores = [backend.open() for _ in range(3)] if backend.is_redis else [backend.open()]
    ids = [f"g{n}" for n in range(30)]
    await _create(stores[0], *ids)
    held = await asyncio.gather(
        *(stores[n % len(stores)].hold_game("client", game_id, 5) for n, game_id in enumerate(ids))
    )
    assert sum(held) == 5
    assert len(await stores[-1].held_games("client", 0)) == 5


async def test_games_gone_stop_counting_after_the_grace(backend: Backend) -> None:
    store = backend.open(idle_ttl=0.5)
    await _create(store, "g1", "g2")
    for game_id in ("g1", "g2", "never-created"):
        assert await store.hold_game("client", game_id, 3) is True
    assert await store.hold_game("client", "g4", 3) is False
    # Within the grace an id without a game may be a creation in flight: it is not listed,
    # but it keeps its place.
    assert await store.held_games("client", 60_000) == ["g1", "g2"]
    assert await store.hold_game("client", "g4", 3) is False
    await store.delete("g2")
    await backend.advance(0.2)
    assert await store.held_games("client", 100) == ["g1"]
    assert await store.hold_game("client", "g4", 3) is True
    await store.commit("g1", 0, b"s1", [b"e"], None, b"")
    await backend.advance(0.7)  # g1 expired: nobody had to say so
    assert await store.held_games("client", 100) == []
    assert await store.hold_game("client", "g5", 1) is True


async def test_released_games_stop_counting(backend: Backend) -> None:
    store = backend.open()
    other = backend.replica(store)
    await _create(store, "g1", "g2")
    await store.hold_game("client", "g1", 2)
    await store.hold_game("client", "g2", 2)
    await other.release_games("client", ["g1", "not-held"])
    await other.release_games("nobody", ["g1"])
    await other.release_games("client", [])
    assert await store.held_games("client", 0) == ["g2"]
    assert await store.hold_game("client", "g3", 2) is True


async def test_holdings_refuse_bad_arguments(store: GameStore) -> None:
    with pytest.raises(ValueError, match="holder"):
        await store.hold_game("", "g1", 1)
    with pytest.raises(ValueError, match="holder"):
        await store.held_games("a{b}", 0)
    with pytest.raises(ValueError, match="limit"):
        await store.hold_game("client", "g1", 0)
    with pytest.raises(ValueError, match="game id"):
        await store.hold_game("client", "g{1}", 1)


async def test_a_holder_set_lives_under_the_prefix_and_expires(backend: Backend) -> None:
    if not backend.is_redis:
        pytest.skip("Redis keys")
    # Long enough for a scan of a cluster's every primary before it expires.
    store = backend.open(idle_ttl=2.0)
    await _create(store, "g1")
    await store.hold_game("client:addr:2001:db8::/64", "g1", 1)
    keys = await backend.raw_keys()
    assert f"{backend.prefix}held:client:addr:2001:db8::/64".encode() in keys
    await backend.advance(2.2)
    assert not [key for key in await backend.raw_keys() if b"held:" in key]


async def test_memory_use(backend: Backend) -> None:
    store = backend.open()
    use = await store.memory_use()
    if not backend.is_redis:
        assert use is None  # max_games bounds it instead
        return
    # The test servers run without maxmemory: no limit to be near.
    assert use is None
