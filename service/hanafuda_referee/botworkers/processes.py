"""Bot worker processes: each a full consumer of the store's bot queue, with a store connection
of its own, deciding in a thread at a lower CPU priority (see the package docstring).

:class:`WorkerProcesses` starts and watches them for the ``bot-workers`` command
(:mod:`.command`) and for a referee's supervisor with ``--workers`` above 1. Each process is a
new interpreter (spawned, never forked from a process holding threads), asks the kernel for
SIGTERM when its parent dies (Linux), and on SIGTERM finishes the turn in hand and exits. A
process that exits is replaced.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from multiprocessing.process import BaseProcess

from hanafuda_referee import stop_signals
from hanafuda_referee.bots.advice import Advice
from hanafuda_referee.botworkers.consumer import BotConsumer, consumer_name
from hanafuda_referee.botworkers.deciding import advise_work, decide_turn, start_worker_process
from hanafuda_referee.config import Config
from hanafuda_referee.hosting.advice import AdviceWork
from hanafuda_referee.hosting.bot_turns import BotDecision
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.moves import Move
from hanafuda_referee.observability.logs import configure_logging, logger
from hanafuda_referee.store import open_store

__all__ = ["WorkerProcesses"]

#: Seconds a stopping worker gets to finish its turn before it is killed.
_STOP_GRACE = 5.0


class WorkerProcesses:
    """``count`` bot worker processes under ``config`` (its Redis URL)."""

    def __init__(self, config: Config, count: int) -> None:
        self._config = config
        self._count = count
        self._context = multiprocessing.get_context("spawn")
        self._processes: dict[int, BaseProcess] = {}

    def start(self) -> None:
        if not self._count:
            return
        for index in range(self._count):
            self._start(index)
        logger.info(
            "bot workers started",
            processes=self._count,
            pids=[p.pid for p in self._processes.values()],
        )

    def _start(self, index: int) -> None:
        process = self._context.Process(
            target=_work,
            args=(self._config, index, os.getpid()),
            name=f"hanafuda-bot-worker-{index}",
            daemon=True,
        )
        with stop_signals.held():  # until its handlers are installed: see stop_signals
            process.start()
        self._processes[index] = process

    def sentinels(self) -> list[int]:
        """The processes' sentinels, to wait on (see :meth:`replace_exited`)."""
        return [p.sentinel for p in self._processes.values()]

    def alive(self) -> int:
        """How many worker processes run."""
        return sum(p.is_alive() for p in self._processes.values())

    def replace_exited(self) -> None:
        """Start a new process in the place of each one that exited."""
        for index, process in list(self._processes.items()):
            if process.exitcode is not None:
                logger.warning(
                    "bot worker exited: replaced",
                    bot_worker=index,
                    pid=process.pid,
                    exit_code=process.exitcode,
                )
                process.join()
                self._start(index)

    def stop(self) -> int:
        """SIGTERM to every process; SIGKILL to those still there after the grace (logged at
        ERROR, ``bot worker killed``). The number of processes killed."""
        for process in self._processes.values():
            if process.is_alive():
                process.terminate()
        deadline = time.monotonic() + _STOP_GRACE
        killed = 0
        for index, process in self._processes.items():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                process.kill()
                process.join()
                killed += 1
                logger.error(
                    "bot worker killed",
                    bot_worker=index,
                    pid=process.pid,
                    exit_code=process.exitcode,
                    waited_s=_STOP_GRACE,
                )
        self._processes.clear()
        return killed


def _work(config: Config, index: int, parent: int) -> None:
    """One worker process's life."""
    start_worker_process(parent)
    configure_logging(config.log_format, config.log_level)
    asyncio.run(_consume(config, index))


async def _decide(decision: BotDecision) -> tuple[Move, float]:
    # In a thread: the event loop stays free for signals and the store's connection.
    return await asyncio.to_thread(decide_turn, decision)


async def _advise(work: AdviceWork) -> tuple[list[Advice], float]:
    return await asyncio.to_thread(advise_work, work)


async def _consume(config: Config, index: int) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    stop_signals.release()  # a stop sent while it started comes now, to the handlers
    store = open_store(config.redis_url, config.store_settings())
    games = HostedGames(store, cache_size=0)
    consumer = BotConsumer(games, consumer_name("bot-worker"), _decide, advise=_advise)
    logger.info("bot worker serving", bot_worker=index, consumer=consumer.name, pid=os.getpid())
    try:
        await consumer.run(stop)
    finally:
        await store.close()
        logger.info("bot worker stopped", bot_worker=index, pid=os.getpid())
