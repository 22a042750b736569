"""Commit cost of the Redis store, batched versus one EVALSHA per commit: a script, not a test.

For each way of sending commits (``StoreSettings.batch_commits`` off: one EVALSHA round trip per
commit; on: the commits of one loop iteration in one pipeline), runs:

* ``--lanes`` concurrent lanes (default 32), each committing moves in a game of its own, one
  commit at a time, for ``--duration`` seconds: commits per second, and this process's CPU time
  (``time.process_time``) per commit, which is the cost a service process pays;
* one lane alone (no concurrency): the median latency of a commit and its CPU time, to show a
  lone commit does not wait for company.

A commit looks like a Koi-Koi move's: a state of a few hundred bytes, two events, a request id,
an empty answer. Each run plays both ways in the same event loop (uvloop, as the service), in
alternating quarter-second slices, so both see the same background load on a shared machine, and
the figures are medians over ``--runs``. Each way uses its own key prefix on the server and
deletes its games afterwards. The figures include the load generator's own (small, identical)
work. With ``--cluster`` the same runs against a private three-master Redis Cluster started
here, where both ways are one EVALSHA per commit today (see
``hanafuda_referee.store.redis_clients``): the figure to beat if cluster batching comes back.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.store_commits [--runs 5] [--duration 3] [--lanes 32]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import uvloop
from tests.store.servers import ClusterProcesses

from hanafuda_referee.store import Committed, RedisStore, StoreSettings

STATE = bytes(range(256)) + b"k" * 64
EVENTS = [b"\x01\x02\x03\x04\x05\x06", b"\x07\x08\x09"]
MODES = {"one EVALSHA each": False, "batched": True}
#: Seconds one way runs before the other takes over: both see the same background load.
SLICE = 0.25


@dataclass(frozen=True)
class Figures:
    rate: float  # commits per second
    cpu_us: float  # process CPU per commit, microseconds
    latency_us: float  # median wall time of one commit, microseconds


@dataclass
class Tally:
    """What one way of sending commits did over its slices of one run."""

    commits: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)

    def figures(self) -> Figures:
        return Figures(
            self.commits / self.wall,
            self.cpu / self.commits * 1e6,
            statistics.median(self.latencies) * 1e6,
        )


class Player:
    """``lanes`` games on one store, each lane committing the next move of its game in turn."""

    def __init__(self, store: RedisStore, lanes: int) -> None:
        self.store = store
        self.versions = dict.fromkeys((f"g{lane}" for lane in range(lanes)), 0)

    async def create(self) -> None:
        for game in self.versions:
            await self.store.create(game, STATE, b"meta", [b"dealt"])

    async def play(self, seconds: float, tally: Tally) -> None:
        async def lane(game: str) -> int:
            done = 0
            while time.perf_counter() < deadline:
                version = self.versions[game]
                started = time.perf_counter()
                result = await self.store.commit(game, version, STATE, EVENTS, f"r{version}", b"")
                tally.latencies.append(time.perf_counter() - started)
                if result != Committed(version + 1):
                    raise RuntimeError(f"unexpected {result!r}")
                self.versions[game] = version + 1
                done += 1
            return done

        cpu, wall = time.process_time(), time.perf_counter()
        deadline = wall + seconds
        done = await asyncio.gather(*(lane(game) for game in self.versions))
        tally.cpu += time.process_time() - cpu
        tally.wall += time.perf_counter() - wall
        tally.commits += sum(done)

    async def delete(self) -> None:
        for game in self.versions:
            await self.store.delete(game)


async def measure(
    url: str, cluster: bool, lanes: int, duration: float, first: int
) -> dict[str, Figures]:
    """One run: both ways in the same loop, in alternating slices of :data:`SLICE` seconds
    (``first`` picks which way starts), ``duration`` seconds each."""
    players = {
        name: Player(
            RedisStore.connect(
                url,
                StoreSettings(key_prefix=f"bench-{uuid.uuid4().hex}:", batch_commits=batch),
                cluster=cluster,
            ),
            lanes,
        )
        for name, batch in MODES.items()
    }
    order = list(players)
    if first:
        order.reverse()
    tallies = {name: Tally() for name in players}
    try:
        for name in order:
            await players[name].create()
            await players[name].play(SLICE, Tally())  # warm-up: connect, cache the script
        for _ in range(max(1, round(duration / SLICE))):
            for name in order:
                await players[name].play(SLICE, tallies[name])
        return {name: tally.figures() for name, tally in tallies.items()}
    finally:
        for player in players.values():
            await player.delete()
            await player.store.close()


def run(args: argparse.Namespace, url: str, cluster: bool) -> None:
    loads = {"concurrent": args.lanes, "lone": 1}
    results: dict[tuple[str, str], list[Figures]] = {}
    for run_number in range(args.runs):
        for load, lanes in loads.items():
            figures = uvloop.run(measure(url, cluster, lanes, args.duration, run_number % 2))
            for name, measured in figures.items():
                results.setdefault((load, name), []).append(measured)
    target = "cluster" if cluster else url
    print(
        f"{target}; {args.duration:g} s per way and load, in alternating {SLICE:g} s slices;"
        f" medians of {args.runs} runs"
    )
    for load, lanes in loads.items():
        print(f"{load} ({lanes} lane{'s' if lanes > 1 else ''}):")
        for name in MODES:
            picked = results[(load, name)]
            rate = statistics.median(f.rate for f in picked)
            cpu = statistics.median(f.cpu_us for f in picked)
            latency = statistics.median(f.latency_us for f in picked)
            print(
                f"  {name:<17} {rate:8.0f} commits/s  {cpu:6.1f} us CPU/commit"
                f"  p50 latency {latency:7.1f} us"
            )


@contextlib.contextmanager
def private_cluster() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as directory:
        cluster = ClusterProcesses(Path(directory))
        cluster.start()
        try:
            yield cluster.url.replace("redis+cluster://", "redis://")
        finally:
            cluster.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--cluster", action="store_true", help="on a private Redis Cluster")
    parser.add_argument("--lanes", type=int, default=32)
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.cluster:
        with private_cluster() as url:
            run(args, url, cluster=True)
    else:
        run(args, args.redis_url, cluster=False)


if __name__ == "__main__":
    main()
