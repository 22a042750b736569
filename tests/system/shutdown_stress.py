"""Many starts and stops of ``serve --workers 2`` with streams and requests in flight.

Each cycle starts the group, opens event streams (SSE and gRPC ``WatchGame``), waits for a
turn (``wait_seconds``) and keeps unary calls going on both transports, then sends SIGTERM to
the supervisor at a random moment (sometimes before every worker serves) and reads how the group
stopped: how long it took, the supervisor's exit status, the workers' exit codes, and every
line logged at ERROR or about a worker killed. A cycle that takes long has the stacks of the
processes still alive dumped (with ``py-spy`` when it is installed) before it is left to end.

``tests/system/test_shutdown.py`` runs a few cycles; by hand, for many::

    .venv/bin/python -m tests.system.shutdown_stress --cycles 100

(the shared Redis on 127.0.0.1:6379, as the system tests use it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx
from hanafuda.v1 import service_pb2, service_pb2_grpc

from .conftest import redis_env
from .processes import RefereeProcess
from .shared_redis import owned_prefix

__all__ = ["Cycle", "run_cycle"]

#: Seconds beyond the workers' shutdown grace after SIGTERM past which a cycle counts as slow
#: and its live processes' stacks are dumped (a stop takes well under a second).
SLOW = 2.0
#: Seconds after SIGTERM past which the test gives up on the group (the supervisor kills a
#: worker after the grace and 10 s more).
GIVE_UP = 30.0


@dataclass
class Cycle:
    """How one start and stop went."""

    index: int
    early: bool
    stop_seconds: float
    status: int | None
    exit_codes: list[int | None] | None
    errors: list[dict[str, Any]] = field(default_factory=list)
    killed: list[dict[str, Any]] = field(default_factory=list)
    stacks: str = ""

    @property
    def clean(self) -> bool:
        return (
            self.status == 0
            and self.exit_codes is not None
            and all(code == 0 for code in self.exit_codes)
            and not self.errors
            and not self.killed
        )


def _children(pid: int) -> list[int]:
    """The live descendants of ``pid`` (from /proc)."""
    found: list[int] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                stat = (entry / "stat").read_text()
                # "pid (comm) state ppid ...": comm may hold spaces, the state follows its ")".
                fields = stat.rsplit(")", 1)[1].split()
                if int(fields[1]) == parent and fields[0] != "Z":
                    found.append(int(entry.name))
                    pending.append(int(entry.name))
    return found


def _stacks(pids: list[int]) -> str:
    """Each process's Python stacks (py-spy), or its command line when py-spy is missing."""
    spy = shutil.which("py-spy") or str(Path(__import__("sys").executable).with_name("py-spy"))
    dumps = []
    for pid in pids:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        dump = ""
        if Path(spy).exists():
            dump = subprocess.run(
                [spy, "dump", "--locals", "--pid", str(pid)],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            ).stdout
        dumps.append(f"--- {pid}: {command}\n{dump}")
    return "\n".join(dumps)


async def _load(process: RefereeProcess, stop: asyncio.Event, streams: int) -> None:
    """``streams`` SSE and as many gRPC streams, two waits and two loops of calls, until
    ``stop`` or the process is gone."""
    async with httpx.AsyncClient(base_url=process.http_url, timeout=30) as client:
        created = await client.post(
            "/v1/games", json={"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bob"]}
        )
        created.raise_for_status()
        game = created.json()
        not_to_act = game["playerTokens"][1 - int(game["view"].get("turn", 0))]

        async def sse() -> None:
            # A connection of its own each, to spread them over the workers.
            async with (
                httpx.AsyncClient(base_url=process.http_url, timeout=30) as own,
                own.stream("GET", f"/v1/games/{game['game']}/events") as answer,
            ):
                async for _ in answer.aiter_lines():
                    pass

        async def watch() -> None:
            async with grpc.aio.insecure_channel(process.grpc_target) as channel:
                stub = service_pb2_grpc.RefereeServiceStub(channel)
                async for _ in stub.WatchGame(
                    service_pb2.WatchGameRequest(game=game["game"]), timeout=30
                ):
                    pass

        async def wait_for_turn() -> None:
            async with httpx.AsyncClient(base_url=process.http_url, timeout=40) as own:
                await own.get(
                    f"/v1/games/{game['game']}",
                    params={"waitSeconds": 30},
                    headers={"authorization": f"Bearer {not_to_act}"},
                )

        async def calls() -> None:
            async with grpc.aio.insecure_channel(process.grpc_target) as channel:
                stub = service_pb2_grpc.RefereeServiceStub(channel)
                while not stop.is_set():
                    await client.get(f"/v1/games/{game['game']}")
                    await stub.ListPresets(service_pb2.ListPresetsRequest(), timeout=10)

        tasks = [
            asyncio.create_task(work())
            for work in (*[sse, watch] * streams, wait_for_turn, wait_for_turn, calls, calls)
        ]
        await stop.wait()
        # Whatever the shutdown did to them (an end, a refusal, a cut) is for the server's
        # log to judge; here they only have to finish.
        await asyncio.wait(tasks, timeout=GIVE_UP)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _supervisor_lines(process: RefereeProcess, event: str) -> list[dict[str, Any]]:
    return [r for r in process.log_records() if r.get("event") == event and "worker" not in r]


async def _cycle(
    directory: Path, index: int, early: bool, delay: float, grace: float, streams: int
) -> Cycle:
    with owned_prefix() as prefix:
        process = RefereeProcess(
            directory,
            env={**redis_env(prefix), "HANAFUDA_SHUTDOWN_GRACE": str(grace)},
            flags=["--workers", "2"],
            name=f"cycle-{index}",
        )
        process.start()
        popen = process.process
        assert popen is not None
        stop = asyncio.Event()
        load: asyncio.Task[None] | None = None
        try:
            if not early:
                while not _supervisor_lines(process, "workers serving"):
                    await asyncio.sleep(0.02)
                load = asyncio.create_task(_load(process, stop, streams))
            await asyncio.sleep(delay)
            signalled = time.monotonic()
            popen.send_signal(signal.SIGTERM)
            stacks = ""
            while popen.poll() is None and time.monotonic() - signalled < GIVE_UP:
                if not stacks and time.monotonic() - signalled > grace + SLOW:
                    stacks = await asyncio.to_thread(_stacks, [popen.pid, *_children(popen.pid)])
                await asyncio.sleep(0.02)
            if popen.poll() is None:
                popen.kill()
            status = popen.wait()
            stop_seconds = time.monotonic() - signalled
        finally:
            stop.set()
            if load is not None:
                with contextlib.suppress(Exception):
                    await load
            process.process = None
        stopped = _supervisor_lines(process, "workers stopped")
        records = process.log_records()
        return Cycle(
            index=index,
            early=early,
            stop_seconds=stop_seconds,
            status=status,
            exit_codes=stopped[-1]["exit_codes"] if stopped else None,
            errors=[r for r in records if r.get("level") in ("error", "critical")],
            killed=[r for r in records if "kill" in str(r.get("event"))],
            stacks=stacks,
        )


def run_cycle(
    directory: Path, index: int, rng: random.Random, grace: float = 2.0, streams: int = 2
) -> Cycle:
    """One start and stop, the workers' shutdown grace ``grace`` seconds, ``streams`` streams
    of each transport open; one cycle in five sends SIGTERM before the workers all serve."""
    early = rng.random() < 0.2
    delay = rng.uniform(0.0, 0.3 if early else 0.5)
    return asyncio.run(_cycle(directory, index, early, delay, grace, streams))


def _run(cycles: int, seed: int, directory: Path, grace: float, streams: int) -> Iterator[Cycle]:
    rng = random.Random(seed)
    for index in range(cycles):
        yield run_cycle(directory, index, rng, grace, streams)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, help="a directory to keep the logs in")
    parser.add_argument("--grace", type=float, default=2.0, help="the workers' shutdown grace")
    parser.add_argument("--streams", type=int, default=2, help="streams of each transport")
    arguments = parser.parse_args()
    directory = arguments.keep or Path(tempfile.mkdtemp(prefix="shutdown-stress-"))
    outcomes: Counter[str] = Counter()
    slowest = 0.0
    for cycle in _run(
        arguments.cycles, arguments.seed, directory, arguments.grace, arguments.streams
    ):
        slowest = max(slowest, cycle.stop_seconds)
        outcome = "clean" if cycle.clean else "NOT CLEAN"
        outcomes[outcome] += 1
        print(
            f"cycle {cycle.index:3} {'early' if cycle.early else 'load '} "
            f"{cycle.stop_seconds:5.2f} s status {cycle.status} workers {cycle.exit_codes} "
            f"{outcome}",
            flush=True,
        )
        for line in (*cycle.errors, *cycle.killed):
            shown = {k: v for k, v in line.items() if k not in ("exception", "timestamp")}
            print(f"    {shown}", flush=True)
        if cycle.stacks:
            print(cycle.stacks, flush=True)
    print(f"{dict(outcomes)}; slowest stop {slowest:.2f} s; logs in {directory}")


if __name__ == "__main__":
    main()
