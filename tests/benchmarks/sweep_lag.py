"""How far behind the turn clocks' sweeper runs while abandoned clock games keep it busy: a
script, not a test.

Starts a private Redis (or uses ``--redis-url``) and one service process (its sweeper every
0.5 s, ``--sweep-budget`` seconds of work per tick, 0.2 as in production), creates ``--games``
Koi-Koi games with the worst clock options the API accepts (1-second decisions, 10 automatic
decisions in a row before a timeout resigns the seat, a greedy timeout bot), nobody ever moving,
and samples the service's ``hanafuda_deadline_sweep_lag_seconds`` for ``--seconds``: its median,
95th percentile and maximum, and how many of the games ended (each must, within 21 of its
deadlines). ``--runs N`` repeats it and prints the medians of the runs' figures; with
``--baseline PATH`` (another checkout with a ``.venv`` of its own) each run measures that code
too, side by side, and the ratios of the medians are printed. Run from the repository root::

    .venv/bin/python -m tests.benchmarks.sweep_lag [--games 200] [--seconds 30] \\
        [--sweep-budget 0.2] [--runs 3] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import NamedTuple

import grpc
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2, service_pb2_grpc
from tests.benchmarks.service import given_or_private_redis
from tests.system.processes import RefereeProcess

_LAG = "hanafuda_deadline_sweep_lag_seconds"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="abandoned clock games")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long to sample")
    parser.add_argument(
        "--sweep-budget", type=float, default=0.2, help="the service's --sweep-budget"
    )
    parser.add_argument("--redis-url", help="a Redis to use instead of a private one")
    parser.add_argument("--runs", type=int, default=1, help="runs (medians are printed)")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout, with a .venv, measured side by side"
    )
    return parser.parse_args()


async def _create(server: RefereeProcess, games: int) -> list[str]:
    worst = play_pb2.ClockOptions(
        move_seconds=1, max_auto_decisions=10, timeout_bot=play_pb2.BOT_LEVEL_GREEDY
    )
    async with grpc.aio.insecure_channel(server.grpc_target) as channel:
        stub: service_pb2_grpc.RefereeServiceAsyncStub = service_pb2_grpc.RefereeServiceStub(
            channel
        )
        created = []
        for seed in range(games):
            request = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], seed=seed, clock=worst
            )
            created.append((await stub.CreateGame(request)).game)
        return created


async def _ended(server: RefereeProcess, games: list[str]) -> int:
    async with grpc.aio.insecure_channel(server.grpc_target) as channel:
        stub: service_pb2_grpc.RefereeServiceAsyncStub = service_pb2_grpc.RefereeServiceStub(
            channel
        )
        over = 0
        for game in games:
            view = await stub.GetGame(service_pb2.GetGameRequest(game=game))
            over += view.view.status == game_pb2.GAME_STATUS_OVER
        return over


class _Run(NamedTuple):
    """One run's figures: the lag's median, 95th percentile and maximum, and the games ended."""

    median: float
    p95: float
    worst: float
    over: int


def _measure(
    args: argparse.Namespace, redis_url: str, workdir: Path, command: list[str] | None
) -> _Run:
    """One run of one code: a fresh service process and fresh games."""
    server = RefereeProcess(
        workdir,
        env={
            "REDIS_URL": redis_url,
            "HANAFUDA_KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}:",
            "HANAFUDA_CREATE_RATE": "0",
            "HANAFUDA_SWEEP_BUDGET": str(args.sweep_budget),
        },
        command=command,
    )
    server.start()
    try:
        started = time.monotonic()
        games = asyncio.run(_create(server, args.games))
        print(f"{args.games} abandoned clock games created in {time.monotonic() - started:.1f} s")
        lags = []
        stop = time.monotonic() + args.seconds
        while time.monotonic() < stop:
            lags.append(server.metric(_LAG))
            time.sleep(0.5)
        over = asyncio.run(_ended(server, games))
    finally:
        server.stop()
    lags.sort()
    run = _Run(
        statistics.median(lags), lags[min(len(lags) - 1, int(len(lags) * 0.95))], lags[-1], over
    )
    print(
        f"sweeper lag over {args.seconds:.0f} s ({len(lags)} samples): median "
        f"{run.median:.3f} s, p95 {run.p95:.3f} s, max {run.worst:.3f} s"
    )
    print(f"games ended: {over} of {args.games}")
    return run


def main() -> None:
    args = _arguments()
    codes: dict[str, list[str] | None] = {"this code": None}
    if args.baseline is not None:
        script = args.baseline / ".venv" / "bin" / "hanafuda-referee"
        if not script.exists():
            raise SystemExit(f"--baseline: no {script} (make its .venv first)")
        codes["baseline"] = [str(script.resolve())]
    runs: dict[str, list[_Run]] = {name: [] for name in codes}
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-sweep-")))
        redis_url = given_or_private_redis(args.redis_url, workdir, stack)
        for number in range(args.runs):
            for name, command in codes.items():
                print(f"-- run {number + 1} of {args.runs}: {name}")
                runs[name].append(_measure(args, redis_url, workdir, command))
    medians = {
        name: _Run(*(statistics.median(field) for field in zip(*done, strict=True)))
        for name, done in runs.items()
    }
    for name, run in medians.items():
        print(
            f"{name}, medians of {args.runs} runs: lag median {run.median:.3f} s, "
            f"p95 {run.p95:.3f} s, max {run.worst:.3f} s, games ended {run.over:g} of {args.games}"
        )
    if "baseline" in medians:
        old, new = medians["baseline"], medians["this code"]
        print(
            f"ratio baseline / this code: lag p95 {old.p95 / max(new.p95, 0.001):.1f}x, "
            f"lag max {old.worst / max(new.worst, 0.001):.1f}x"
        )
    print(
        "reproduce: .venv/bin/python -m tests.benchmarks.sweep_lag "
        f"--games {args.games} --seconds {args.seconds:g} --sweep-budget {args.sweep_budget:g} "
        f"--runs {args.runs}" + (f" --baseline {args.baseline}" if args.baseline else "")
    )


if __name__ == "__main__":
    main()
