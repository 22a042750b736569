"""The cache that finds what was worked out from an object by that object's identity."""

from __future__ import annotations

from hanafuda_referee.identity_cache import IdentityCache


def test_a_value_is_found_by_its_very_object_only() -> None:
    cache: IdentityCache[tuple[int, ...], str] = IdentityCache()
    kept = tuple(range(5))
    equal = tuple(range(5))
    assert equal == kept and equal is not kept
    cache.put(kept, "kept")
    assert cache.get(kept) == "kept"
    assert cache.get(equal) is None


def test_an_entry_keeps_its_object_so_its_id_is_not_reused() -> None:
    cache: IdentityCache[list[int], str] = IdentityCache()
    cache.put([1, 2], "first")
    # The list lives on in the cache: a new object cannot take its id and be answered for it.
    for n in range(1000):
        assert cache.get([n]) is None


def test_past_its_limit_the_cache_starts_again() -> None:
    cache: IdentityCache[tuple[int, ...], int] = IdentityCache(limit=3)
    keys = [tuple(range(n)) for n in range(1, 5)]
    for n, key in enumerate(keys[:3]):
        cache.put(key, n)
    assert [cache.get(k) for k in keys[:3]] == [0, 1, 2]
    cache.put(keys[3], 3)  # the fourth entry empties it first
    assert [cache.get(k) for k in keys] == [None, None, None, 3]
