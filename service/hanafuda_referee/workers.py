"""Several serving processes on the same ports: ``--workers N`` (``auto``: one per core).

One process serves on one core; the referee keeps no game in its processes that the store does
not hold, so more processes over one Redis serve more moves until Redis is the limit. With more
than one worker, the process started (the supervisor) serves nothing itself:

1. It binds both ports once without ``SO_REUSEPORT``, which fails if any other process holds them
   (a port in use stops the start, with a ``cannot listen`` line and exit status 1, as for one
   process), then holds each with ``SO_REUSEPORT`` (bound, never listening: it takes no
   connection) for as long as it runs, so that no other service can join the workers on them.
2. It makes a directory of its own for the workers' metrics (``PROMETHEUS_MULTIPROC_DIR``, see
   :mod:`.observability.metrics`): ``/metrics``, whichever worker a scrape reaches, adds up every
   worker's; the directory is removed at exit.
3. It starts the workers, each a new interpreter (never a fork of a process holding threads or
   grpc's state), running :func:`.serving.serve` with ``SO_REUSEPORT`` on both ports: the kernel
   spreads the connections over them (a connection, and so a gRPC channel's calls, stays with
   one worker). Each worker's log lines carry its index (``worker``) and its start and stop
   lines its process id too.
4. It starts ``--bot-workers`` bot worker processes (:mod:`.botworkers.processes`), once for the
   group, and replaces one that exits; the serving processes start none of their own.
5. SIGTERM or SIGINT: it sends SIGTERM to every worker, which shuts down as one process does
   (``shutdown_grace``), waits for them (the grace and :data:`_STOP_MARGIN` more, then SIGKILL),
   and exits with status 0. A worker it had to kill is logged at ERROR (``worker killed``, with
   its pid and exit code; just before, SIGUSR1 has it write its threads' stacks to standard
   error, which shows where it hung), one that ended with a non-zero exit code at WARNING
   (``worker stopped with an error``), and either makes the exit status :data:`UNCLEAN_STOP`
   (3); so does a bot worker process killed at the stop.

Each process is started with SIGTERM and SIGINT blocked, and unblocks them once its handlers
are installed (:mod:`.stop_signals`): a stop sent while a worker starts is a graceful stop
when it can act on it, not the default action's death.

A worker that exits before it serves (it could not start: a TLS file, a port) stops the group:
the others are stopped and the supervisor exits with status 1. A worker that exits once serving
(killed, out of memory, crashed) is logged (``worker exited``, with its exit code) and replaced by
a new one with the same index, unless workers have died :data:`_MOST_DEATHS` times within
:data:`_DEATHS_WINDOW` seconds: a crash loop stops the group (status 1), for whatever restarts
the service to see. On Linux each worker asks the kernel for SIGTERM when the supervisor dies,
so no worker is left serving if the supervisor is killed (and they remove the metrics directory
it could not).

The in-process store cannot be shared: :class:`~.config.Config` refuses more than one worker
without a Redis URL.
"""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import multiprocessing
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import TYPE_CHECKING, Any

from hanafuda_referee import stop_signals
from hanafuda_referee.botworkers.processes import WorkerProcesses
from hanafuda_referee.config import Config
from hanafuda_referee.observability.logs import configure_logging, logger

if TYPE_CHECKING:
    from hanafuda_referee.serving import ExtraServices
    from hanafuda_referee.store import GameStore

__all__ = ["UNCLEAN_STOP", "run_workers"]

#: Seconds the supervisor waits for its workers beyond their shutdown grace before SIGKILL.
_STOP_MARGIN = 10.0
#: The signal on which a worker writes its threads' stacks (faulthandler), and the seconds the
#: supervisor gives it to write them before SIGKILL.
_DUMP_STACKS = signal.SIGUSR1
#: The signal on which a worker logs its event loop's tasks (serving.TASKS_SIGNAL, which this
#: module does not import: it would load the whole service into the supervisor).
_TASKS_SIGNAL = signal.SIGUSR2
_DUMP_WAIT = 1.0
#: The supervisor's exit status after a stop that was not clean: a worker (or a bot worker
#: process) had to be killed, or ended with an error. 1 stays a failure to start or a crash loop.
UNCLEAN_STOP = 3
#: Worker deaths within :data:`_DEATHS_WINDOW` seconds that stop the group (a crash loop).
_MOST_DEATHS = 5
_DEATHS_WINDOW = 60.0
#: The variable prometheus_client's multiprocess mode reads.
_METRICS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
#: Linux's prctl option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1


@dataclass
class _Worker:
    """One worker slot: its index, and its current process with its start-up pipe."""

    index: int
    process: BaseProcess
    started: Connection
    serving: bool = False
    since: float = field(default_factory=time.monotonic)


def run_workers(
    config: Config, *, extra: Callable[[GameStore], ExtraServices] | None = None
) -> int:
    """Run ``config.workers`` workers until SIGTERM or SIGINT (see the module docstring); the
    exit status. ``extra`` (picklable: a module's function) is passed on to each worker's
    :func:`~.serving.serve`."""
    configure_logging(config.log_format, config.log_level)
    if not hasattr(socket, "SO_REUSEPORT"):
        logger.error("workers need SO_REUSEPORT, which this system lacks", workers=config.workers)
        return 1
    try:
        held, config = _hold_ports(config)
    except _CannotListen as error:
        logger.error(
            "cannot listen",
            transport=error.transport,
            host=config.host,
            port=error.port,
            error=error.reason,
        )
        return 1
    directory = tempfile.mkdtemp(prefix="hanafuda-metrics-")
    os.environ[_METRICS_VARIABLE] = directory
    try:
        return _Supervisor(config, extra).run()
    finally:
        for bound in held:
            bound.close()
        shutil.rmtree(directory, ignore_errors=True)


class _CannotListen(Exception):
    def __init__(self, transport: str, port: int, reason: str) -> None:
        super().__init__(f"{transport}: cannot listen on port {port}: {reason}")
        self.transport = transport
        self.port = port
        self.reason = reason


def _hold_ports(config: Config) -> tuple[list[socket.socket], Config]:
    """Check that both ports are free and hold them for the workers (see the module
    docstring); the sockets held, and ``config`` with the ports a port 0 was given."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    held: list[socket.socket] = []
    ports: dict[str, int] = {}
    try:
        for transport, name in (("http", "http_port"), ("grpc", "grpc_port")):
            port = getattr(config, name)
            try:
                # Without SO_REUSEPORT: refused if anyone, even a group of workers, holds it.
                with socket.socket(family, socket.SOCK_STREAM) as alone:
                    alone.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    alone.bind((config.host, port))
                    port = alone.getsockname()[1]
                shared = socket.socket(family, socket.SOCK_STREAM)
                held.append(shared)
                shared.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                shared.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
                shared.bind((config.host, port))
            except OSError as error:
                raise _CannotListen(transport, port, str(error)) from error
            ports[name] = port
    except _CannotListen:
        for bound in held:
            bound.close()
        raise
    return held, dataclasses.replace(
        config, http_port=ports["http_port"], grpc_port=ports["grpc_port"]
    )


class _Supervisor:
    """Starts the workers, replaces those that die, stops them all on a signal."""

    def __init__(self, config: Config, extra: Callable[[GameStore], ExtraServices] | None) -> None:
        self._config = config
        self._extra = extra
        self._context = multiprocessing.get_context("spawn")
        self._workers: dict[int, _Worker] = {}
        self._deaths: list[float] = []
        self._stopping = False
        self._announced = False
        # Signals wake the wait below through this pair (the handler only notes them).
        self._wake, self._woken = socket.socketpair()
        # The bot workers of the whole group, started once (the serving processes start none).
        self._bots = WorkerProcesses(config, config.bot_workers)
        self._wake.setblocking(False)
        self._woken.setblocking(False)

    def run(self) -> int:
        previous = signal.set_wakeup_fd(self._wake.fileno(), warn_on_full_buffer=False)
        handlers = {
            sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)
        }
        try:
            logger.info(
                "starting workers",
                workers=self._config.workers,
                metrics_directory=os.environ[_METRICS_VARIABLE],
                host=self._config.host,
                grpc_port=self._config.grpc_port,
                http_port=self._config.http_port,
            )
            for index in range(self._config.workers):
                self._start(index)
            self._bots.start()
            status = self._supervise()
        finally:
            unclean = self._stop_all()
            unclean += self._bots.stop()
            signal.set_wakeup_fd(previous)
            for sig, handler in handlers.items():
                signal.signal(sig, handler)
            self._wake.close()
            self._woken.close()
        # A stop that had to kill a process (or saw one fail) is no clean stop: say so to
        # whatever stopped the service, unless the status says something worse already.
        return status or (UNCLEAN_STOP if unclean else 0)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = True

    def _start(self, index: int) -> None:
        receiving, sending = self._context.Pipe(duplex=False)
        process = self._context.Process(
            target=_work,
            args=(self._config, index, self._extra, sending, os.getpid()),
            name=f"hanafuda-referee-worker-{index}",
        )
        with stop_signals.held():  # until the worker's handlers are installed: see stop_signals
            process.start()
        sending.close()  # the worker's end: the supervisor sees EOF if the worker dies
        self._workers[index] = _Worker(index, process, receiving)

    def _supervise(self) -> int:
        """Wait for workers to serve or exit, and for a signal; the exit status."""
        while not self._stopping:
            waiting: dict[Any, tuple[str, _Worker]] = {}
            for worker in self._workers.values():
                waiting[worker.process.sentinel] = ("exited", worker)
                if not worker.serving:
                    waiting[worker.started] = ("serving", worker)
            bot_sentinels = self._bots.sentinels()
            ready = wait([*waiting, *bot_sentinels, self._woken])
            if any(handle in bot_sentinels for handle in ready) and not self._stopping:
                self._bots.replace_exited()
            if self._woken in ready:
                with contextlib.suppress(BlockingIOError):
                    self._woken.recv(4096)
            for handle in ready:
                if handle is self._woken or handle not in waiting:
                    continue
                what, worker = waiting[handle]
                if what == "serving":
                    self._on_serving(worker)
                elif not self._stopping:
                    status = self._on_exit(worker)
                    if status is not None:
                        return status
        logger.info("stopping workers", workers=len(self._workers))
        return 0

    def _on_serving(self, worker: _Worker) -> None:
        try:
            worker.started.recv_bytes()
        except (EOFError, OSError):
            return  # it exited before serving: its sentinel says so
        worker.serving = True
        if not self._announced and all(w.serving for w in self._workers.values()):
            self._announced = True
            logger.info(
                "workers serving",
                workers=len(self._workers),
                pids=[w.process.pid for w in self._workers.values()],
            )

    def _on_exit(self, worker: _Worker) -> int | None:
        """A worker exited on its own: replace it, or stop the group (its exit status)."""
        process = worker.process
        process.join()
        _forget(process.pid)
        worker.started.close()
        del self._workers[worker.index]
        if not worker.serving:
            logger.error(
                "worker failed to start",
                worker=worker.index,
                pid=process.pid,
                exit_code=process.exitcode,
            )
            return 1
        now = time.monotonic()
        self._deaths = [t for t in self._deaths if now - t < _DEATHS_WINDOW]
        self._deaths.append(now)
        logger.warning(
            "worker exited",
            worker=worker.index,
            pid=process.pid,
            exit_code=process.exitcode,
            served_s=round(now - worker.since, 1),
        )
        if len(self._deaths) >= _MOST_DEATHS:
            logger.error(
                "workers keep exiting: stopping", deaths=len(self._deaths), window_s=_DEATHS_WINDOW
            )
            return 1
        self._start(worker.index)
        return None

    def _stop_all(self) -> int:
        """SIGTERM to every worker, then wait (SIGKILL past the grace and the margin); the
        number of workers that did not stop cleanly (killed, or a non-zero exit code)."""
        for worker in self._workers.values():
            if worker.process.is_alive():
                worker.process.terminate()
        deadline = time.monotonic() + self._config.shutdown_grace + _STOP_MARGIN
        killed: list[int] = []
        for worker in self._workers.values():
            process = worker.process
            process.join(max(0.0, deadline - time.monotonic()))
            if process.exitcode is None:
                _dump_stacks(process)
                process.kill()
                process.join()
                killed.append(worker.index)
                logger.error(
                    "worker killed",
                    worker=worker.index,
                    pid=process.pid,
                    exit_code=process.exitcode,
                    waited_s=round(self._config.shutdown_grace + _STOP_MARGIN, 1),
                )
            elif process.exitcode != 0:
                logger.warning(
                    "worker stopped with an error",
                    worker=worker.index,
                    pid=process.pid,
                    exit_code=process.exitcode,
                )
            _forget(process.pid)
            worker.started.close()
        exit_codes = [w.process.exitcode for w in self._workers.values()]
        if self._workers:
            logger.info("workers stopped", exit_codes=exit_codes, killed=killed)
        self._workers.clear()
        return sum(code != 0 for code in exit_codes)


def _dump_stacks(process: BaseProcess) -> None:
    """Have a worker that did not stop write its threads' stacks to standard error (grpc's C
    core writes there too) and log what each of its tasks awaits (a ``tasks`` line, see
    :func:`.serving._log_tasks`): the next line, ``worker killed``, says which it was."""
    if process.pid is None:
        return
    with contextlib.suppress(OSError):
        os.kill(process.pid, _DUMP_STACKS)
        os.kill(process.pid, _TASKS_SIGNAL)
        process.join(_DUMP_WAIT)


def _forget(pid: int | None) -> None:
    """Drop a dead worker's live gauges from the merged metrics (its counters stay)."""
    if pid is None:
        return
    from prometheus_client import multiprocess

    with contextlib.suppress(OSError):
        multiprocess.mark_process_dead(  # type: ignore[no-untyped-call]
            pid, os.environ[_METRICS_VARIABLE]
        )


def _die_with(supervisor: int) -> None:
    """Have the kernel send this process SIGTERM when the supervisor dies (Linux); exit now if
    it is gone already."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != supervisor:
        os._exit(1)


def _work(
    config: Config,
    index: int,
    extra: Callable[[GameStore], ExtraServices] | None,
    started: Connection,
    supervisor: int,
) -> None:
    """One worker: the service as one process runs it, sharing the ports, its lines named."""
    _die_with(supervisor)
    # Where a worker that does not stop hangs: the supervisor asks for its stacks before it
    # kills it (see _Supervisor._stop_all).
    faulthandler.register(_DUMP_STACKS, all_threads=True)
    import asyncio

    from hanafuda_referee.serving import StartupFailed, loop_factory, serve

    configure_logging(config.log_format, config.log_level, worker=index)

    def tell_supervisor() -> None:
        started.send_bytes(b"serving")
        started.close()

    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            try:
                runner.run(serve(config, extra=extra, worker=index, started=tell_supervisor))
            except StartupFailed:
                sys.exit(1)  # logged as it happened
    finally:
        if os.getppid() != supervisor:
            # The supervisor died without its clean-up: the workers, which it asked the kernel
            # to stop, remove the metrics directory (the last to end finds it gone already).
            shutil.rmtree(os.environ[_METRICS_VARIABLE], ignore_errors=True)
