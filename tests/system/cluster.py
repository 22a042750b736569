"""A Redis Cluster with a replica per master, on loopback, whose masters can be failed over.

:class:`FailoverCluster` starts three masters with one replica each (``redis-server`` with
``--cluster-enabled yes``, no persistence, each in a temporary directory of its own, on free
ports), created by ``redis-cli --cluster create --cluster-replicas 1``, with a short
``cluster-node-timeout`` so that a dead master's replica takes over within about two seconds. It
can then move a master's slots to its replica in the two ways a cluster loses a master:

* :meth:`FailoverCluster.fail_over`: ``CLUSTER FAILOVER`` on the replica, the graceful way (an
  upgrade, a planned restart): the master stops taking writes, the replica catches up with it
  and takes over, and the old master becomes its replica;
* :meth:`FailoverCluster.kill`: SIGKILL of the master, the crash: the other masters see it
  silent for the node timeout, mark it failed and elect its replica.

Roles are always read from the servers (``CLUSTER NODES``), never assumed from the start.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import redis
from redis.crc import key_slot

from tests.store.servers import REDIS_CLI, REDIS_SERVER, ClusterProcesses, ServerProcess

__all__ = [
    "CALM_NODE_TIMEOUT_MS",
    "CLUSTER_TOOLS",
    "NODE_TIMEOUT_MS",
    "FailoverCluster",
    "Node",
    "replicated_cluster",
]

#: Whether this machine can start a cluster (redis-cli comes with Debian's redis-tools).
CLUSTER_TOOLS = REDIS_SERVER is not None and REDIS_CLI is not None
#: Milliseconds a node may be silent before the others count it failed: short, so a killed
#: master's replica takes over quickly (about this, plus an election of 0.5 to 1 s).
NODE_TIMEOUT_MS = 1000
#: The node timeout of a cluster whose masters are only failed over gracefully, which needs no
#: failure detection: long enough that a loaded machine, slow to answer the nodes' pings, never
#: makes them count a live node failed (and the cluster down, for a moment) on their own.
CALM_NODE_TIMEOUT_MS = 5000
#: Seconds a failover, or a restarted node's return, may take before the test fails.
SETTLE = 30.0
#: Seconds a manual failover may take before Redis gives it up (CLUSTER_MF_TIMEOUT).
_MANUAL_FAILOVER_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class Node:
    """One line of ``CLUSTER NODES`` as a node sees its cluster."""

    id: str
    port: int
    master: bool
    failed: bool
    #: The master's id for a replica, "" for a master.
    master_id: str
    #: The slot ranges a master serves, as (first, last) inclusive.
    slots: tuple[tuple[int, int], ...]

    def serves(self, slot: int) -> bool:
        return any(first <= slot <= last for first, last in self.slots)


def _parse_nodes(text: str) -> list[Node]:
    nodes = []
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.split()
        node_id, address, flags, master = fields[:4]
        port = int(address.split("@")[0].rsplit(":", 1)[1])
        flag_set = set(flags.split(","))
        slots = []
        for item in fields[8:]:
            if item.startswith("["):  # a slot being migrated: none here
                continue
            first, _, last = item.partition("-")
            slots.append((int(first), int(last or first)))
        nodes.append(
            Node(
                id=node_id,
                port=port,
                master="master" in flag_set,
                failed="fail" in flag_set,
                master_id="" if master == "-" else master,
                slots=tuple(slots),
            )
        )
    return nodes


class FailoverCluster:
    """Three masters with a replica each (see the module docstring)."""

    def __init__(self, directory: Path, node_timeout_ms: int = NODE_TIMEOUT_MS) -> None:
        self.processes = ClusterProcesses(directory, replicas=1, node_timeout_ms=node_timeout_ms)

    @property
    def url(self) -> str:
        """The store URL of the cluster, naming its first node."""
        return self.processes.url

    @property
    def servers(self) -> list[ServerProcess]:
        return self.processes.servers

    def start(self) -> None:
        self.processes.start()

    def stop(self) -> None:
        self.processes.stop()

    def server(self, port: int) -> ServerProcess:
        (found,) = [s for s in self.servers if s.port == port]
        return found

    def _live(self) -> list[ServerProcess]:
        return [s for s in self.servers if s.process is not None and s.process.poll() is None]

    def _command(self, port: int, *args: str | int) -> object:
        client = redis.Redis(port=port, socket_timeout=5, decode_responses=True)
        try:
            return client.execute_command(*args)  # type: ignore[no-untyped-call]
        finally:
            client.close()

    def nodes(self, port: int | None = None) -> list[Node]:
        """The cluster as the node on ``port`` (the first live node by default) sees it."""
        port = port if port is not None else self._live()[0].port
        return _parse_nodes(str(self._command(port, "CLUSTER", "NODES")))

    def masters(self) -> list[int]:
        """The ports of the masters now, in the order of the slots they serve (a shard keeps its
        place whichever of its two nodes is its master)."""
        masters = [n for n in self.nodes() if n.master and not n.failed and n.slots]
        return [n.port for n in sorted(masters, key=lambda n: n.slots[0])]

    def master_of(self, key: str) -> int:
        """The port of the master serving ``key``'s slot now."""
        slot = key_slot(key.encode())
        (master,) = [n for n in self.nodes() if n.master and not n.failed and n.serves(slot)]
        return master.port

    def replica_of(self, master_port: int) -> int:
        """The port of the replica of the master on ``master_port``."""
        nodes = self.nodes()
        (master,) = [n for n in nodes if n.port == master_port]
        replicas = [n for n in nodes if n.master_id == master.id]
        if len(replicas) != 1:
            raise RuntimeError(f"{master_port} has replicas {replicas} in {nodes}")
        return replicas[0].port

    def fail_over(self, master_port: int) -> int:
        """Hand the master's slots to its replica with ``CLUSTER FAILOVER`` (graceful: nothing
        acknowledged is lost); returns the replica's port once every node sees it as master.

        Redis 7.0 may fail a manual failover asked of a replica promoted a few seconds before
        (it counts the votes of its last election, wins with a stale epoch and steps down at
        once); the master then holds its writes until the failover's timeout, 5 s. Asked again
        after that, it succeeds: callers that fail over repeatedly should rather turn to
        another master each time."""
        replica = self.replica_of(master_port)
        for attempt in range(1, 4):
            self._command(replica, "CLUSTER", "FAILOVER")
            try:
                self.wait_master(replica, timeout=_MANUAL_FAILOVER_TIMEOUT + 1)
            except RuntimeError:
                if attempt == 3:
                    raise
                continue
            break
        self.wait_replica(master_port, replica)
        return replica

    def kill(self, master_port: int) -> int:
        """SIGKILL the master on ``master_port``; returns its replica's port (which the cluster
        promotes by itself, after the node timeout: see :meth:`wait_master`)."""
        replica = self.replica_of(master_port)
        self.server(master_port).kill()
        return replica

    def wait_master(self, port: int, timeout: float = SETTLE) -> None:
        """Wait until every live node sees the node on ``port`` as a master, with slots, and
        says the cluster is ok."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(redis.RedisError):
                if all(self._sees_master(s.port, port) for s in self._live()):
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"node {port} did not become master in {timeout} s")
            time.sleep(0.05)

    def wait_replica(self, port: int, master_port: int) -> None:
        """Wait until every live node sees the node on ``port`` as the replica of the one on
        ``master_port``, and its replication link is up (it has synchronised)."""
        deadline = time.monotonic() + SETTLE
        while True:
            with contextlib.suppress(redis.RedisError):
                if self._in_sync(port) and all(
                    self._sees_replica(s.port, port, master_port) for s in self._live()
                ):
                    return
            if time.monotonic() > deadline:
                raise RuntimeError(f"node {port} did not become {master_port}'s replica")
            time.sleep(0.05)

    def _in_sync(self, port: int) -> bool:
        replication = self._command(port, "INFO", "replication")
        return isinstance(replication, dict) and replication.get("master_link_status") == "up"

    def _sees_replica(self, viewer: int, port: int, master_port: int) -> bool:
        nodes = {n.port: n for n in self.nodes(viewer)}
        return nodes[port].master_id == nodes[master_port].id and not nodes[port].failed

    def _sees_master(self, viewer: int, port: int) -> bool:
        info = str(self._command(viewer, "CLUSTER", "INFO"))
        if "cluster_state:ok" not in info:
            return False
        return any(
            n.port == port and n.master and not n.failed and n.slots for n in self.nodes(viewer)
        )

    def restart(self, port: int, master_port: int) -> None:
        """Start the killed node on ``port`` again (its nodes file lets it rejoin) and wait
        until it is the replica of ``master_port`` (the replica promoted in its place), in sync,
        and seen so by every node."""
        self.server(port).start()
        self.wait_replica(port, master_port)


@contextlib.contextmanager
def replicated_cluster(
    directory: Path, node_timeout_ms: int = NODE_TIMEOUT_MS, attempts: int = 3
) -> Iterator[FailoverCluster]:
    """A started :class:`FailoverCluster`, stopped (every server, however left) afterwards.
    Its ports are free when chosen, but another test may take one before the server binds it
    (a bus port is its port + 10000): then it starts again on other ports."""
    for attempt in range(1, attempts + 1):
        cluster = FailoverCluster(directory / f"attempt-{attempt}", node_timeout_ms)
        try:
            cluster.start()
        except (RuntimeError, subprocess.SubprocessError):
            if attempt == attempts:
                raise
            continue
        try:
            yield cluster
        finally:
            cluster.stop()
        return
