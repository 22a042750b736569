"""The service's own cost of a move, without a transport or Redis: a script, not a test.

Records complete default Koi-Koi games played by random legal moves (memory store), then replays
their moves against new games through the referee as the transports call it:
``Referee.SubmitMoveReply`` (token check, rules, events, the store's commit in memory, the
canonical log line to a null sink) and the answer written in one form (``json`` for HTTP,
``protobuf`` for gRPC: the message, serialized). Prints microseconds per move, the median of
several runs, by the wall clock and by CPU time, next to a baseline measured in the same run
(``json.dumps`` of a small dict), with the command that reproduces it.

Each run replays games this process has never seen, as a server sees a new game: they are
recorded in a child process, one slice of ``--games`` per run and one more replayed first as a
warm-up. Replaying the games a process recorded, or replayed before, finds their answers'
parts in the writers' caches and prices a move 10 to 15% lower; ``--same-games`` measures
that case (every run replays the games the process itself recorded).

``--through http`` replays the same moves through the HTTP app instead (the Litestar app the
server runs, called as an ASGI app in process: no server, no socket), next to its no-op
(``GET /bench/noop``) measured the same way: the HTTP layer's own cost of a move (routing, the
request bound onto its message, the answer's headers) on top of the referee's.

What it leaves out, the server and its sockets, the Redis round trip and the event loop under
load, is what ``tests.benchmarks.service`` measures. Run from the repository root::

    .venv/bin/python -m tests.benchmarks.move_path [--games 100] [--runs 5] [--form json]
    .venv/bin/python -m tests.benchmarks.move_path --through http
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from google.protobuf import json_format
from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2, service_pb2
from tests.asgi import AsgiCaller
from tests.benchmarks import reference_requests as benchmark_endpoints

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http.app import create_app
from hanafuda_referee.observability.logs import configure_logging
from hanafuda_referee.store import MemoryStore
from hanafuda_referee.writers.forms import JSON

FORMS: dict[str, Callable[[Any], Any]] = {
    "json": lambda reply: reply.written(JSON),
    "protobuf": lambda reply: reply.message().SerializeToString(),
}
#: A recorded game: its seed, and each move with the seat that made it.
Recorded = tuple[int, list[tuple[int, moves_pb2.Move]]]


#: The games ``--kind`` names (here and in ``tests.benchmarks.service``): the kind and its
#: players.
KINDS: dict[str, tuple[rules_pb2.GameKind.ValueType, tuple[str, ...]]] = {
    "koikoi": (rules_pb2.GAME_KIND_KOI_KOI, ("Ann", "Bob")),
    "hachihachi": (rules_pb2.GAME_KIND_HACHI_HACHI, ("Ann", "Bob", "Cid")),
}


def _create(seed: int, kind_name: str) -> service_pb2.CreateGameRequest:
    kind, players = KINDS[kind_name]
    return service_pb2.CreateGameRequest(kind=kind, players=players, seed=seed)


async def record(
    referee: Referee, games: int, rng: random.Random, first_seed: int = 1, kind: str = "koikoi"
) -> list[Recorded]:
    """Games played to the end by random legal moves, each as its seed and moves."""
    recorded: list[Recorded] = []
    for seed in range(first_seed, first_seed + games):
        created = await referee.CreateGame(_create(seed, kind), Caller())
        tokens, view, moves = list(created.player_tokens), created.view, []
        while view.status != game_pb2.GAME_STATUS_OVER:
            seat = view.turn
            caller = Caller(token=tokens[seat])
            mover = await referee.GetGame(service_pb2.GetGameRequest(game=created.game), caller)
            move = rng.choice(list(mover.view.legal_moves))
            moves.append((seat, move))
            request = service_pb2.SubmitMoveRequest(game=created.game, move=move)
            view = (await referee.SubmitMove(request, caller)).view
        recorded.append((seed, moves))
    return recorded


def _log_to_nowhere() -> None:
    """The canonical log lines written as in production, to a stream that drops them (the
    logging chain keeps the stdout of the moment it is configured; prints still go out)."""
    out, sys.stdout = sys.stdout, open(os.devnull, "w")  # noqa: SIM115 - open until the end
    configure_logging("json", "INFO")
    sys.stdout = out


def _record_here(
    first_seed: int, games: int, rng_seed: int, kind: str
) -> list[tuple[int, list[bytes]]]:
    """:func:`record` in this process, on a referee of its own, from seed ``first_seed`` on;
    each move as its seat byte and serialized message (they cross to the parent process)."""
    _log_to_nowhere()
    referee = Referee(MemoryStore(), allow_testing=True)
    recorded = asyncio.run(record(referee, games, random.Random(rng_seed), first_seed, kind))
    return [
        (seed, [bytes([s]) + m.SerializeToString() for s, m in moves]) for seed, moves in recorded
    ]


def record_elsewhere(slices: int, games: int, rng_seed: int, kind: str) -> list[list[Recorded]]:
    """``slices`` lists of ``games`` recorded games each, all different, recorded in a child
    process: this one has never seen them, nor their answers."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as child:
        raw = child.submit(_record_here, 1, slices * games, rng_seed, kind).result()
    recorded: list[Recorded] = [
        (seed, [(m[0], moves_pb2.Move.FromString(m[1:])) for m in moves]) for seed, moves in raw
    ]
    return [recorded[i * games : (i + 1) * games] for i in range(slices)]


async def replay(
    referee: Referee, recorded: list[Recorded], form: str, kind: str
) -> tuple[float, float, int]:
    """Wall and CPU seconds spent submitting the recorded moves and writing their answers, and
    the number of moves."""
    written = FORMS[form]
    wall = cpu = 0.0
    count = 0
    for n, (seed, moves) in enumerate(recorded):
        created = await referee.CreateGame(_create(seed, kind), Caller())
        requests = [
            (
                service_pb2.SubmitMoveRequest(game=created.game, move=move, request_id=f"{n}-{i}"),
                Caller(token=created.player_tokens[seat], request_id=f"r{n}-{i}", transport=form),
            )
            for i, (seat, move) in enumerate(moves)
        ]
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        for request, caller in requests:
            written(await referee.SubmitMoveReply(request, caller))
        wall += time.perf_counter() - start_wall
        cpu += time.process_time() - start_cpu
        count += len(requests)
    return wall, cpu, count


async def replay_http(
    referee: Referee, app: Any, recorded: list[Recorded], kind: str
) -> tuple[float, float, int]:
    """:func:`replay` through the HTTP app: each move a ``POST /v1/games/{game}/moves``."""
    call = AsgiCaller(app)
    wall = cpu = 0.0
    count = 0
    for n, (seed, moves) in enumerate(recorded):
        created = await referee.CreateGame(_create(seed, kind), Caller())
        path = f"/v1/games/{created.game}/moves"
        requests = []
        for i, (seat, move) in enumerate(moves):
            body = json_format.MessageToJson(
                service_pb2.SubmitMoveRequest(move=move, request_id=f"{n}-{i}"), indent=None
            ).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"authorization", f"Bearer {created.player_tokens[seat]}".encode()),
                (b"x-request-id", f"r{n}-{i}".encode()),
            ]
            requests.append((headers, body))
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        for headers, body in requests:
            if await call("POST", path, headers, body) != 200:
                raise RuntimeError(f"a recorded move was refused over HTTP ({call.status})")
        wall += time.perf_counter() - start_wall
        cpu += time.process_time() - start_cpu
        count += len(requests)
    return wall, cpu, count


async def noop_http(app: Any, requests: int = 20_000) -> float:
    """CPU microseconds per ``GET /bench/noop`` through the HTTP app."""
    call = AsgiCaller(app)
    start = time.process_time()
    for _ in range(requests):
        if await call("GET", benchmark_endpoints.NOOP_PATH, []) != 204:
            raise RuntimeError(f"the no-op answered {call.status}")
    return (time.process_time() - start) / requests * 1e6


def baseline(rounds: int = 20_000) -> float:
    """Microseconds per ``json.dumps`` of a small dict: a machine-speed yardstick."""
    value = {"game": "x" * 22, "version": 12, "cards": ["CARD_PINE_CRANE"] * 8}
    start = time.process_time()
    for _ in range(rounds):
        json.dumps(value)
    return (time.process_time() - start) / rounds * 1e6


def _median(values: list[float]) -> float:
    return statistics.median(values)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--form", choices=sorted(FORMS), default="json")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--kind", choices=sorted(KINDS), default="koikoi", help="the games played")
    parser.add_argument(
        "--same-games",
        action="store_true",
        help="every run replays the games this process recorded (warm caches)",
    )
    parser.add_argument(
        "--through",
        choices=("referee", "http"),
        default="referee",
        help="call the referee as the transports do (default), or the HTTP app",
    )
    args = parser.parse_args(argv)
    if args.through == "http" and args.form != "json":
        parser.error("--through http answers in JSON (--form json)")

    _log_to_nowhere()

    async def measure() -> None:
        store = MemoryStore()
        referee = Referee(store, allow_testing=True)
        app = None
        if args.through == "http":
            app = create_app(referee)
            for handler in benchmark_endpoints.http_handlers(store):
                app.register(handler)
        if args.same_games:
            recorded = await record(referee, args.games, random.Random(args.seed), kind=args.kind)
            slices = [recorded] * (args.runs + 1)
        else:
            slices = record_elsewhere(args.runs + 1, args.games, args.seed, args.kind)
        walls, cpus, yardsticks, noops = [], [], [], []
        count = moves = 0
        for run, recorded in enumerate(slices):
            gc.collect()
            if app is None:
                wall, cpu, count = await replay(referee, recorded, args.form, args.kind)
            else:
                wall, cpu, count = await replay_http(referee, app, recorded, args.kind)
            if run == 0:  # the warm-up
                continue
            if app is not None:
                noops.append(await noop_http(app))
            moves += count
            walls.append(wall / count * 1e6)
            cpus.append(cpu / count * 1e6)
            yardsticks.append(baseline())
        print(f"machine: {sys.platform}, Python {sys.version.split()[0]}")
        what = (
            f"submit + {args.form} answer"
            if app is None
            else "POST /v1/games/{game}/moves through the HTTP app"
        )
        print(
            f"{moves} moves in {args.runs} run{'' if args.runs == 1 else 's'} "
            f"({'the same games each run' if args.same_games else 'new games each run'}); "
            f"us per move ({what}): "
            f"wall {_median(walls):.1f}, cpu {_median(cpus):.1f}; "
            f"baseline json.dumps {_median(yardsticks):.2f} us, "
            f"ratio move/baseline {_median(cpus) / _median(yardsticks):.1f}"
        )
        if noops:
            print(
                f"the HTTP no-op through the same app: cpu {_median(noops):.1f} us; "
                f"a move's own cost over it: {_median(cpus) - _median(noops):.1f} us"
            )
        print(f"reproduce: {_command(args)}")

    asyncio.run(measure())


def _command(args: argparse.Namespace) -> str:
    return (
        f"{sys.executable} -m tests.benchmarks.move_path --games {args.games} "
        f"--runs {args.runs} --form {args.form} --seed {args.seed} --through {args.through} "
        f"--kind {args.kind}" + (" --same-games" if args.same_games else "")
    )


if __name__ == "__main__":
    main()
