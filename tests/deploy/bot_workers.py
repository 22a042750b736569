"""What the deployment files must agree on with the bot workers' command: its name, its settings
and its health port (PLAY.md, *Built-in bots*: workers run apart from the referee, in a
Deployment of their own on Kubernetes and a service of their own in compose).

``hanafuda-referee bot-workers`` runs workers alone; ``serve`` runs an embedded pool unless
``HANAFUDA_BOT_WORKERS`` is 0. The workers read the referee's settings (the same key prefix, the
same game lifetimes) and two of their own.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

from hanafuda_referee.config import VARIABLES
from tests.store.servers import free_port
from tests.system.processes import START_TIMEOUT, referee_command

__all__ = [
    "COMMAND",
    "DEFAULT_HEALTH_PORT",
    "EMBEDDED_POOL",
    "HEALTH_PATHS",
    "HEALTH_PORT",
    "METRICS",
    "PROCESSES",
    "SETTINGS",
    "command_available",
    "health_port",
    "running",
]

#: The subcommand of ``hanafuda-referee`` that runs workers alone.
COMMAND = "bot-workers"
#: ``serve``'s embedded pool of workers; 0: external workers serve the queue.
EMBEDDED_POOL = "HANAFUDA_BOT_WORKERS"
#: Worker processes of one ``bot-workers`` command.
PROCESSES = "HANAFUDA_BOT_WORKER_PROCESSES"
#: The port of the workers' ``/healthz``, ``/readyz`` and ``/metrics``.
HEALTH_PORT = "HANAFUDA_BOT_WORKER_HEALTH_PORT"
DEFAULT_HEALTH_PORT = 8081
#: Liveness (the process answers) and readiness (the store answers).
HEALTH_PATHS = ("/healthz", "/readyz")
#: What the workers export on ``/metrics``, and the docs tell operators to watch.
METRICS = (
    "hanafuda_bot_queue_depth",
    "hanafuda_bot_queue_oldest_seconds",
    "hanafuda_bot_decisions_total",
    "hanafuda_bot_decision_seconds",
)

#: Every variable a deployment file may set: the referee's settings and the workers'.
SETTINGS: frozenset[str] = VARIABLES | {EMBEDDED_POOL, PROCESSES, HEALTH_PORT}


def health_port(environment: Mapping[str, str]) -> int:
    """The health port a ``bot-workers`` command with ``environment`` listens on.

    >>> health_port({}), health_port({HEALTH_PORT: "9100"})
    (8081, 9100)
    """
    return int(environment.get(HEALTH_PORT, DEFAULT_HEALTH_PORT))


@functools.cache
def command_available() -> bool:
    """Whether the installed ``hanafuda-referee`` has the workers' command (the checks that run
    it skip otherwise; the files' own checks do not need it)."""
    shown = subprocess.run(
        [*referee_command(), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    return COMMAND in shown.stdout


@contextlib.contextmanager
def running(environment: Mapping[str, str], directory: Path) -> Iterator[int]:
    """``hanafuda-referee bot-workers`` with ``environment`` (none of the test process's own
    settings), its health port moved to a free loopback port: that port, once ``/healthz``
    answers. Stopped by SIGTERM on exit, as the kubelet and Compose stop it."""
    port = free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("HANAFUDA_") and key != "REDIS_URL"
    }
    env |= {**environment, HEALTH_PORT: str(port), "HANAFUDA_HOST": "127.0.0.1"}
    env["PYTHONUNBUFFERED"] = "1"
    log_path = directory / "bot-workers.log"
    directory.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        # A session of its own: its worker processes go with it, whatever happens to the test.
        process = subprocess.Popen(
            [*referee_command(), COMMAND],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while not _answers(port):
            if process.poll() is not None:
                raise AssertionError(f"bot-workers exited:\n{log_path.read_text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"bot-workers did not answer:\n{log_path.read_text()}")
            time.sleep(0.05)
        yield port
    finally:
        _stop(process)


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    with contextlib.suppress(ProcessLookupError):
        # Any worker process left behind.
        os.killpg(process.pid, signal.SIGKILL)
