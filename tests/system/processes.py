"""Real ``hanafuda-referee`` server processes for the system tests.

Each :class:`RefereeProcess` is the installed console script started the way an operator starts
it (flags and environment), on free loopback ports, with its JSON log lines captured to a file so
that tests can read every line the server printed. Games live in the Redis the test names, under a
key prefix of the test's own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from tests.store.servers import free_port

__all__ = ["RefereeProcess", "referee_command"]

#: Seconds a server may take to start answering /readyz.
START_TIMEOUT = 30.0


def referee_command() -> list[str]:
    """The console script next to this interpreter (as the README runs it), else ``-m``."""
    script = Path(sys.executable).with_name("hanafuda-referee")
    if script.exists():
        return [str(script)]
    found = shutil.which("hanafuda-referee")
    return [found] if found else [sys.executable, "-m", "hanafuda_referee.cli"]


class _PortTaken(Exception):
    """The process exited at start-up because one of its ports was in use."""


class RefereeProcess:
    """One service process: gRPC on :attr:`grpc_port`, HTTP on :attr:`http_port`.

    ``env`` adds environment variables (``REDIS_URL``, ``HANAFUDA_KEY_PREFIX``...); ``flags``
    adds command-line flags; ``tls``: the context that trusts its certificate, when ``env`` makes
    it serve TLS (the creation limit and the limits on what one client holds are off unless
    ``env`` sets them); ``command`` replaces the console script (its ``serve`` and the
    flags follow). Testing features (seeds, prepared deals) are on unless
    ``allow_testing`` is False. ``subcommand``: ``bot-workers`` runs bot workers alone, their
    health port on :attr:`http_port` (``/readyz``, ``/metrics``).
    """

    def __init__(
        self,
        directory: Path,
        *,
        env: Mapping[str, str] | None = None,
        flags: Sequence[str] = (),
        allow_testing: bool = True,
        name: str = "referee",
        command: Sequence[str] | None = None,
        tls: ssl.SSLContext | None = None,
        subcommand: str = "serve",
    ) -> None:
        self.directory = directory
        self.subcommand = subcommand
        self.name = name
        self.extra_env = dict(env or {})
        self.flags = list(flags)
        self.allow_testing = allow_testing
        self.command = list(command) if command is not None else referee_command()
        #: How to trust the process's certificate when it serves TLS (None: plain text).
        self.tls = tls
        self._draw_ports()
        self.log_path = directory / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def http_url(self) -> str:
        scheme = "http" if self.tls is None else "https"
        return f"{scheme}://127.0.0.1:{self.http_port}"

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def start(self, attempts: int = 5) -> None:
        """Start the process and wait until ``/readyz`` answers 200.

        Its ports were free when drawn, but a parallel test may bind one first: when the
        process gives up because an address is in use, it starts again on new ports (up to
        ``attempts`` times in all).
        """
        for attempt in range(1, attempts + 1):
            try:
                self._start_once()
                return
            except _PortTaken:
                if attempt == attempts:
                    raise RuntimeError(
                        f"{self.name} found its ports taken {attempts} times:\n{self.log_text()}"
                    ) from None
                self._draw_ports()

    def _draw_ports(self) -> None:
        self.grpc_port = free_port()
        self.http_port = free_port()
        while self.http_port == self.grpc_port:
            self.http_port = free_port()

    def _start_once(self) -> None:
        started_at = len(self.log_text())
        self._launch()
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.process.poll() is not None:
                self.process = None
                if '"cannot listen"' in self.log_text()[started_at:]:
                    raise _PortTaken
                raise RuntimeError(f"{self.name} exited at start-up:\n{self.log_text()}")
            try:
                verify = True if self.tls is None else self.tls
                ready = httpx.get(f"{self.http_url}/readyz", timeout=1.0, verify=verify)
                if ready.status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not become ready:\n{self.log_text()}")
            time.sleep(0.05)

    def exit_status_at_start(self) -> int:
        """Start the process expecting it to give up at start-up; its exit status (the test
        fails if it is still running after the start-up timeout)."""
        self._launch()
        process, self.process = self.process, None
        assert process is not None
        try:
            return process.wait(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise AssertionError(f"{self.name} did not exit:\n{self.log_text()}") from None

    def _launch(self) -> None:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("HANAFUDA_") and key != "REDIS_URL"
        }
        env.update(
            HANAFUDA_HOST="127.0.0.1",
            HANAFUDA_GRPC_PORT=str(self.grpc_port),
            HANAFUDA_HTTP_PORT=str(self.http_port),
            HANAFUDA_BOT_WORKER_HEALTH_PORT=str(self.http_port),
            HANAFUDA_LOG_FORMAT="json",
            HANAFUDA_LOG_LEVEL="INFO",
            HANAFUDA_SHUTDOWN_GRACE="2",
            # The tests create many games from one address: no creation limit, and no limit
            # on what one client holds, unless a test sets one (test_rate_limit.py,
            # test_client_limits.py).
            HANAFUDA_CREATE_RATE="0",
            HANAFUDA_MAX_CLIENT_GAMES="0",
            HANAFUDA_MAX_CLIENT_BOT_GAMES="0",
            HANAFUDA_MAX_EXPERT_SEATS="0",
            PYTHONUNBUFFERED="1",
        )
        if self.allow_testing:
            env["HANAFUDA_ALLOW_TESTING"] = "true"
        env.update(self.extra_env)
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [*self.command, self.subcommand, *self.flags],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        log.close()

    def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, wait (SIGKILL after ``timeout``); returns the exit status."""
        if self.process is None:
            return None
        process, self.process = self.process, None
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode

    def metric(self, name: str) -> float:
        """The value of the unlabelled Prometheus sample ``name`` the process serves now."""
        text = httpx.get(f"{self.http_url}/metrics", timeout=5).text
        (value,) = re.findall(rf"^{re.escape(name)} (\S+)$", text, flags=re.MULTILINE)
        return float(value)

    def log_text(self) -> str:
        """Everything the process printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_records(self) -> list[dict[str, Any]]:
        """The JSON log lines printed so far (a line that is not JSON fails the test)."""
        records = []
        for line in self.log_text().splitlines():
            if line.strip():
                records.append(json.loads(line))
        return records

    def __enter__(self) -> RefereeProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
