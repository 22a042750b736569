"""Tunable behaviour of the game stores, in one immutable value.

The semantic settings (idle time, answer time-to-live, watch wake-up) apply to every store so that
the in-memory store behaves like the Redis one. The connection settings only concern Redis; their
defaults are deliberately short so a request fails fast with ``StoreUnavailable`` instead of
holding a client while a server is down.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StoreSettings"]


@dataclass(frozen=True, slots=True)
class StoreSettings:
    """Settings shared by the in-memory and Redis stores (durations in seconds)."""

    #: Prepended to every Redis key, so several deployments or test runs share one server.
    key_prefix: str = "hanafuda:"
    #: A game not written for this long expires. Every commit restarts the count; reads do not.
    idle_ttl: float = 24 * 3600.0
    #: A finished game (its last commit, or a creation, says so) stays this long, for its view
    #: and its log, whatever the idle time.
    finished_ttl: float = 7 * 24 * 3600.0
    #: How long the answer to a request id is kept to answer retries (capped by ``idle_ttl``).
    answer_ttl: float = 600.0
    #: In-process store: the most games held at once; a creation beyond is refused with
    #: :class:`~.errors.StoreFull` until games expire, as a Redis at its memory limit refuses
    #: it. 0: no limit. (Redis: its ``maxmemory`` decides.)
    max_games: int = 10_000
    #: Longest wait of a watcher before it checks that the game still exists (XREAD BLOCK).
    watch_block: float = 5.0
    #: Redis: how many streams the bot queue is spread over (the partition of a turn follows from
    #: its game id). Each has a hash tag of its own, so on a Redis Cluster they spread over the
    #: masters. Every process sharing a key prefix must use the same number; change it only with
    #: the queue empty (turns in a partition beyond the new number would wait forever).
    bot_queue_partitions: int = 16
    #: Redis: TCP connect timeout.
    connect_timeout: float = 0.5
    #: Redis: longest wait for a reply on an open connection.
    socket_timeout: float = 1.0
    #: Redis: deadline of one whole store operation, cluster topology refresh included.
    operation_timeout: float = 2.0
    #: Redis: connection pool size per client (per node on a cluster). The store's calls beyond
    #: it wait for a place, within their deadline; the watchers take none (they share one).
    max_connections: int = 256
    #: Redis: send the commits and game loads started in one event-loop iteration together, as
    #: one pipeline (each commit still its own atomic script). Off: one round trip per call,
    #: kept for comparison. A Redis Cluster sends each call alone either way.
    batch_commits: bool = True

    def __post_init__(self) -> None:
        durations = {
            "idle_ttl": self.idle_ttl,
            "finished_ttl": self.finished_ttl,
            "answer_ttl": self.answer_ttl,
            "watch_block": self.watch_block,
            "connect_timeout": self.connect_timeout,
            "socket_timeout": self.socket_timeout,
            "operation_timeout": self.operation_timeout,
        }
        for name, value in durations.items():
            # Redis counts in milliseconds: anything shorter would round to "no time at all".
            if not value >= 0.001:
                raise ValueError(f"{name} must be at least 0.001 s, got {value!r}")
        if self.max_connections < 1:
            raise ValueError("max_connections must be positive")
        if not 1 <= self.bot_queue_partitions <= 1024:
            raise ValueError("bot_queue_partitions must be 1 to 1024")
        if self.max_games < 0:
            raise ValueError("max_games must not be negative")
        if any(ch in self.key_prefix for ch in "{}"):
            raise ValueError("key_prefix must not contain '{' or '}' (they delimit the hash tag)")

    @property
    def idle_ttl_ms(self) -> int:
        """The idle time in whole milliseconds, as Redis PX/PEXPIRE take it."""
        return max(1, round(self.idle_ttl * 1000))

    @property
    def finished_ttl_ms(self) -> int:
        """The finished games' retention in whole milliseconds."""
        return max(1, round(self.finished_ttl * 1000))

    @property
    def answer_keep(self) -> float:
        """How long answers are really kept: never longer than the game may live."""
        return min(self.answer_ttl, self.idle_ttl)

    @property
    def answer_keep_ms(self) -> int:
        """:attr:`answer_keep` in whole milliseconds."""
        return max(1, round(self.answer_keep * 1000))

    @property
    def watch_block_ms(self) -> int:
        """The watch wake-up period in whole milliseconds (XREAD BLOCK takes milliseconds)."""
        return max(1, round(self.watch_block * 1000))
