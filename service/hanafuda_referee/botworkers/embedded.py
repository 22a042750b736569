"""The bot workers of a referee serving as one process (``serve``, ``--bot-workers N``).

The serving process takes its store's turns itself and sends only the search, the pure part
(the seat's view, the level, the seed), to a pool of ``N`` processes at a lower CPU priority; it
then commits the move (a load and a commit: about a millisecond, on its event loop). The search,
tens of milliseconds of CPU for an expert, never runs in the process that answers requests.

This is what makes the in-process store play against bots at all (its queue lives in the
serving process); with Redis it serves the same way, and its ``/metrics`` count the decisions
without a shared metrics directory. A referee with ``--workers`` above 1 starts full worker
processes instead (:mod:`.processes`), and ``bot-workers`` runs them alone (:mod:`.command`).

A pool process that dies (killed, out of memory) breaks the pool: it is replaced by a new one,
and the turns it held are taken again after the reclaim time.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from hanafuda_referee.bots.advice import Advice
from hanafuda_referee.botworkers.consumer import BotConsumer, consumer_name
from hanafuda_referee.botworkers.deciding import advise_work, decide_turn, start_worker_process
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.advice import AdviceWork
from hanafuda_referee.hosting.bot_turns import BotDecision
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.moves import Move
from hanafuda_referee.observability.logs import logger

__all__ = ["EmbeddedBotWorkers"]

A = TypeVar("A")
R = TypeVar("R")


class EmbeddedBotWorkers:
    """``processes`` search processes and the consumer that feeds them (see the module
    docstring): :meth:`run` until stopped, then :meth:`close`. The processes start with the
    first bot turns (a second or so, once), so that a referee that hosts no bot game never
    starts them."""

    def __init__(self, games: HostedGames, processes: int) -> None:
        self._processes = processes
        self._pool = self._new_pool()
        self.consumer = BotConsumer(
            games,
            consumer_name("embedded"),
            self._decide,
            slots=processes,
            advise=self._advise,
        )

    def _new_pool(self) -> ProcessPoolExecutor:
        # Spawned, never forked: the serving process holds threads (gRPC's) and sockets.
        return ProcessPoolExecutor(
            self._processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=start_worker_process,
            initargs=(os.getpid(),),
        )

    async def _decide(self, decision: BotDecision) -> tuple[Move, float]:
        return await self._in_pool(decide_turn, decision)

    async def _advise(self, work: AdviceWork) -> tuple[list[Advice], float]:
        return await self._in_pool(advise_work, work)

    async def _in_pool(self, search: Callable[[A], R], argument: A) -> R:
        """``search(argument)`` in a pool process (a new pool if that one died)."""
        loop = asyncio.get_running_loop()
        pool = self._pool
        try:
            return await loop.run_in_executor(pool, search, argument)
        except BrokenProcessPool:
            if pool is self._pool:
                logger.warning("bot worker process died: pool replaced")
                self._pool = self._new_pool()
                with contextlib.suppress(Exception):
                    pool.shutdown(wait=False, cancel_futures=True)
            raise ApiError("UNAVAILABLE", "the bot worker died; the turn is taken again") from None

    async def run(self, stop: asyncio.Event) -> None:
        """Serve turns until ``stop`` is set."""
        await self.consumer.run(stop)

    def close(self) -> None:
        """Stop the pool's processes (a search in progress is abandoned)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
