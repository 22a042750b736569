"""What every game store promises: the records it returns and the :class:`GameStore` protocol.

The store keeps opaque bytes: the engine's compact state, the service's meta data (seat token
hashes, kind, creation time) and the events of every move. It knows nothing of the rules; its job
is to make a move's write atomic and conditional on the version the move was validated against, so
that any number of stateless replicas can serve one game and two racing writers cannot both win.

Versions: a game is created at version 0 and every accepted commit adds exactly 1. Every version,
0 included, has exactly one entry in the game's event log (possibly with no events), so a reader
that remembers the last version it saw can resume from it and miss nothing.

The bot queue (:meth:`GameStore.push_bot_turn` and the three after it) is a work queue with
at-least-once delivery: a turn is handed to one worker at a time, and to another only if the
first has not finished it within the ``reclaim_after_ms`` the taker names. Duplicates are
therefore possible (a slow worker, a push made twice); the workers' commits, compare-and-set with
a request id derived from the game and the version, make them harmless.

An entry may carry a ``job``: empty for a bot seat's turn, else a name of the hosting layer's for
other work the bot workers do off the request path (a hint, a review: see
``hosting/advice.py``). The store keeps it as it is and hands it back with the entry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

__all__ = [
    "BotTurn",
    "CommitResult",
    "Committed",
    "Conflict",
    "Duplicate",
    "GameRecord",
    "GameStore",
    "QueueStats",
    "VersionedEvents",
]


class GameRecord(NamedTuple):
    """A stored game as :meth:`GameStore.load` returns it (unpacks as ``version, state, meta``)."""

    version: int
    state: bytes
    meta: bytes


class VersionedEvents(NamedTuple):
    """The events written by the commit that produced ``version`` (version 0: the creation)."""

    version: int
    events: list[bytes]


@dataclass(frozen=True, slots=True)
class Committed:
    """The commit was applied; the game is now at ``version``."""

    version: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The request id was already answered for this game: nothing changed, here is that answer.

    ``version`` is the version the answered commit produced, so a caller that stores no answer
    (or only a short one) can rebuild the full reply from the log up to that version.
    """

    answer: bytes
    version: int


@dataclass(frozen=True, slots=True)
class Conflict:
    """The game moved on since the caller loaded it: nothing changed.

    Carries the current version and state so the caller can re-validate the move against them
    without a second round trip.
    """

    version: int
    state: bytes


class BotTurn(NamedTuple):
    """A bot seat's turn taken from the bot queue (see :meth:`GameStore.take_bot_turns`).

    ``receipt`` is the store's own name of the entry (a stream entry id on Redis), to give back to
    :meth:`GameStore.finish_bot_turn`; ``game_id`` and ``version`` are what
    :meth:`GameStore.push_bot_turn` was given; ``queued_ms`` is when it was pushed (Unix
    milliseconds, the store's clock where it has one); ``deliveries`` counts how many times the
    turn was handed to a worker, this time included (above 1: a worker died or stalled with it);
    ``job`` is the job pushed with it (empty: a bot seat's turn).
    """

    receipt: str
    game_id: str
    version: int
    queued_ms: int
    deliveries: int
    job: str = ""


class QueueStats(NamedTuple):
    """The bot queue at a glance, for metrics: turns pushed and not yet finished (waiting or
    being decided), and when the oldest of them was pushed (None: the queue is empty)."""

    depth: int
    oldest_queued_ms: int | None


#: What :meth:`GameStore.commit` returns; callers ``match`` on the three cases.
CommitResult = Committed | Duplicate | Conflict


class GameStore(Protocol):
    """The game store: in memory for one process, or Redis (single server or cluster).

    Every method may raise :class:`~.errors.StoreUnavailable` (backend down or slow; raised fast)
    and :class:`ValueError` for a malformed argument (e.g. an invalid game id).
    """

    async def create(
        self,
        game_id: str,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        *,
        finished: bool = False,
    ) -> None:
        """Store a new game at version 0 with ``events`` as the log entry of version 0. It
        lives for the idle time, or for the finished time-to-live when ``finished`` (a game over
        as soon as it is dealt).

        Raises :class:`~.errors.GameExists` if a game with this id is stored (an expired game's
        id may be reused).
        """
        ...

    async def load(self, game_id: str) -> GameRecord | None:
        """The game's current version, state and meta, or ``None`` if it does not exist.

        Reading does not refresh the idle time: only writes keep a game alive.
        """
        ...

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        new_state: bytes,
        events: Sequence[bytes],
        request_id: str | None,
        answer: bytes,
        *,
        finished: bool = False,
    ) -> CommitResult:
        """Atomically record one accepted move.

        In this order: if ``request_id`` was already answered for this game (and the answer has
        not expired) return :class:`Duplicate` with that answer and the version its commit
        produced; else if the stored version is
        not ``expected_version`` return :class:`Conflict` with the current version and state;
        else store ``new_state`` at version + 1, append ``events`` as that version's log entry,
        remember ``answer`` under ``request_id`` (when given) for the answer time-to-live
        (capped by the idle time),
        restart the game's idle time (the finished time-to-live instead when ``finished``: the
        move ended the game) and return :class:`Committed`. Only the last case changes anything.

        Answers are kept for every request id of the last answer time-to-live, so their size is
        what a busy game's memory grows with: keep them short (the service stores none and
        rebuilds a retry's reply from the log, see :class:`Duplicate`).

        Raises :class:`~.errors.GameNotFound` if the game does not exist.
        """
        ...

    async def take_token(self, bucket: str, per_second: float, size: int) -> float:
        """Take one token from the token bucket ``bucket`` (a rate limit shared by every
        replica on this store): 0.0 when taken, else the seconds until a token will be there, and
        nothing is taken.

        The bucket holds up to ``size`` tokens, starts full and gains ``per_second`` tokens a
        second. It is kept while it is not full again, so its memory is bounded by the clients
        active within ``size / per_second`` seconds.
        """
        ...

    async def remember(self, key: str, value: bytes) -> bytes | None:
        """Keep ``value`` under ``key`` (a name of the caller's, short and free of secrets)
        for the answer time-to-live, unless a value is kept there already: None when this one
        was kept, else the value kept before (left as it was). Atomic: of two callers racing
        with one key, one keeps its value and the other gets it."""
        ...

    async def recall(self, key: str) -> bytes | None:
        """The value :meth:`remember` keeps under ``key``, or None (never kept, or expired)."""
        ...

    async def propose_deadline(self, game_id: str, deadline_ms: int) -> None:
        """Enter ``game_id`` in the index of deadlines (turn clocks) at ``deadline_ms``, or
        move its entry earlier if it is later; never later (see :meth:`settle_deadline`).

        Called before the commit that gives the game that deadline, so that the index holds
        every deadline a committed state has: an entry may be early or stale, never missing.
        """
        ...

    async def due_deadlines(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` entries of the index of deadlines due at ``now_ms`` (the earliest
        first), as (game id, deadline)."""
        ...

    async def settle_deadline(self, game_id: str, seen_ms: int, deadline_ms: int | None) -> None:
        """Replace ``game_id``'s entry in the index, if it still says ``seen_ms``, with
        ``deadline_ms`` (None: remove it): what a sweeper does once it has applied the
        timeouts due. An entry moved since (a commit proposed another deadline) is left alone.
        """
        ...

    async def push_bot_turn(self, game_id: str, version: int, job: str = "") -> None:
        """Queue a bot seat's turn: the game at (store) ``version`` waits for a bot's decision
        (PLAY.md, "Bots think off the request path"). Called after the commit that hands the
        turn to a bot seat; pushing the same game and version twice is harmless (the worker
        that comes second finds the game moved on, or its commit answered as a retry).

        With a ``job`` (up to 32 printable ASCII characters, no space; see
        :func:`~.validation.check_job`), the entry is other work on that game and version, queued,
        handed out and finished exactly as a turn is, and taken back with its job.

        On Redis the queue is a stream per partition (the partition from the game id, so that on a
        cluster the partitions spread over the masters) read by one consumer group; the
        in-process store keeps its own queue with the same behaviour.
        """
        ...

    async def take_bot_turns(
        self, consumer: str, count: int, block_ms: int, reclaim_after_ms: int
    ) -> list[BotTurn]:
        """Up to ``count`` turns for worker ``consumer`` (a name unique to one worker process):
        first turns that a consumer was handed ``reclaim_after_ms`` or more ago and
        never finished (it died or stalled: ``XAUTOCLAIM``), then new turns in the order they
        were pushed (``XREADGROUP``; on a Redis Cluster, in push order within a partition, the
        partitions taking turns). Waits up to ``block_ms`` for a turn when none is there
        (0: answer at once), and returns as soon as one is pushed. A turn stays pending, and
        will be handed out again once ``reclaim_after_ms`` has passed, until
        :meth:`finish_bot_turn`.
        """
        ...

    async def finish_bot_turn(self, turn: BotTurn) -> None:
        """Remove a turn from the queue for good (decided and committed, or dropped because its
        game moved on or is gone). Finishing a turn twice is harmless."""
        ...

    async def bot_queue_stats(self) -> QueueStats:
        """How many turns are queued or being decided, and the oldest one's push time."""
        ...

    async def events(self, game_id: str, after_version: int, limit: int) -> list[VersionedEvents]:
        """Up to ``limit`` log entries with a version greater than ``after_version``, in order.

        ``after_version=-1`` starts at the creation entry. Raises
        :class:`~.errors.GameNotFound` if the game does not exist.
        """
        ...

    def watch(self, game_id: str, after_version: int) -> AsyncIterator[VersionedEvents]:
        """Follow the game's log: every entry after ``after_version``, then each new one.

        Never skips a version: a watcher that stops and resumes from the last version it saw
        misses nothing. Raises :class:`~.errors.GameNotFound` at the start if the game does not
        exist; ends (without error) once the game is deleted or expires; otherwise runs until the
        consumer stops iterating or is cancelled.
        """
        ...

    async def delete(self, game_id: str) -> bool:
        """Remove the game and everything stored with it; ``True`` if it existed."""
        ...

    async def count_games(self) -> int:
        """How many games are stored, for an "active games" gauge. May be approximate."""
        ...

    async def ping(self) -> None:
        """Return if the store can serve requests; raise StoreUnavailable otherwise."""
        ...

    async def close(self) -> None:
        """Release connections. The store must not be used afterwards."""
        ...

    # -- what one client holds (PLAY.md, "Limits"; see :mod:`.holdings`) --------------------

    async def hold_game(self, holder: str, game_id: str, limit: int) -> bool:
        """Enter ``game_id`` among the games ``holder`` holds, unless it holds ``limit`` games
        already (counted as they are: call :meth:`held_games` first to drop the games gone):
        True when it is held (now, or already), False when nothing changed. Atomic: every
        replica on this store counts the same games. ``holder`` is a name of the caller's,
        short and free of secrets (no braces)."""
        ...

    async def held_games(self, holder: str, grace_ms: int) -> list[str]:
        """The ids of the games ``holder`` holds that are still stored, the oldest held first.
        The ids of games no longer stored (expired, deleted, or never created), held more than
        ``grace_ms`` ago, are dropped on the way: a game that expires stops counting without
        anybody calling. A game over is still stored: see :meth:`release_games`."""
        ...

    async def release_games(self, holder: str, game_ids: Sequence[str]) -> None:
        """Drop ``game_ids`` from the games ``holder`` holds (ids it does not hold are
        ignored): for games the caller knows are over."""
        ...

    async def memory_use(self) -> tuple[int, int] | None:
        """The store's memory in use and its limit, in bytes, or None when it has no memory
        limit (the in-process store counts games instead: ``max_games``). On Redis, ``INFO
        memory``'s ``used_memory`` and ``maxmemory``; on a cluster, those of the primary nearest
        its limit. One round trip per primary: callers keep the reading for a while."""
        ...
