"""The loop of a bot worker: take a turn from the store's bot queue, have it decided and
committed, finish it (see the package docstring).

Turns are served in the order they were pushed, across games: a game has at most one turn
waiting (its version's), so no game's bots can hold up another's beyond their place in the line.
A turn is finished once it is committed or found moot (the game moved on, is over, or is gone).
A turn is left unfinished when the store fails or the search process dies: the queue hands it out
again after :data:`RECLAIM_AFTER_MS`, to this worker or another. A turn that keeps failing
(:data:`MOST_DELIVERIES`) is finished with an error line rather than tried for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable

from hanafuda_referee.bots.advice import Advice
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.advice import AdviceWork, Advisor
from hanafuda_referee.hosting.bot_turns import BotDecision, BotTurnResult
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.moves import Move
from hanafuda_referee.observability import metrics
from hanafuda_referee.observability.logs import logger
from hanafuda_referee.store import BotTurn, GameStore, StoreError

__all__ = [
    "MOST_DELIVERIES",
    "RECLAIM_AFTER_MS",
    "AdviceDecider",
    "BotConsumer",
    "Decider",
    "consumer_name",
    "sample_queue",
]

#: How long a turn handed to a worker stays its own before another may take it (milliseconds):
#: a few seconds, far above the expert's longest decision (its CPU cap, 150 ms, plus the load and
#: the commit) even on a loaded machine, so that a slow worker is seldom overtaken.
RECLAIM_AFTER_MS = 5_000
#: How long one take waits for a turn before it looks again (milliseconds).
BLOCK_MS = 1_000
#: Deliveries after which a turn that keeps failing is given up.
MOST_DELIVERIES = 5
#: Seconds between two samples of the queue's gauges.
QUEUE_SAMPLE_PERIOD = 2.0

#: A bot's search: the move for a decision and the CPU seconds it took.
Decider = Callable[[BotDecision], Awaitable[tuple[Move, float]]]
#: The expert's advice (a hint, a review): the advice on each position and the CPU seconds.
AdviceDecider = Callable[[AdviceWork], Awaitable[tuple[list[Advice], float]]]


def consumer_name(role: str) -> str:
    """A name of the store's consumer group unique to this process: its host, its process id and
    a random part (a restarted container may reuse a process id)."""
    return f"{role}-{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


class BotConsumer:
    """Takes the turns of ``games``'s store under ``name``, ``slots`` at a time, and has each
    decided by ``decide`` (a thread, or a pool of processes) and committed. The queue's other
    jobs, hints and reviews (:mod:`hanafuda_referee.hosting.advice`), are worked out by
    ``advise`` (where ``decide`` runs) and stored; a worker without ``advise`` drops them."""

    def __init__(
        self,
        games: HostedGames,
        name: str,
        decide: Decider,
        *,
        slots: int = 1,
        advise: AdviceDecider | None = None,
    ) -> None:
        self._games = games
        self._store: GameStore = games.store
        self._name = name
        self._decide = decide
        self._advise = advise
        self._advisor = Advisor(games)
        self._slots = slots
        #: Turns being served now (a stop waits for them).
        self._busy = 0

    @property
    def name(self) -> str:
        return self._name

    async def run(self, stop: asyncio.Event) -> None:
        """Serve turns until ``stop`` is set; a turn in hand is finished first (a take in
        progress is abandoned: a turn it had taken is reclaimed by another worker)."""
        loops = [
            asyncio.create_task(self._loop(stop), name=f"bot-turns-{i}") for i in range(self._slots)
        ]
        try:
            await asyncio.gather(*loops)
        finally:
            for loop in loops:
                loop.cancel()
            for loop in loops:
                with contextlib.suppress(asyncio.CancelledError):
                    await loop

    async def _loop(self, stop: asyncio.Event) -> None:
        stopping = asyncio.create_task(stop.wait())
        try:
            while not stop.is_set():
                take = asyncio.create_task(
                    self._store.take_bot_turns(self._name, 1, BLOCK_MS, RECLAIM_AFTER_MS)
                )
                await asyncio.wait({take, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not take.done():
                    take.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StoreError):
                        await take
                    break
                try:
                    turns = take.result()
                except StoreError:
                    logger.warning("bot queue unavailable", consumer=self._name)
                    await asyncio.sleep(1.0)
                    continue
                except Exception:  # never let a surprise end the loop: no bot would move again
                    logger.exception("bot queue take failed", consumer=self._name)
                    await asyncio.sleep(1.0)
                    continue
                for turn in turns:
                    # Shielded: a stop lets the turn in hand finish.
                    await asyncio.shield(self.serve(turn))
        finally:
            stopping.cancel()

    async def serve(self, turn: BotTurn) -> BotTurnResult | None:
        """Decide and commit one turn, then finish it; None when it was left for a retry."""
        self._busy += 1
        try:
            try:
                if turn.job:
                    result = await self._serve_job(turn)
                else:
                    result = await self._games.play_bot_turn(
                        turn.game_id, turn.version, self._decided
                    )
            except ApiError as error:
                await self._failed(turn, error.reason)
                return None
            except Exception as error:  # a bug: logged, and given up after a few tries
                logger.exception("bot turn failed", game=turn.game_id, consumer=self._name)
                await self._failed(turn, type(error).__name__)
                return None
            await self._finish(turn)
            return result
        finally:
            self._busy -= 1

    async def _serve_job(self, turn: BotTurn) -> BotTurnResult:
        """A hint or a review: worked out and stored (PLAYED), or dropped."""
        if self._advise is None:
            logger.warning("bot queue job dropped: this worker gives no advice", job=turn.job)
            return BotTurnResult.DROPPED
        stored = await self._advisor.serve(turn.game_id, turn.version, turn.job, self._advised)
        return BotTurnResult.PLAYED if stored else BotTurnResult.DROPPED

    async def _advised(self, work: AdviceWork) -> list[Advice]:
        assert self._advise is not None
        advices, seconds = await self._advise(work)
        kind = "review" if work.total_seconds is not None else "hint"
        metrics.BOT_DECISIONS.labels(kind).inc()
        metrics.BOT_DECISION_SECONDS.labels(kind).observe(seconds)
        return advices

    async def _decided(self, decision: BotDecision) -> Move:
        move, seconds = await self._decide(decision)
        level = decision.level.name.lower()
        metrics.BOT_DECISIONS.labels(level).inc()
        metrics.BOT_DECISION_SECONDS.labels(level).observe(seconds)
        return move

    async def _failed(self, turn: BotTurn, why: str) -> None:
        if turn.deliveries >= MOST_DELIVERIES:
            logger.error(
                "bot turn given up", game=turn.game_id, deliveries=turn.deliveries, error=why
            )
            await self._finish(turn)
        else:
            logger.warning(
                "bot turn left for a retry", game=turn.game_id, error=why, consumer=self._name
            )

    async def _finish(self, turn: BotTurn) -> None:
        try:
            await self._store.finish_bot_turn(turn)
        except StoreError:
            # Left pending: it comes back after the reclaim time and is dropped then.
            logger.warning("bot turn not finished", game=turn.game_id, consumer=self._name)


async def sample_queue(store: GameStore, period: float = QUEUE_SAMPLE_PERIOD) -> None:
    """Keep the queue's gauges (depth, oldest turn's age) up to date, every ``period``."""
    while True:
        try:
            stats = await store.bot_queue_stats()
            metrics.BOT_QUEUE_DEPTH.set(stats.depth)
            oldest = stats.oldest_queued_ms
            metrics.BOT_QUEUE_OLDEST.set(
                0.0 if oldest is None else max(0.0, time.time() - oldest / 1000)
            )
        except Exception:  # a gauge must never take a process down
            logger.warning("bot queue gauges: store did not answer")
        await asyncio.sleep(period)
