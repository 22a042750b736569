"""``hanafuda-referee bot-workers``: bot workers alone, against the Redis of ``REDIS_URL``.

It runs ``--processes`` worker processes (:mod:`.processes`) and, in its own process, serves
on ``--health-port``:

- ``/healthz``: 200 while this process runs (a liveness probe);
- ``/readyz``: 200 when the store answers and at least one worker process runs, else 503;
- ``/metrics``: the Prometheus metrics of every worker process added up (decisions per level,
  time per decision) and the queue's depth and oldest turn, sampled here.

SIGTERM or SIGINT: every worker finishes the turn in hand (or abandons it past a grace: the
queue hands it to another worker after the reclaim time), then the command exits with status 0.
The in-process store is refused: its queue lives in a referee's own process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile

from hanafuda_referee.config import Config

__all__ = ["run_bot_workers"]

#: The variable prometheus_client's multiprocess mode reads (before its import).
_METRICS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
#: Seconds between two looks at the worker processes (a dead one is replaced).
_WATCH_PERIOD = 0.5
#: Longest request head the health server reads (bytes).
_MOST_HEAD = 8192


def run_bot_workers(config: Config) -> int:
    """Run the command until SIGTERM or SIGINT; the exit status."""
    directory = tempfile.mkdtemp(prefix="hanafuda-bot-metrics-")
    # Before the metrics module is imported (the logs import it): it reads the variable then.
    os.environ[_METRICS_VARIABLE] = directory
    from hanafuda_referee.observability.logs import configure_logging, logger

    configure_logging(config.log_format, config.log_level)
    try:
        if not config.redis_url:
            logger.error(
                "bot-workers needs Redis: set REDIS_URL (the in-process store's queue lives in "
                "a referee's own process, whose embedded bot workers serve it)"
            )
            return 2
        return asyncio.run(_supervise(config))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


async def _supervise(config: Config) -> int:
    from hanafuda_referee.botworkers.consumer import sample_queue
    from hanafuda_referee.botworkers.processes import WorkerProcesses
    from hanafuda_referee.observability import metrics
    from hanafuda_referee.observability.logs import logger
    from hanafuda_referee.store import open_store

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    store = open_store(config.redis_url, config.store_settings())
    workers = WorkerProcesses(config, config.bot_worker_processes)

    async def ready() -> bool:
        try:
            await store.ping()
        except Exception:
            return False
        return workers.alive() > 0

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        path = head.split(b" ", 2)[1].split(b"?")[0] if head.count(b" ") >= 2 else b""
        content_type = "text/plain; charset=utf-8"
        if path == b"/healthz":
            status, body = "200 OK", b"ok\n"
        elif path == b"/readyz":
            ok = await ready()
            status, body = ("200 OK", b"ready\n") if ok else ("503 Service Unavailable", b"no\n")
        elif path == b"/metrics":
            body, content_type = metrics.render()
            status = "200 OK"
        else:
            status, body = "404 Not Found", b"not found\n"
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    try:
        server = await asyncio.start_server(
            answer, config.host, config.bot_worker_health_port, limit=_MOST_HEAD
        )
    except OSError as error:
        logger.error(
            "cannot listen",
            transport="health",
            port=config.bot_worker_health_port,
            error=str(error),
        )
        await store.close()
        return 1
    workers.start()
    port = server.sockets[0].getsockname()[1]
    logger.info(
        "bot workers serving",
        processes=config.bot_worker_processes,
        health_port=port,
        metrics_directory=os.environ[_METRICS_VARIABLE],
    )
    sampler = asyncio.create_task(sample_queue(store), name="bot-queue-gauges")
    try:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), _WATCH_PERIOD)
            if not stop.is_set():
                workers.replace_exited()
    finally:
        logger.info("bot workers stopping")
        server.close()
        sampler.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampler
        await asyncio.to_thread(workers.stop)
        await store.close()
        logger.info("bot workers stopped")
    return 0
