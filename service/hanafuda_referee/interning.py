"""One shared value per key: the first value given for a key is the one every later caller
gets, so that equal values decoded apart are one object.

Decoding a stored game builds new objects each time; the writers of answers find what they
wrote for a value by its identity (:mod:`.identity_cache`), so values that stay the same over
many reads (a game's finished rounds) are interned by their bytes.

>>> rounds: Interner[bytes, tuple[int, ...]] = Interner(limit=2)
>>> first = rounds.intern(b"\\x01", (1,))
>>> rounds.intern(b"\\x01", tuple([1])) is first
True
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["Interner"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Interner(Generic[K, V]):
    """The value first given for each key, at most ``limit`` of them: past it the interner is
    emptied, as values are cheap to decode again."""

    __slots__ = ("_limit", "_values")

    def __init__(self, limit: int = 4096) -> None:
        self._values: dict[K, V] = {}
        self._limit = limit

    def get(self, key: K) -> V | None:
        """The value kept for ``key``, if any."""
        return self._values.get(key)

    def intern(self, key: K, value: V) -> V:
        """The value kept for ``key``; ``value``, kept, when there is none."""
        known = self._values.get(key)
        if known is not None:
            return known
        if len(self._values) >= self._limit:
            self._values.clear()
        self._values[key] = value
        return value
