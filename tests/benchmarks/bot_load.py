"""Latency of plain requests while clients play against expert bots as fast as they can, and bot
decisions per second: a script, not a test.

Starts a private ``redis-server`` (``--redis-url`` for another) and, on it, one service per
configuration, each with a key prefix of its own and testing features on (seeds):

- ``idle``: this code, ``serve --bot-workers 1``, measured with no load;
- ``bot-workers N`` (``--bot-workers``, default 1 and 2): this code, whose bots decide off the
  request path in the embedded pool of N worker processes (at a lower CPU priority), under load;
- with ``--baseline PATH`` (a checkout of the code before the bot workers, with a ``.venv`` of
  its own): ``baseline idle`` and ``baseline``, the old code, whose bots decided in the serving
  process's threads, without and with the load.

For each configuration in turn (the order rotates from run to run), over HTTP:

- the **load**: ``--lanes`` lanes in a client process of their own, each playing default Koi-Koi
  games against an expert bot seat as fast as it can: create the game (with a seed), watch it
  (``GET /v1/games/{game}/events`` with the person's token) and submit a random legal move as
  soon as the person is on turn and no bot is thinking; a fresh game when one ends. It counts the
  bot's moves it saw (events whose actor is the bot seat and that are a decision: a card played,
  a target chosen, koi-koi called, a stop);
- the **probe**: a client process of its own that, at a steady ``--rate`` (requests per second),
  alternates a plain ``GET /v1/games/{game}`` of a game between two persons (the token of the
  seat on turn) and that seat's move in it (a fresh game, not measured, when one ends).

After ``--warmup`` seconds, ``--duration`` seconds are measured: the probe's latencies of the
requests sent within the window, the bot moves the load saw, and, for this code, the increase of
the service's ``hanafuda_bot_decisions_total`` (all levels). The script prints every
measurement, the medians over ``--runs``, the bot decisions per second with each worker count and
the ratios of the p99s (baseline / bot workers).

The probe, the load, Redis and every process of the services share the machine's cores: the
figures are what a client sees on this machine, load included.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bot_load [--runs 3] [--duration 10] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import re
import shlex
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx
import redis
from tests.benchmarks.service import given_or_private_redis
from tests.system.processes import RefereeProcess

#: The moves of a bot seat that are its decisions (its events that are not are their effects).
DECISIONS = ("cardPlayed", "targetChosen", "koikoiCalled", "stopped")

#: The person's seat in the load's games; the bot's is the other.
PERSON, BOT = 0, 1


@dataclass(frozen=True)
class Window:
    """When the measured window opens and closes (``time.time()`` seconds, shared by processes)."""

    start: float
    end: float


@dataclass(frozen=True)
class Config:
    """One configuration: its name, the service's process and whether it carries the load."""

    name: str
    server: RefereeProcess
    loaded: bool
    #: Whether the service counts ``hanafuda_bot_decisions_total`` (this code).
    counts_decisions: bool
    bot_workers: int | None


@dataclass
class Measurement:
    """What one window measured for one configuration."""

    get_ms: list[float]
    move_ms: list[float]
    errors: int
    #: Bot moves the load saw in the window; None without load.
    bot_moves: int | None
    #: The increase of the service's ``hanafuda_bot_decisions_total``; None where not served.
    decisions: float | None
    games: int
    duration: float

    @property
    def decision_rate(self) -> float | None:
        """The service's bot decisions per second in the window, where it counts them."""
        return None if self.decisions is None else self.decisions / self.duration

    def percentile(self, kind: str, q: float) -> float:
        values = sorted(self.get_ms if kind == "get" else self.move_ms)
        if not values:
            return float("nan")
        return values[min(len(values) - 1, int(q * len(values)))]


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _create_body(bots: Sequence[str], seed: int) -> dict[str, Any]:
    return {"kind": "GAME_KIND_KOI_KOI", "players": ["a", "b"], "bots": list(bots), "seed": seed}


# The load: lanes playing against the expert.


async def _lane(
    client: httpx.AsyncClient, number: int, seed: int, window: Window
) -> tuple[int, int]:
    """Plays games against the expert until the window closes; (bot moves in the window, games
    started)."""
    rng = random.Random(seed * 1000 + number)
    bot_moves = games = 0
    while time.time() < window.end:
        body = _create_body(["BOT_LEVEL_UNSPECIFIED", "BOT_LEVEL_EXPERT"], rng.randrange(2**31))
        created = (await client.post("/v1/games", json=body)).raise_for_status().json()
        games += 1
        game, token = created["game"], created["playerTokens"][PERSON]
        moved_at = -1
        async with client.stream(
            "GET", f"/v1/games/{game}/events", headers=_headers(token), timeout=30
        ) as stream:
            async for line in stream.aiter_lines():
                if time.time() >= window.end:
                    break
                if not line.startswith("data:"):
                    continue
                item = json.loads(line[5:])
                for event in item.get("events", ()):
                    decision = event.get("actor") == BOT and any(k in event for k in DECISIONS)
                    if decision and window.start <= time.time() < window.end:
                        bot_moves += 1
                view = item["view"]
                if view.get("status") == "GAME_STATUS_OVER":
                    break
                version = int(item.get("version", 0))
                legal = view.get("legalMoves")
                if (
                    view.get("turn", 0) == PERSON
                    and legal
                    and "botThinkingSeat" not in view
                    and version > moved_at
                ):
                    moved_at = version
                    reply = await client.post(
                        f"/v1/games/{game}/moves",
                        json={"move": rng.choice(legal)},
                        headers=_headers(token),
                    )
                    reply.raise_for_status()
    return bot_moves, games


async def _load(url: str, lanes: int, seed: int, window: Window) -> tuple[int, int]:
    limits = httpx.Limits(max_connections=4 * lanes, max_keepalive_connections=4 * lanes)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as client:
        done = await asyncio.gather(*(_lane(client, n, seed, window) for n in range(lanes)))
    return sum(m for m, _ in done), sum(g for _, g in done)


def _load_process(url: str, lanes: int, seed: int, pipe: Connection) -> None:
    pipe.send(("ready", None))
    window = pipe.recv()
    try:
        pipe.send(("ok", asyncio.run(_load(url, lanes, seed, window))))
    except Exception as error:  # reported to the parent, which fails the run
        pipe.send(("error", repr(error)))


# The probe: plain GETs and moves of a game between two persons at a steady pace.


def _probe(url: str, rate: float, seed: int, window: Window) -> tuple[list[float], ...]:
    """The probe's latencies (ms) of the GETs and the moves sent in the window, and the statuses
    of those that failed."""
    rng = random.Random(seed)
    get_ms: list[float] = []
    move_ms: list[float] = []
    errors: list[float] = []
    persons = ["BOT_LEVEL_UNSPECIFIED", "BOT_LEVEL_UNSPECIFIED"]

    def fresh(client: httpx.Client) -> tuple[str, list[str], int]:
        body = _create_body(persons, rng.randrange(2**31))
        created = client.post("/v1/games", json=body).raise_for_status().json()
        return created["game"], created["playerTokens"], created["view"].get("turn", 0)

    with httpx.Client(base_url=url, timeout=30) as client:
        game, tokens, turn = fresh(client)
        legal: list[Any] = []
        step = 0
        next_at = time.time()
        while True:
            next_at += 1 / rate
            pause = next_at - time.time()
            if pause > 0:
                time.sleep(pause)
            else:
                next_at = time.time()  # behind: go on from now, no burst to catch up
            sent = time.time()
            if sent >= window.end:
                break
            if step % 2 == 0:
                # The GET, with the token of the seat on turn: the move that follows uses it.
                start = time.perf_counter()
                answer = client.get(f"/v1/games/{game}", headers=_headers(tokens[turn]))
                elapsed = time.perf_counter() - start
                view = answer.json()["view"] if answer.status_code == 200 else {}
                legal = view.get("legalMoves", [])
                samples = get_ms
            else:
                if not legal:
                    game, tokens, turn = fresh(client)
                    step += 1
                    continue
                start = time.perf_counter()
                answer = client.post(
                    f"/v1/games/{game}/moves",
                    json={"move": rng.choice(legal)},
                    headers=_headers(tokens[turn]),
                )
                elapsed = time.perf_counter() - start
                samples = move_ms
                after = answer.json()["view"] if answer.status_code == 200 else {}
                turn = after.get("turn", turn)
                if after.get("status") == "GAME_STATUS_OVER":
                    game, tokens, turn = fresh(client)
            step += 1
            if window.start <= sent:
                if answer.status_code != 200:
                    errors.append(answer.status_code)
                samples.append(elapsed * 1000)
    return get_ms, move_ms, errors


def _probe_process(url: str, rate: float, seed: int, pipe: Connection) -> None:
    pipe.send(("ready", None))
    window = pipe.recv()
    try:
        pipe.send(("ok", _probe(url, rate, seed, window)))
    except Exception as error:  # reported to the parent, which fails the run
        pipe.send(("error", repr(error)))


# The services and the runs.


def _decisions(server: RefereeProcess) -> float:
    """The service's ``hanafuda_bot_decisions_total``, summed over its labels."""
    text = httpx.get(f"{server.http_url}/metrics", timeout=5).text
    found = re.findall(r"^hanafuda_bot_decisions_total(?:\{[^}]*\})? (\S+)$", text, re.MULTILINE)
    return sum(float(value) for value in found)


def _received(pipe: Connection, what: str, expected: str = "ok") -> Any:
    status, value = pipe.recv()
    if status != expected:
        raise RuntimeError(f"the {what} failed: {value}")
    return value


def _measure(config: Config, args: argparse.Namespace, seed: int) -> Measurement:
    context = multiprocessing.get_context("spawn")
    url = config.server.http_url
    pipes = {}
    processes = []
    work: list[tuple[str, Callable[..., None], tuple[Any, ...]]] = [
        ("probe", _probe_process, (url, args.rate, seed))
    ]
    if config.loaded:
        work.append(("load", _load_process, (url, args.lanes, seed)))
    for what, target, arguments in work:
        ours, theirs = context.Pipe()
        process = context.Process(target=target, args=(*arguments, theirs))
        process.start()
        pipes[what] = ours
        processes.append(process)
    # The window is set once both have started (their imports take a while on a busy machine).
    for pipe in pipes.values():
        _received(pipe, "start", expected="ready")
    start = time.time() + args.warmup
    window = Window(start, start + args.duration)
    for pipe in pipes.values():
        pipe.send(window)
    time.sleep(max(0.0, window.start - time.time()))
    before = _decisions(config.server) if config.counts_decisions else None
    time.sleep(max(0.0, window.end - time.time()))
    after = _decisions(config.server) if config.counts_decisions else None
    get_ms, move_ms, errors = _received(pipes["probe"], "probe")
    bot_moves = games = None
    if "load" in pipes:
        bot_moves, games = _received(pipes["load"], "load")
    for process in processes:
        process.join(timeout=60)
    return Measurement(
        get_ms=get_ms,
        move_ms=move_ms,
        errors=len(errors),
        bot_moves=bot_moves,
        decisions=None if before is None or after is None else after - before,
        games=games or 0,
        duration=args.duration,
    )


def _describe(name: str, m: Measurement) -> str:
    line = (
        f"  {name:<18} GET p50 {m.percentile('get', 0.5):6.2f} ms  p99 "
        f"{m.percentile('get', 0.99):7.2f} ms   move p50 {m.percentile('move', 0.5):6.2f} ms  "
        f"p99 {m.percentile('move', 0.99):7.2f} ms   ({len(m.get_ms)} GETs, {len(m.move_ms)} moves)"
    )
    if m.bot_moves is not None:
        line += f"   bot moves seen {m.bot_moves / m.duration:5.1f}/s"
    if m.decisions is not None and m.bot_moves is not None:
        line += f", decisions counted {m.decisions / m.duration:5.1f}/s"
    if m.errors:
        line += f"   ERRORS: {m.errors}"
    return line


def _median(values: Sequence[float | None]) -> float:
    known = [v for v in values if v is not None and v == v]
    return statistics.median(known) if known else float("nan")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="runs; medians are reported")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before")
    parser.add_argument("--lanes", type=int, default=6, help="lanes playing against the expert")
    parser.add_argument("--rate", type=float, default=50.0, help="the probe's requests/s")
    parser.add_argument(
        "--bot-workers", default="1,2", help="the embedded pool's sizes (comma-separated)"
    )
    parser.add_argument(
        "--baseline", type=Path, help="a checkout of the code before the bot workers, with .venv"
    )
    parser.add_argument("--redis-url", help="use this Redis instead of a private redis-server")
    parser.add_argument("--log-level", default="WARNING", help="the services' log level")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.pools = [int(n) for n in args.bot_workers.split(",")]
    if not args.pools or min(args.pools) < 1:
        parser.error("--bot-workers: positive counts, e.g. 1,2")
    if args.baseline is not None:
        script = args.baseline / ".venv" / "bin" / "hanafuda-referee"
        if not script.exists():
            parser.error(f"--baseline: no {script} (make its .venv first)")
        args.baseline_command = [str(script.resolve())]
    return args


def _start(
    workdir: Path,
    redis_url: str,
    name: str,
    flags: Sequence[str],
    command: Sequence[str] | None,
    log_level: str,
    stack: contextlib.ExitStack,
) -> RefereeProcess:
    server = RefereeProcess(
        workdir,
        env={
            "REDIS_URL": redis_url,
            "HANAFUDA_KEY_PREFIX": f"bench-bot-load-{uuid.uuid4().hex[:8]}:",
            "HANAFUDA_LOG_LEVEL": log_level,
        },
        flags=flags,
        command=command,
        name=name,
    )
    server.start()
    stack.callback(server.stop)
    return server


def main() -> None:
    args = _arguments()
    command = [".venv/bin/python", "-m", "tests.benchmarks.bot_load", *sys.argv[1:]]
    print(f"command: {shlex.join(command)}")
    print(f"parameters: { {k: str(v) for k, v in vars(args).items()} }")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"machine: {os.cpu_count()} cores ({cores} usable), {platform.platform()}, "
        f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at start"
    )
    print(
        f"load: {args.lanes} lanes against the expert over HTTP (watch, then move), "
        f"probe: {args.rate:g} requests/s alternating GET and move of a game between two "
        f"persons; {args.warmup:g} s warm-up then {args.duration:g} s measured per figure"
    )
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-bot-load-")))
        redis_url = given_or_private_redis(args.redis_url, workdir, stack)
        raw = redis.Redis.from_url(redis_url)
        stack.callback(raw.close)
        where = "a private redis-server" if args.redis_url is None else redis_url
        print(f"redis: {raw.info('server')['redis_version']}, {where}")

        def start(name: str, flags: Sequence[str], command: Sequence[str] | None = None) -> Any:
            return _start(workdir, redis_url, name, flags, command, args.log_level, stack)

        idle = start("idle", ["--bot-workers", "1"])
        configs = [Config("idle", idle, loaded=False, counts_decisions=True, bot_workers=None)]
        for pool in args.pools:
            server = start(f"pool-{pool}", ["--bot-workers", str(pool)])
            configs.append(Config(f"bot-workers {pool}", server, True, True, pool))
        if args.baseline is not None:
            old = start("baseline", [], args.baseline_command)
            old_idle = start("baseline-idle", [], args.baseline_command)
            configs.append(Config("baseline idle", old_idle, False, False, None))
            configs.append(Config("baseline", old, True, False, None))
        print(
            "services: "
            + ", ".join(
                f"{c.name} (pid {c.server.process.pid})" for c in configs if c.server.process
            )
            + "; one serving process each, testing features on"
        )

        results: dict[str, list[Measurement]] = {c.name: [] for c in configs}
        for run in range(args.runs):
            print(f"\nrun {run + 1} of {args.runs}", flush=True)
            shift = run % len(configs)
            for config in configs[shift:] + configs[:shift]:
                m = _measure(config, args, seed=args.seed * 100 + run)
                results[config.name].append(m)
                print(_describe(config.name, m), flush=True)

    print(f"\nmedians of {args.runs} run(s), over HTTP")
    p99: dict[str, tuple[float, float]] = {}
    for config in configs:
        measured = results[config.name]
        get50 = _median([m.percentile("get", 0.5) for m in measured])
        get99 = _median([m.percentile("get", 0.99) for m in measured])
        move50 = _median([m.percentile("move", 0.5) for m in measured])
        move99 = _median([m.percentile("move", 0.99) for m in measured])
        p99[config.name] = (get99, move99)
        line = (
            f"  {config.name:<18} GET p50 {get50:6.2f} ms  p99 {get99:7.2f} ms   "
            f"move p50 {move50:6.2f} ms  p99 {move99:7.2f} ms"
        )
        if config.loaded:
            seen = _median([m.bot_moves / m.duration for m in measured if m.bot_moves is not None])
            line += f"   bot moves seen {seen:5.1f}/s"
        if config.loaded and config.counts_decisions:
            counted = _median([m.decision_rate for m in measured])
            line += f", decisions counted {counted:5.1f}/s"
        print(line)
    for config in configs:
        if config.bot_workers is not None:
            counted = _median([m.decision_rate for m in results[config.name]])
            print(
                f"  bot decisions per second with {config.bot_workers} worker process(es): "
                f"{counted:.1f}"
            )
    if "baseline" in p99:
        old_get, old_move = p99["baseline"]
        for config in configs:
            if config.bot_workers is not None:
                new_get, new_move = p99[config.name]
                print(
                    f"  p99 baseline / {config.name}: GET {old_get / new_get:.1f}x, "
                    f"move {old_move / new_move:.1f}x"
                )
    errors = sum(m.errors for ms in results.values() for m in ms)
    if errors:
        print(f"  ERRORS: {errors} probe requests failed")


if __name__ == "__main__":
    main()
