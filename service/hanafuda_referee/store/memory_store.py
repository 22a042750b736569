"""An in-process game store with the same semantics as the Redis store.

It is the default when no Redis URL is configured, so the service runs on a fresh machine with
one command, and it is the reference the shared contract tests hold both stores to. It is only
correct for one process: replicas each holding their own MemoryStore would each see different
games.

Time comes from an injectable monotonic clock so tests can expire games and answers without
sleeping. Expiry is lazy (checked on every access) plus a sweep from the least recently written
end of an ordered dict: since every write pushes the same idle time forward, that order is also
expiry order, so the sweep stops at the first live game and costs O(1) amortised.

Watchers wait on an :class:`asyncio.Event` per game that each commit sets and replaces, so they
wake immediately; they also wake every ``watch_block`` to notice that a game expired.

The bot queue is a FIFO of turns not yet handed out plus, in the order they were handed out, the
turns a worker holds (pending) until it finishes them, as a Redis consumer group keeps them. A
pending turn handed out ``reclaim_after_ms`` ago or more (on the store's clock) goes to the next
worker that asks. A worker with nothing to take waits on an :class:`asyncio.Event` that every
push sets and replaces. Push times are Unix milliseconds as the store's clock counts them from
the store's creation, so a test's fake clock moves them too.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from .contract import (
    BotTurn,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    GameRecord,
    QueueStats,
    VersionedEvents,
)
from .errors import GameExists, GameNotFound, StoreFull
from .failure_log import FailureLog
from .holdings import HeldGames
from .settings import StoreSettings
from .validation import (
    check_bucket,
    check_bytes,
    check_events,
    check_game_id,
    check_job,
    check_queue_take,
    check_range,
    check_request_id,
    check_version,
)

__all__ = ["MemoryStore"]

_FAILURES = FailureLog(logging.getLogger("hanafuda_referee.store"))
#: Token buckets held before the first sweep of the buckets full again.
_MIN_BUCKET_SWEEP = 1024


@dataclass(slots=True, eq=False)
class _Game:
    """One stored game. ``log[v]`` holds the events of version ``v``."""

    state: bytes
    meta: bytes
    log: list[tuple[bytes, ...]]
    expires_at: float
    #: request id -> (expiry time, version produced, answer), in insertion order, which is
    #: expiry order.
    answers: dict[str, tuple[float, int, bytes]] = field(default_factory=dict)
    #: Set (and replaced) on every commit and on removal, to wake watchers.
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def version(self) -> int:
        return len(self.log) - 1

    def wake_watchers(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


@dataclass(slots=True, eq=False)
class _QueuedTurn:
    """A turn in the bot queue: waiting (never handed out) or pending with a worker."""

    game_id: str
    version: int
    queued_ms: int
    #: How many times the turn was handed out (0: waiting).
    deliveries: int = 0
    #: The store's clock when it was last handed out.
    delivered_at: float = 0.0
    #: The job pushed with it ("": a bot seat's turn).
    job: str = ""


class MemoryStore:
    """A :class:`~.contract.GameStore` kept in a dict of this process."""

    def __init__(
        self,
        settings: StoreSettings | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._settings = settings or StoreSettings()
        self._clock = clock
        self._games: dict[str, _Game] = {}
        #: The ids of the games in play, then of the finished ones, each queue in expiry order:
        #: all the games of a queue have the same time-to-live, so the last touched expires last.
        self._expiry: tuple[OrderedDict[str, None], OrderedDict[str, None]] = (
            OrderedDict(),
            OrderedDict(),
        )
        self._closed = False
        self._probe = 0.0
        #: Token buckets: name -> (tokens left, clock time of that count); the buckets full again
        #: are forgotten whenever there are more than :attr:`_bucket_sweep_at`.
        self._buckets: dict[str, tuple[float, float]] = {}
        #: What :meth:`remember` keeps: key -> (expiry on the store's clock, value).
        self._kept: dict[str, tuple[float, bytes]] = {}
        self._kept_sweep_at = _MIN_BUCKET_SWEEP
        #: The index of deadlines (turn clocks): game id -> deadline, Unix milliseconds.
        self._deadlines: dict[str, int] = {}
        self._bucket_sweep_at = _MIN_BUCKET_SWEEP
        #: The bot queue: turns never handed out, in push order, and turns a worker holds, in
        #: the order they were first handed out (which is push order too), both by receipt.
        self._waiting_turns: dict[str, _QueuedTurn] = {}
        self._pending_turns: dict[str, _QueuedTurn] = {}
        self._turns_pushed = 0
        #: Set (and replaced) on every push, to wake the workers waiting for a turn.
        self._turn_pushed = asyncio.Event()
        #: Unix time when the store's clock read 0, so push times are Unix milliseconds that
        #: move with the store's clock (a test's fake clock included).
        self._unix_offset = time.time() - clock()
        #: What each client holds (see :mod:`.holdings`).
        self._holdings = HeldGames(clock)

    # -- expiry -----------------------------------------------------------------------------

    def _sweep(self) -> None:
        now = self._clock()
        for queue in self._expiry:
            while queue:
                game_id = next(iter(queue))
                game = self._games[game_id]
                if game.expires_at > now:
                    break
                del queue[game_id]
                del self._games[game_id]
                game.wake_watchers()

    def _live(self, game_id: str) -> _Game | None:
        self._check_open()
        self._sweep()
        return self._games.get(check_game_id(game_id))

    def _touch(self, game_id: str, game: _Game, finished: bool = False) -> None:
        settings = self._settings
        game.expires_at = self._clock() + (settings.finished_ttl if finished else settings.idle_ttl)
        self._expiry[not finished].pop(game_id, None)
        queue = self._expiry[finished]
        queue.pop(game_id, None)
        queue[game_id] = None

    def _forget(self, game_id: str) -> _Game:
        for queue in self._expiry:
            queue.pop(game_id, None)
        return self._games.pop(game_id)

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("store is closed")

    # -- GameStore ----------------------------------------------------------------------------

    async def create(
        self,
        game_id: str,
        state: bytes,
        meta: bytes,
        events: Sequence[bytes],
        *,
        finished: bool = False,
    ) -> None:
        """See :meth:`.contract.GameStore.create`."""
        state = check_bytes("state", state)
        meta = check_bytes("meta", meta)
        frozen_events = check_events(events)
        if self._live(game_id) is not None:
            raise GameExists(game_id)
        limit = self._settings.max_games
        if limit and len(self._games) >= limit:  # expired games were swept just now
            error = StoreFull(f"the in-process store holds its limit of {limit} games")
            _FAILURES.failed("create", error)
            raise error
        game = _Game(state=state, meta=meta, log=[frozen_events], expires_at=0.0)
        self._games[game_id] = game
        self._touch(game_id, game, finished)

    async def load(self, game_id: str) -> GameRecord | None:
        """See :meth:`.contract.GameStore.load`."""
        game = self._live(game_id)
        if game is None:
            return None
        return GameRecord(version=game.version, state=game.state, meta=game.meta)

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
        """See :meth:`.contract.GameStore.commit`."""
        check_request_id(request_id)
        new_state = check_bytes("new_state", new_state)
        answer = check_bytes("answer", answer)
        frozen_events = check_events(events)
        game = self._live(game_id)
        if game is None:
            raise GameNotFound(game_id)
        now = self._clock()
        if request_id is not None:
            kept = game.answers.get(request_id)
            if kept is not None and kept[0] > now:
                return Duplicate(answer=kept[2], version=kept[1])
        if game.version != expected_version:
            return Conflict(version=game.version, state=game.state)
        game.state = new_state
        game.log.append(frozen_events)
        if request_id is not None:
            _prune_answers(game.answers, now)
            game.answers.pop(request_id, None)  # re-insert at the end: keeps expiry order
            game.answers[request_id] = (now + self._settings.answer_keep, game.version, answer)
        self._touch(game_id, game, finished)
        game.wake_watchers()
        return Committed(version=game.version)

    async def events(self, game_id: str, after_version: int, limit: int) -> list[VersionedEvents]:
        """See :meth:`.contract.GameStore.events`."""
        check_range(after_version, limit)
        game = self._live(game_id)
        if game is None:
            raise GameNotFound(game_id)
        return _entries(game, after_version, limit)

    async def watch(self, game_id: str, after_version: int) -> AsyncIterator[VersionedEvents]:
        """See :meth:`.contract.GameStore.watch`."""
        check_range(after_version, 1)
        game = self._live(game_id)
        if game is None:
            raise GameNotFound(game_id)
        last = after_version
        while True:
            # Take the event before reading the log: a commit in between sets this very event.
            changed = game.changed
            for entry in _entries(game, last, len(game.log)):
                yield entry
                last = entry.version
            if self._live(game_id) is not game:
                return
            if last >= game.version:
                try:
                    async with asyncio.timeout(self._settings.watch_block):
                        await changed.wait()
                except TimeoutError:
                    pass
                if self._live(game_id) is not game:
                    return

    async def delete(self, game_id: str) -> bool:
        """See :meth:`.contract.GameStore.delete`."""
        if self._live(game_id) is None:
            return False
        self._forget(game_id).wake_watchers()
        return True

    async def take_token(self, bucket: str, per_second: float, size: int) -> float:
        """See :meth:`.contract.GameStore.take_token`."""
        self._check_open()
        check_bucket(per_second, size)
        now = self._clock()
        if len(self._buckets) > self._bucket_sweep_at:
            # Forget the buckets full again (as Redis expires them): memory stays bounded by
            # the clients of the last few seconds. The next sweep waits until the buckets
            # still in use have doubled, so a crowd of active clients is not walked every call.
            self._buckets = {
                name: (tokens, at)
                for name, (tokens, at) in self._buckets.items()
                if tokens + (now - at) * per_second < size
            }
            self._bucket_sweep_at = max(_MIN_BUCKET_SWEEP, 2 * len(self._buckets))
        tokens, at = self._buckets.get(bucket, (float(size), now))
        tokens = min(float(size), tokens + max(0.0, now - at) * per_second)
        if tokens < 1:
            return (1 - tokens) / per_second
        self._buckets[bucket] = (tokens - 1, now)
        return 0.0

    async def remember(self, key: str, value: bytes) -> bytes | None:
        """See :meth:`.contract.GameStore.remember`."""
        self._check_open()
        now = self._clock()
        kept = self._kept.get(key)
        if kept is not None and kept[0] > now:
            return kept[1]
        if len(self._kept) > self._kept_sweep_at:
            # Forget what expired; the next sweep waits until the live ones have doubled.
            self._kept = {k: v for k, v in self._kept.items() if v[0] > now}
            self._kept_sweep_at = max(_MIN_BUCKET_SWEEP, 2 * len(self._kept))
        self._kept[key] = (now + self._settings.answer_keep, bytes(value))
        return None

    async def recall(self, key: str) -> bytes | None:
        """See :meth:`.contract.GameStore.recall`."""
        self._check_open()
        kept = self._kept.get(key)
        return kept[1] if kept is not None and kept[0] > self._clock() else None

    async def propose_deadline(self, game_id: str, deadline_ms: int) -> None:
        """See :meth:`.contract.GameStore.propose_deadline`."""
        self._check_open()
        check_game_id(game_id)
        known = self._deadlines.get(game_id)
        if known is None or deadline_ms < known:
            self._deadlines[game_id] = int(deadline_ms)

    async def due_deadlines(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """See :meth:`.contract.GameStore.due_deadlines`."""
        self._check_open()
        due = sorted((d, g) for g, d in self._deadlines.items() if d <= now_ms)
        return [(g, d) for d, g in due[:limit]]

    async def settle_deadline(self, game_id: str, seen_ms: int, deadline_ms: int | None) -> None:
        """See :meth:`.contract.GameStore.settle_deadline`."""
        self._check_open()
        if self._deadlines.get(game_id) != seen_ms:
            return
        if deadline_ms is None:
            del self._deadlines[game_id]
        else:
            self._deadlines[game_id] = int(deadline_ms)

    async def push_bot_turn(self, game_id: str, version: int, job: str = "") -> None:
        """See :meth:`.contract.GameStore.push_bot_turn`."""
        self._check_open()
        check_game_id(game_id)
        check_version(version)
        check_job(job)
        self._turns_pushed += 1
        queued_ms = round((self._unix_offset + self._clock()) * 1000)
        self._waiting_turns[str(self._turns_pushed)] = _QueuedTurn(
            game_id, version, queued_ms, job=job
        )
        self._turn_pushed.set()
        self._turn_pushed = asyncio.Event()

    async def take_bot_turns(
        self, consumer: str, count: int, block_ms: int, reclaim_after_ms: int
    ) -> list[BotTurn]:
        """See :meth:`.contract.GameStore.take_bot_turns`."""
        check_queue_take(consumer, count, block_ms, reclaim_after_ms)
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + block_ms / 1000
        while True:
            self._check_open()
            # Take the event before looking: a push in between sets this very event.
            pushed = self._turn_pushed
            turns = self._take_turns(count, reclaim_after_ms)
            left = give_up_at - loop.time()
            if turns or left <= 0:
                return turns
            # Another worker may take the pushed turn first: then wait again, for what is left.
            try:
                async with asyncio.timeout(left):
                    await pushed.wait()
            except TimeoutError:
                pass

    def _take_turns(self, count: int, reclaim_after_ms: int) -> list[BotTurn]:
        now = self._clock()
        reclaim_before = now - reclaim_after_ms / 1000
        taken: list[tuple[str, _QueuedTurn]] = []
        # Pending turns stay in the order they were first handed out: a reclaimed one keeps its
        # place, as in a Redis consumer group's pending list (ordered by entry id).
        for receipt, turn in self._pending_turns.items():
            if len(taken) == count:
                break
            if turn.delivered_at <= reclaim_before:
                taken.append((receipt, turn))
        while len(taken) < count and self._waiting_turns:
            receipt = next(iter(self._waiting_turns))
            turn = self._waiting_turns.pop(receipt)
            self._pending_turns[receipt] = turn
            taken.append((receipt, turn))
        for _, turn in taken:
            turn.deliveries += 1
            turn.delivered_at = now
        return [
            BotTurn(receipt, turn.game_id, turn.version, turn.queued_ms, turn.deliveries, turn.job)
            for receipt, turn in taken
        ]

    async def finish_bot_turn(self, turn: BotTurn) -> None:
        """See :meth:`.contract.GameStore.finish_bot_turn`."""
        self._check_open()
        self._pending_turns.pop(turn.receipt, None)
        self._waiting_turns.pop(turn.receipt, None)

    async def bot_queue_stats(self) -> QueueStats:
        """See :meth:`.contract.GameStore.bot_queue_stats`."""
        self._check_open()
        firsts = [
            next(iter(turns.values())).queued_ms
            for turns in (self._pending_turns, self._waiting_turns)
            if turns
        ]
        depth = len(self._pending_turns) + len(self._waiting_turns)
        return QueueStats(depth=depth, oldest_queued_ms=min(firsts) if firsts else None)

    async def count_games(self) -> int:
        """Exact number of live games."""
        self._check_open()
        self._sweep()
        return len(self._games)

    async def ping(self) -> None:
        """Always available while open."""
        self._check_open()

    async def write_probe(self) -> None:
        """The benchmark's reference write: one plain write that touches no game (here, one
        attribute of this object)."""
        self._check_open()
        self._probe = time.monotonic()

    async def close(self) -> None:
        """Forget every game and end the watchers."""
        for game in self._games.values():
            game.wake_watchers()
        self._games.clear()
        for queue in self._expiry:
            queue.clear()
        self._waiting_turns.clear()
        self._pending_turns.clear()
        self._closed = True
        self._turn_pushed.set()  # the waiting workers find the store closed

    # -- what one client holds (see :mod:`.holdings`) ------------------------------------------

    async def hold_game(self, holder: str, game_id: str, limit: int) -> bool:
        """See :meth:`.contract.GameStore.hold_game`."""
        self._check_open()
        return self._holdings.hold(holder, game_id, limit)

    async def held_games(self, holder: str, grace_ms: int) -> list[str]:
        """See :meth:`.contract.GameStore.held_games`."""
        self._check_open()
        self._sweep()
        return self._holdings.held(holder, self._games.__contains__, grace_ms / 1000)

    async def release_games(self, holder: str, game_ids: Sequence[str]) -> None:
        """See :meth:`.contract.GameStore.release_games`."""
        self._check_open()
        self._holdings.release(holder, game_ids)

    async def memory_use(self) -> tuple[int, int] | None:
        """None: this store has no memory limit; ``max_games`` bounds it (see
        :meth:`.contract.GameStore.memory_use`)."""
        self._check_open()
        return None


def _entries(game: _Game, after_version: int, limit: int) -> list[VersionedEvents]:
    start = after_version + 1
    return [
        VersionedEvents(version, list(game.log[version]))
        for version in range(start, min(len(game.log), start + limit))
    ]


def _prune_answers(answers: dict[str, tuple[float, int, bytes]], now: float) -> None:
    while answers:
        request_id, (expires_at, _, _) = next(iter(answers.items()))
        if expires_at > now:
            return
        del answers[request_id]
