"""Throwaway redis-server processes for the tests: single servers and a 3-master cluster (with a
replica per master when asked).

Each server runs in the foreground of a child process (``--daemonize no``) in its own temporary
directory, without persistence, on a free loopback port, so the tests never touch a server they
did not start (apart from the shared one on 6379, under a unique key prefix) and can stop and
restart one at will.
"""

from __future__ import annotations

import contextlib
import os
import random
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


#: Where :func:`free_port` draws from: below Linux's default ephemeral range (32768-60999), so
#: that the source port of some outgoing connection (the tests open thousands, to Redis and to the
#: servers) cannot take a port between the draw and the server's bind.
_PORT_RANGE = range(20000, 32768)
_draws = random.Random()


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now (and its cluster bus port + 10000).

    A draw stays a draw: a parallel test may take the port before the caller binds it, so the
    callers that start servers on a fresh draw retry with another on "address in use"
    (``ClusterProcesses._node``, ``RefereeProcess.start``).
    """
    while True:
        port = _draws.choice(_PORT_RANGE)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        if not port_answers(port + 10000):
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

    def kill(self) -> None:
        """SIGKILL the server, as a crashed machine would stop it (no goodbye to its peers or
        clients), and wait until the port is free."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        self.stop()

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
    """A Redis Cluster of ``size`` masters on free loopback ports, each with ``replicas``
    replicas (none by default), failing a silent node after ``node_timeout_ms``.

    Its servers are :attr:`servers` once started, masters first as ``redis-cli --cluster
    create`` assigns them; roles change with failovers (``tests/system/cluster.py`` follows
    them).
    """

    def __init__(
        self, directory: Path, size: int = 3, *, replicas: int = 0, node_timeout_ms: int = 2000
    ) -> None:
        self.directory = directory
        self.size = size
        self.replicas = replicas
        self.node_timeout_ms = node_timeout_ms
        self.servers: list[ServerProcess] = []

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.servers[0].port}"

    def start(self) -> None:
        if REDIS_CLI is None:
            raise RuntimeError("redis-cli is not installed")
        try:
            for _ in range(self.size * (1 + self.replicas)):
                self.servers.append(self._node())
            addresses = [f"127.0.0.1:{server.port}" for server in self.servers]
            options = ["--cluster-replicas", str(self.replicas), "--cluster-yes"]
            subprocess.run(
                [REDIS_CLI, "--cluster", "create", *addresses, *options],
                check=True,
                capture_output=True,
                timeout=60,
            )
            self.wait_ok(self.servers)
        except BaseException:
            self.stop()
            raise

    def _node(self, attempts: int = 5) -> ServerProcess:
        """A started node on a free port. A port free when chosen may be taken before the
        server binds it (or its bus port, + 10000), by another test or an outgoing connection:
        then another port is tried."""
        for attempt in range(1, attempts + 1):
            port = free_port()
            node_dir = self.directory / f"node-{port}"
            server = ServerProcess(
                node_dir,
                port,
                extra=[
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    str(node_dir / f"nodes-{port}.conf"),
                    "--cluster-node-timeout",
                    str(self.node_timeout_ms),
                    # A replica's first full sync starts at once, not after 5 s.
                    "--repl-diskless-sync-delay",
                    "0",
                ],
            )
            try:
                server.start()
            except RuntimeError:
                if attempt == attempts:
                    raise
                continue
            return server
        raise AssertionError("unreachable")

    def wait_ok(self, servers: Sequence[ServerProcess], timeout: float = 30.0) -> None:
        """Wait until each of ``servers`` says the cluster is ok with every slot assigned, knows
        every node, and, if it is a replica, has its link to its master up (synchronised)."""
        deadline = time.monotonic() + timeout
        pending = list(servers)
        while pending:
            server = pending[0]
            if _node_ready(server.port, len(self.servers), self.size * self.replicas):
                pending.pop(0)
            elif time.monotonic() > deadline:
                raise RuntimeError(f"cluster node {server.port} not ok after {timeout} s")
            else:
                time.sleep(0.05)

    def stop(self) -> None:
        for server in self.servers:
            with contextlib.suppress(Exception):
                server.stop()


def _redis_cli(port: int, *command: str) -> str:
    assert REDIS_CLI is not None
    return subprocess.run(
        [REDIS_CLI, "-p", str(port), *command],
        capture_output=True,
        text=True,
        timeout=5,
        check=False,
    ).stdout


def _node_ready(port: int, nodes: int, replicas: int) -> bool:
    """Whether the node on ``port`` sees the cluster ok, every slot assigned, ``nodes`` nodes of
    which ``replicas`` are replicas, none failed, and (a replica) its master's data synced."""
    info = _redis_cli(port, "cluster", "info")
    if not (
        "cluster_state:ok" in info
        and "cluster_slots_assigned:16384" in info
        and f"cluster_known_nodes:{nodes}" in info
    ):
        return False
    flags = [
        line.split()[2].split(",")
        for line in _redis_cli(port, "cluster", "nodes").splitlines()
        if line.strip()
    ]
    if sum("slave" in f for f in flags) != replicas or any(
        "fail" in f or "fail?" in f for f in flags
    ):
        return False
    (mine,) = [f for f in flags if "myself" in f]
    return "slave" not in mine or "master_link_status:up" in _redis_cli(port, "info", "replication")
