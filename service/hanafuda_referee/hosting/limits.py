"""Per-client limits that keep one client from spoiling the service for the others.

:class:`CreationLimit` bounds how fast one client creates games: a token bucket per client in
the game store, so every replica on that store draws from the same bucket. A client is its API
key when it sends one (a service creating games for many people behind one address), else its
network address. The bucket's name is a digest: the key never reaches the store.

>>> limit = CreationLimit(per_minute=30, burst=10)
>>> limit.per_second, client_bucket(Caller(address="192.0.2.7"))
(0.5, 'create:addr:192.0.2.7')
>>> client_bucket(Caller(api_key="secret", address="192.0.2.7")).startswith("create:key:")
True
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import RETRY_AFTER, ApiError
from hanafuda_referee.store import GameStore

__all__ = ["CreationLimit", "client_bucket"]


@dataclass(frozen=True, slots=True)
class CreationLimit:
    """At most ``burst`` games at once, then ``per_minute`` games a minute, per client."""

    per_minute: float
    burst: int

    def __post_init__(self) -> None:
        if not self.per_minute > 0 or self.burst < 1:
            raise ValueError("a creation limit needs a positive rate and a burst of at least 1")

    @property
    def per_second(self) -> float:
        return self.per_minute / 60

    async def check(self, store: GameStore, caller: Caller) -> None:
        """Take one creation from ``caller``'s bucket, or refuse with ``RATE_LIMITED`` and the
        whole seconds to wait (rounded up, at least 1), taking nothing."""
        wait = await store.take_token(client_bucket(caller), self.per_second, self.burst)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise ApiError(
                "RATE_LIMITED",
                f"too many games created by this client: retry in {seconds} s",
                {RETRY_AFTER: str(seconds)},
            )


def client_bucket(caller: Caller) -> str:
    """The bucket of ``caller``'s creations: a digest of its API key, else its address."""
    if caller.api_key:
        return "create:key:" + hashlib.sha256(caller.api_key.encode()).hexdigest()[:32]
    return "create:addr:" + (caller.address or "unknown")
