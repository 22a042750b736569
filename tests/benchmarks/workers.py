"""Moves per second with 1 and with 2 worker processes (``--workers``) over one Redis: a script,
not a test.

Starts a private ``redis-server`` (default settings; ``--redis-url`` for another) and one service
per worker count, each with the reference requests (``python -m
tests.benchmarks.reference_requests``: the load generator checks its connections with the no-op),
testing features on, a key prefix of its own and ``--workers N``. Then, run after run, it
measures each service in turn with the same load generator as ``tests.benchmarks.service``:
complete default Koi-Koi games, each driven by a client loop (create with a seed, then the seat on
turn submits a legal move until the game is over), only ``SubmitMove`` counted. The generator runs
in ``--processes`` client processes of their own (``--lanes`` concurrent lanes each; over HTTP a
keep-alive connection per lane, over gRPC a channel per lane), so that its CPU is measured apart
from the server's (every process of the service: the supervisor and its workers) and Redis's. It
prints every measurement, the medians per worker count, and the ratio of the median move rates,
2 workers / 1 worker.

The kernel gives each connection to one worker (``SO_REUSEPORT``), so the lanes spread over the
workers at random: with 32 lanes or more the two get near halves. On a machine with few cores the
clients and Redis take cores the workers would use; the CPU columns say what each took, and the
ratio is what the second worker bought on this machine, bounded by them.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.workers [--runs 3] [--duration 5] [--transport grpc]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import shlex
import statistics
import sys
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import redis
from tests.benchmarks import reference_requests
from tests.benchmarks.service import (
    Measurement,
    Target,
    WorkerSpec,
    describe,
    given_or_private_redis,
    measure,
)
from tests.system.processes import RefereeProcess


@dataclass(frozen=True)
class Service:
    """One service under test: its worker count and where to reach it."""

    workers: int
    target: Target


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="runs; medians are reported")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per figure")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before each window")
    parser.add_argument("--processes", type=int, default=2, help="client processes")
    parser.add_argument("--lanes", type=int, default=32, help="concurrent lanes per process")
    parser.add_argument("--transport", choices=["http", "grpc"], default="http")
    parser.add_argument(
        "--workers", default="1,2", help="the worker counts to compare (comma-separated)"
    )
    parser.add_argument("--redis-url", help="use this Redis instead of a private redis-server")
    parser.add_argument("--log-level", default="INFO", help="the services' log level")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.counts = [int(n) for n in args.workers.split(",")]
    if not args.counts or min(args.counts) < 1:
        parser.error("--workers: positive counts, e.g. 1,2")
    return args


def _start(
    workdir: Path, redis_url: str, workers: int, log_level: str, stack: contextlib.ExitStack
) -> RefereeProcess:
    server = RefereeProcess(
        workdir,
        env={
            "REDIS_URL": redis_url,
            "HANAFUDA_KEY_PREFIX": f"bench-workers-{uuid.uuid4().hex[:8]}:",
            "HANAFUDA_LOG_LEVEL": log_level,
        },
        flags=["--workers", str(workers)],
        command=reference_requests.COMMAND,
        name=f"workers-{workers}",
    )
    server.start()
    stack.callback(server.stop)
    return server


def _median(values: Sequence[float | None]) -> float:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else float("nan")


def main() -> None:
    args = _arguments()
    command = [".venv/bin/python", "-m", "tests.benchmarks.workers", *sys.argv[1:]]
    print(f"command: {shlex.join(command)}")
    print(f"parameters: {vars(args)}")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"machine: {os.cpu_count()} cores ({cores} usable), {platform.platform()}, "
        f"Python {platform.python_version()}"
    )
    print(
        f"generator: {args.processes} client process(es) x {args.lanes} lanes over "
        f"{args.transport}, closed loop, {args.warmup:g} s warm-up then {args.duration:g} s "
        "measured per figure"
    )
    base = WorkerSpec(
        transport=args.transport,
        workload="moves",
        open_loop=False,
        http=("", 0),
        grpc_target="",
        lanes=args.lanes,
        warmup=args.warmup,
        duration=args.duration,
        seed=args.seed,
        channel_per_lane=True,
    )
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-workers-")))
        redis_url = given_or_private_redis(args.redis_url, workdir, stack)
        raw = redis.Redis.from_url(redis_url)
        stack.callback(raw.close)
        where = "a private redis-server" if args.redis_url is None else redis_url
        print(f"redis: {raw.info('server')['redis_version']}, {where}")
        services = []
        for count in args.counts:
            process = _start(workdir, redis_url, count, args.log_level, stack)
            assert process.process is not None
            target = Target(
                ("127.0.0.1", process.http_port), process.grpc_target, process.process.pid, raw
            )
            services.append(Service(count, target))
        print(
            "services: "
            + ", ".join(f"--workers {s.workers} (pid {s.target.server_pid})" for s in services)
            + "; testing features and reference requests on, JSON log lines to files"
        )

        results: dict[int, list[Measurement]] = {s.workers: [] for s in services}
        for run in range(args.runs):
            print(f"\nrun {run + 1} of {args.runs}")
            for service in services:
                # Games of a seed of the run's and the service's own: none is played twice.
                spec = replace(base, seed=args.seed * 100 + run * 10 + service.workers)
                m = measure(service.target, spec, args.processes)
                results[service.workers].append(m)
                print(describe(args.transport, f"{service.workers} worker(s)", m), flush=True)

    print(f"\nmedians of {args.runs} run(s), {args.transport}, moves of complete Koi-Koi games")
    rates: dict[int, float] = {}
    for count, measured in results.items():
        rate = rates[count] = _median([m.rate for m in measured])
        server = _median([m.server_cpu for m in measured])
        p50, p99 = _median([m.p50_ms for m in measured]), _median([m.p99_ms for m in measured])
        redis_cpu = _median([m.redis_cpu for m in measured])
        clients = _median([m.client_cpu for m in measured])
        print(
            f"  {count} worker(s): {rate:7.0f} moves/s   p50 {p50:.2f} ms   p99 {p99:.2f} ms   "
            f"cpu: server {server * 100:.0f}%  redis {redis_cpu * 100:.0f}%  "
            f"clients {clients * 100:.0f}%   server cpu per move {server / rate * 1e6:.0f} us"
        )
    if 1 in rates and 2 in rates:
        print(f"  ratio 2 workers / 1 worker: {rates[2] / rates[1]:.2f}")


if __name__ == "__main__":
    main()
