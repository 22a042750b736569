"""Moves per second over a Redis Cluster, and the outage of a failover: a script, not a test.

Starts a Redis Cluster of three masters with a replica each on loopback ports
(``tests/system/cluster.py``: node timeout 1 s unless ``--node-timeout`` says otherwise, no
persistence) and, for comparison in the same run, one plain ``redis-server`` (default settings,
private); over each, two service processes sharing one key prefix (testing features and the
reference requests on, as in ``tests.benchmarks.service``). Then:

1. **Moves per second** of complete default Koi-Koi games, with the service benchmark's load
   generator (``--processes`` client processes of ``--lanes`` lanes, each lane a player of
   whole games, every move with a request id; see ``tests.benchmarks.service``), client process
   ``i`` against service process ``i % 2`` (a lane keeps its process, as a keep-alive connection
   through a load balancer does). The plain Redis and the cluster alternate within each run
   (which goes first alternates too), so both see the same background load; ``--runs N``
   reports medians. The CPU columns are the two service processes together, every Redis
   server together (the replicas included), and the clients; the medians add each one's CPU
   time per move. On a 2-core machine all of them
   share the cores: the figures compare the stores, they are no capacity.
2. **The outage of a failover**, ``--failovers`` times each way: gracefully (``CLUSTER
   FAILOVER`` on the replica of a master) and by SIGKILL of a master (its replica is elected
   after the node timeout; the killed server is then started again and rejoins as the new
   master's replica, so each failover starts from three masters with a replica each), each
   time of the next shard (Redis 7.0 may stall a second manual failover of one shard a few
   seconds after the first). During each, ``--games`` games are played, more if need be so that
   two at least live on the failed master, paced (30 ms between moves), through HTTP and gRPC
   of both processes in turn, each request retried unchanged after ``UNAVAILABLE`` (the
   failover system test's clients, ``tests/system/failover.py``), on the same cluster as the
   moves per second. The outage of one failover runs from the first refused request to the
   last game's first success after its refusals (0 when nothing was refused). It is printed
   per failover and as a median, with the slowest answered request and the time the cluster
   took to settle as its nodes tell it.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.cluster [--runs 3] [--duration 5] [--failovers 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import shlex
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import redis
from hanafuda.v1 import service_pb2
from tests.benchmarks import reference_requests
from tests.benchmarks.service import (
    Measurement,
    Target,
    WorkerSpec,
    describe,
    given_or_private_redis,
    measure_spread,
)
from tests.service.conftest import seeded_request
from tests.system.clients import Client, connect
from tests.system.cluster import (
    CLUSTER_TOOLS,
    NODE_TIMEOUT_MS,
    FailoverCluster,
    replicated_cluster,
)
from tests.system.failover import Played, Table, creating, outage_of, play_game, wait_moves
from tests.system.processes import RefereeProcess

from hanafuda_referee.store.keys import KeySpace

#: Rounds of the outage probe's games: far more moves than a failover lasts at its pace.
PROBE_ROUNDS = 12
#: Seconds the probe plays before each failover, and moves each game must make after it.
PROBE_BEFORE = 0.5
PROBE_AFTER = 3


@dataclass(frozen=True)
class Deployment:
    """Two service processes over one store."""

    name: str
    processes: list[RefereeProcess]
    targets: list[Target]
    nodes: list[redis.Redis]
    prefix: str


def start_pair(
    name: str,
    url: str,
    nodes: list[redis.Redis],
    workdir: Path,
    log_level: str,
    stack: contextlib.ExitStack,
) -> Deployment:
    """Two service processes on the store at ``url``, stopped when ``stack`` closes."""
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    processes = []
    targets = []
    for n in range(2):
        process = RefereeProcess(
            workdir / name,
            env={"REDIS_URL": url, "HANAFUDA_KEY_PREFIX": prefix, "HANAFUDA_LOG_LEVEL": log_level},
            command=reference_requests.COMMAND,
            name=f"referee-{n}",
        )
        process.start()
        stack.callback(process.stop)
        processes.append(process)
        pid = process.process.pid if process.process else None
        targets.append(Target(("127.0.0.1", process.http_port), process.grpc_target, pid, None))
    return Deployment(name, processes, targets, nodes, prefix)


# --- moves per second ------------------------------------------------------------------------


def measure_moves(
    deployments: Sequence[Deployment], spec: WorkerSpec, processes: int, runs: int
) -> dict[str, list[Measurement]]:
    """Each deployment's moves, ``runs`` times, alternating the deployments."""
    figures: dict[str, list[Measurement]] = {d.name: [] for d in deployments}
    for run in range(runs):
        print(f"\nrun {run + 1} of {runs}")
        order = list(deployments) if run % 2 == 0 else list(reversed(deployments))
        for deployment in order:
            m = measure_spread(deployment.targets, spec, processes, deployment.nodes)
            figures[deployment.name].append(m)
            print(describe(spec.transport, deployment.name, m), flush=True)
    return figures


def _micros(figures: Sequence[Measurement], cpu: str) -> float:
    """The median CPU microseconds per move of ``cpu`` (a Measurement's field)."""
    per_move: list[float] = [getattr(m, cpu) / m.rate * 1e6 for m in figures if m.rate]
    return statistics.median(per_move)


# --- the outage of a failover ----------------------------------------------------------------


@dataclass(frozen=True)
class Failover:
    """What one failover cost."""

    outage: float
    refused_games: int
    games: int
    #: Games on the failed master, and games on the others that were refused all the same.
    on_master: int
    refused_elsewhere: int
    refusals: int
    slowest: float
    settled: float


async def one_failover(
    clients: Sequence[Client],
    cluster: FailoverCluster,
    prefix: str,
    games: int,
    seed: int,
    shard: int,
    fail: Callable[[int], int],
) -> tuple[Failover, int, int]:
    """Fail over the master of ``shard`` (0 to 2, by slots) while ``games`` games at least are
    played, two of them on that master at least; what it cost, the failed master's port and its
    promoted replica's."""
    table = Table(clients)
    keys = KeySpace(prefix)
    master = cluster.masters()[shard]
    played: list[Played] = []
    on_master: set[int] = set()
    while len(played) < games or len(on_master) < 2:
        game = Played(len(played), seeded_request(seed=seed + len(played), rounds=PROBE_ROUNDS))
        created: service_pb2.CreateGameResponse = (
            await table.send(game.index, "CreateGame", creating(game.request))
        )[0]
        game.game, game.tokens = created.game, list(created.player_tokens)
        played.append(game)
        if cluster.master_of(keys.game(game.game).game) == master:
            on_master.add(game.index)
    paced = asyncio.Event()  # never set: the games stay paced
    rng = random.Random(seed)
    tasks = [
        asyncio.create_task(play_game(table, g, paced, random.Random(rng.random()))) for g in played
    ]
    try:
        await asyncio.sleep(PROBE_BEFORE)
        since = time.monotonic()
        promoted = await asyncio.to_thread(fail, master)
        settled = time.monotonic() - since
        # Every game moves again once the cluster has settled, then the probe stops.
        await wait_moves(played, [len(g.accepted) for g in played], PROBE_AFTER, tasks)
    finally:
        for task in tasks:
            task.cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, Exception)]
    if failures:
        raise failures[0]
    outage = outage_of(table.attempts, since)
    return (
        Failover(
            outage=outage.seconds,
            refused_games=len(outage.per_game),
            games=len(played),
            on_master=len(on_master),
            refused_elsewhere=len(set(outage.per_game) - on_master),
            refusals=outage.failures,
            slowest=outage.slowest_success,
            settled=settled,
        ),
        master,
        promoted,
    )


async def measure_failovers(
    cluster: FailoverCluster, deployment: Deployment, count: int, games: int
) -> dict[str, list[Failover]]:
    """``count`` graceful failovers, then ``count`` kills (each killed server restarted)."""
    found: dict[str, list[Failover]] = {"graceful": [], "killed": []}

    def kill(master: int) -> int:
        promoted = cluster.kill(master)
        cluster.wait_master(promoted)
        return promoted

    async with connect(*deployment.processes) as clients:
        for way, fail in (("graceful", cluster.fail_over), ("killed", kill)):
            for n in range(count):
                # Another shard each time: see FailoverCluster.fail_over.
                failover, master, promoted = await one_failover(
                    clients, cluster, deployment.prefix, games, 9000 + 100 * n, n % 3, fail
                )
                found[way].append(failover)
                print(
                    f"  {way:8} #{n + 1}: outage {failover.outage:5.2f} s "
                    f"({failover.refused_games} of {failover.games} games refused, "
                    f"{failover.refused_elsewhere} of them on other masters than the "
                    f"{failover.on_master} on the failed one; "
                    f"{failover.refusals} UNAVAILABLE answers), slowest answered request "
                    f"{failover.slowest:.2f} s, cluster settled in {failover.settled:.2f} s",
                    flush=True,
                )
                if way == "killed":
                    await asyncio.to_thread(cluster.restart, master, promoted)
    return found


# --- main ------------------------------------------------------------------------------------


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--runs", type=int, default=3, help="repeat and report medians (0: no moves per second)"
    )
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per figure")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before each window")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--lanes", type=int, default=32, help="concurrent lanes per process")
    parser.add_argument("--transport", choices=["http", "grpc"], default="http")
    parser.add_argument("--failovers", type=int, default=5, help="failovers of each way (0: none)")
    parser.add_argument("--games", type=int, default=6, help="games played during a failover")
    parser.add_argument(
        "--node-timeout",
        type=int,
        default=NODE_TIMEOUT_MS,
        help="the cluster's cluster-node-timeout, in milliseconds",
    )
    parser.add_argument(
        "--full-coverage",
        choices=["yes", "no"],
        default="yes",
        help="the cluster's cluster-require-full-coverage (Redis's default: yes)",
    )
    parser.add_argument("--log-level", default="INFO", help="the service processes' log level")
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    if not CLUSTER_TOOLS:
        sys.exit("redis-server and redis-cli are needed (Debian: redis-server, redis-tools)")
    command = [".venv/bin/python", "-m", "tests.benchmarks.cluster", *sys.argv[1:]]
    print(f"command: {shlex.join(command)}")
    print(f"parameters: {vars(args)}")
    print(
        f"machine: {os.cpu_count()} cores, {platform.platform()}, "
        f"Python {platform.python_version()}"
    )
    spec = WorkerSpec(
        transport=args.transport,
        workload="moves",
        open_loop=False,
        http=("", 0),
        grpc_target="",
        lanes=args.lanes,
        warmup=args.warmup,
        duration=args.duration,
        seed=args.seed,
    )
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-cluster-")))
        single_url = given_or_private_redis(None, workdir, stack)
        single_node = redis.Redis.from_url(single_url)
        stack.callback(single_node.close)
        cluster = stack.enter_context(replicated_cluster(workdir / "cluster", args.node_timeout))
        cluster_nodes = [redis.Redis(port=s.port) for s in cluster.servers]
        for node in cluster_nodes:
            stack.callback(node.close)
            node.config_set("cluster-require-full-coverage", args.full_coverage)
        version = single_node.info("server")["redis_version"]
        print(
            f"stores: one redis-server {version} (default settings), and a Redis Cluster of 3 "
            f"masters with a replica each (node timeout {args.node_timeout} ms, no persistence, "
            f"cluster-require-full-coverage {args.full_coverage}), all on this machine; over "
            f"each, two service processes (log level {args.log_level})"
        )
        print(
            f"generator: {args.processes} process(es) x {args.lanes} lanes over "
            f"{args.transport}, closed loop, {args.warmup:g} s warm-up then {args.duration:g} s "
            f"measured per figure"
        )
        single = start_pair("one Redis", single_url, [single_node], workdir, args.log_level, stack)
        clustered = start_pair(
            "cluster", cluster.url, cluster_nodes, workdir, args.log_level, stack
        )
        if args.runs:
            figures = measure_moves([single, clustered], spec, args.processes, args.runs)
            print(f"\nmedians over {args.runs} run(s), moves per second")
            rates = {name: statistics.median(m.rate for m in ms) for name, ms in figures.items()}
            for name, ms in figures.items():
                p50 = statistics.median(m.p50_ms for m in ms)
                p99 = statistics.median(m.p99_ms for m in ms)
                print(
                    f"  {name:10} {rates[name]:7.0f}/s  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  "
                    f"CPU per move: service processes {_micros(ms, 'server_cpu'):.0f} us, "
                    f"Redis {_micros(ms, 'redis_cpu'):.0f} us"
                )
            print(f"  cluster / one Redis: {rates['cluster'] / rates['one Redis']:.2f}")

        if args.failovers:
            print(
                f"\nfailovers, of each shard in turn ({args.games} games or more, two on the "
                f"failed master at least, played through both processes, HTTP and gRPC in turn, "
                f"each request retried after UNAVAILABLE)"
            )
            found = asyncio.run(measure_failovers(cluster, clustered, args.failovers, args.games))
            for way, failovers in found.items():
                outages = [f.outage for f in failovers]
                print(
                    f"  {way:8} outage median {statistics.median(outages):.2f} s "
                    f"(min {min(outages):.2f}, max {max(outages):.2f}); slowest answered "
                    f"request median {statistics.median(f.slowest for f in failovers):.2f} s; "
                    f"cluster settled median "
                    f"{statistics.median(f.settled for f in failovers):.2f} s"
                )


if __name__ == "__main__":
    main()
