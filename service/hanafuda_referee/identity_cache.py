"""A small cache of values worked out from an object, found by the object's identity.

A game's successive states share many objects until these change (the rule set, the finished
rounds), so what is derived from one of them (its encoding, its written form) can be kept and
found again by identity: cheaper than hashing the object, and exact. Each entry holds its object,
so the object's id cannot be given to another object while the entry exists.

>>> results = (1, 2, 3)
>>> cache: IdentityCache[tuple[int, ...], str] = IdentityCache(limit=2)
>>> cache.get(results) is None
True
>>> cache.put(results, "1,2,3")
'1,2,3'
>>> cache.get(results)
'1,2,3'
>>> cache.get(tuple(list(results))) is None  # an equal object, but another one
True
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["IdentityCache"]

K = TypeVar("K")
V = TypeVar("V")


class IdentityCache(Generic[K, V]):
    """Values by the identity of the object they were worked out from, at most ``limit`` of
    them: past it the cache is emptied, as entries are cheap to work out again."""

    __slots__ = ("_entries", "_limit")

    def __init__(self, limit: int = 4096) -> None:
        self._entries: dict[int, tuple[K, V]] = {}
        self._limit = limit

    def get(self, key: K) -> V | None:
        """The value kept for this very object, or None."""
        known = self._entries.get(id(key))
        if known is not None and known[0] is key:
            return known[1]
        return None

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` (the object itself is kept too); returns ``value``."""
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[id(key)] = (key, value)
        return value
