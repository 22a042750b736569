"""Throwaway redis-server processes for the store tests: single servers and a 3-master cluster.

Each server runs in the foreground of a child process (``--daemonize no``) in its own temporary
directory, without persistence, on a free loopback port, so the tests never touch a server they
did not start (apart from the shared one on 6379, under a unique key prefix) and can stop and
restart one at will.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = [
    "REDIS_SERVER",
    "ClusterProcesses",
    "ServerProcess",
    "free_port",
    "port_answers",
]

#: Path of the redis-server binary, or None when it is not installed.
REDIS_SERVER = shutil.which("redis-server")
REDIS_CLI = shutil.which("redis-cli")


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now (and its cluster bus port + 10000)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port + 10000 < 65536 and not port_answers(port + 10000):
            return port


def port_answers(port: int, host: str = "127.0.0.1") -> bool:
    """Whether something accepts TCP connections on ``host:port``."""
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex((host, port)) == 0


def _redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class ServerProcess:
    """One redis-server on ``port`` that can be stopped and started again on the same port."""

    def __init__(self, directory: Path, port: int, extra: Sequence[str] = ()) -> None:
        if REDIS_SERVER is None:
            raise RuntimeError("redis-server is not installed")
        self.directory = directory
        self.port = port
        self.extra = list(extra)
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert REDIS_SERVER is not None
        command = [
            REDIS_SERVER,
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(self.directory),
            *self.extra,
        ]
        log = (self.directory / f"redis-{self.port}.log").open("ab")
        self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 10
        while not _redis_ping(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"redis-server on port {self.port} did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        """Terminate the server (only this child) and wait until the port is free."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        deadline = time.monotonic() + 5
        while port_answers(self.port) and time.monotonic() < deadline:
            time.sleep(0.02)


@contextlib.contextmanager
def private_server(directory: Path, extra: Sequence[str] = ()) -> Iterator[ServerProcess]:
    """A redis-server of one test's own on a free port, stopped afterwards, even when the test
    left it frozen (SIGSTOP) or already stopped it."""
    process = ServerProcess(directory, free_port(), extra)
    process.start()
    try:
        yield process
    finally:
        if process.process is not None and process.process.poll() is None:
            os.kill(process.process.pid, signal.SIGCONT)
        process.stop()


class ClusterProcesses:
    """A Redis Cluster of three masters without replicas, on free loopback ports."""

    def __init__(self, directory: Path, size: int = 3) -> None:
        self.directory = directory
        self.servers: list[ServerProcess] = []
        for _ in range(size):
            port = free_port()
            node_dir = directory / f"node-{port}"
            self.servers.append(
                ServerProcess(
                    node_dir,
                    port,
                    extra=[
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        str(node_dir / f"nodes-{port}.conf"),
                        "--cluster-node-timeout",
                        "2000",
                    ],
                )
            )

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.servers[0].port}"

    def start(self) -> None:
        if REDIS_CLI is None:
            raise RuntimeError("redis-cli is not installed")
        try:
            for server in self.servers:
                server.start()
            addresses = [f"127.0.0.1:{server.port}" for server in self.servers]
            options = ["--cluster-replicas", "0", "--cluster-yes"]
            subprocess.run(
                [REDIS_CLI, "--cluster", "create", *addresses, *options],
                check=True,
                capture_output=True,
                timeout=60,
            )
            self._wait_ok()
        except BaseException:
            self.stop()
            raise

    def _wait_ok(self) -> None:
        assert REDIS_CLI is not None
        deadline = time.monotonic() + 30
        pending = list(self.servers)
        while pending:
            server = pending[0]
            info = subprocess.run(
                [REDIS_CLI, "-p", str(server.port), "cluster", "info"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            ).stdout
            if "cluster_state:ok" in info and "cluster_slots_assigned:16384" in info:
                pending.pop(0)
            elif time.monotonic() > deadline:
                raise RuntimeError(f"cluster not ok after 30 s: {info}")
            else:
                time.sleep(0.1)

    def stop(self) -> None:
        for server in self.servers:
            with contextlib.suppress(Exception):
                server.stop()
