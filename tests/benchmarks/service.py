"""Service throughput and latency over HTTP and gRPC against Redis: a script, not a test.

Starts a private ``redis-server`` (default settings) and one service process on it with testing
features and the reference requests on (``python -m tests.benchmarks.reference_requests serve``;
or takes an existing server's addresses),
then, for each transport and with the same load generator, measures requests per second and
p50/p99 latency of:

1. the no-op (``GET /bench/noop``, ``hanafuda.bench.Bench/Noop``): the cheapest request;
2. the one-write request (``POST /bench/write``, ``Bench/Write``): one plain SET through the
   store's own Redis client;
3. moves: complete default Koi-Koi games (``--kind hachihachi``: Hachi-Hachi games of three),
   many at once, each driven by a client loop (create with a seed, then the seat on turn submits
   a legal move, with a request id, until the game is over).
   Only ``SubmitMove`` requests count. A client does not read the game before each move: the
   mover's answer carries its next legal moves when it is still on turn, and the field; the other
   seat plays from the hand its own last answer showed. It reads (``GetGame``) only when a seat's
   hand is unknown (its first turn of a round); those reads, the creations and any refusal are
   counted and shown per move;

and prints the ratios move/one-write and move/no-op, then runs moves open-loop at half the
saturating move rate and reports p50/p99 there (latency from each move's scheduled start, so a
queue in the generator counts too). ``--runs N`` repeats everything and reports medians, and, for
a server it started, the server's CPU time per request of each workload: the move's own work
(a move less the no-op) next to the one write's (the write less the no-op), the two costs that
move/one-write compares once the cost of serving any request is taken out.

It also measures Redis memory per in-progress game (of ``--kind``) first, on the fresh server: 2,000
games played for ten moves each (about half a round, every move with a request id), the MEMORY
USAGE of each game's keys summed, and the growth of ``used_memory``; then deletes those keys.

Load generator: ``--processes`` client processes (default 2, one per core of the reference
machine), each with ``--lanes`` concurrent lanes in one asyncio loop. HTTP: a minimal HTTP/1.1
keep-alive client on asyncio streams, one connection per lane. gRPC: the ``grpc.aio`` stub, one
channel per process, each lane one call at a time. Its own ceiling is measured too, with the
no-op workload against bare stub servers in a separate process (a raw asyncio HTTP responder, a
``grpc.aio`` server with only the no-op), and the CPU used by the server, Redis and the clients is
shown for every measurement: a line whose clients use their cores fully is bounded by the
generator, not the service. On a 2-core machine the server, Redis and the clients share the cores;
``--pin`` gives the server a core of its own (every thread of it, and the ceiling's stub servers)
and puts Redis (a private one) and the load generator on the others, so that neither the clients
nor Redis take the server's core away in the middle of a request: with the cores shared, those
moments make most of the p99 at half load.

Run from the repository root::

    .venv/bin/python -m tests.benchmarks.service [--runs 3] [--duration 5] [--transport grpc]

``--redis-url`` uses an existing Redis instead of a private one; ``--http-url`` with
``--grpc-target`` (and ``--redis-url`` with ``--key-prefix`` for the memory figure) benchmarks an
already running server, started as above (``--allow-testing-features --create-rate 0``: the
benchmark creates games far faster than one client may).
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
import shlex
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

import grpc
import redis
from hanafuda.v1 import cards_pb2, game_pb2, moves_pb2, service_pb2, service_pb2_grpc
from redis.asyncio import Redis as AsyncRedis
from tests.benchmarks import reference_requests
from tests.benchmarks.move_path import KINDS
from tests.benchmarks.reference_requests import (
    NOOP_METHOD,
    NOOP_PATH,
    WRITE_METHOD,
    WRITE_PATH,
)
from tests.store.servers import REDIS_SERVER, ServerProcess, free_port
from tests.system.processes import RefereeProcess

from hanafuda_referee.cards import MONTH_OF
from hanafuda_referee.store.keys import KeySpace

#: A move as (kind, card, target) numbers.
Move = tuple[int, int, int]

PLAY = moves_pb2.MOVE_KIND_PLAY
CARD_NUMBER: dict[str, int] = {v.name: v.number for v in cards_pb2.Card.DESCRIPTOR.values}
KIND_NUMBER: dict[str, int] = {v.name: v.number for v in moves_pb2.MoveKind.DESCRIPTOR.values}

WORKLOADS = ("noop", "write", "moves")
#: The games ``--kind`` plays, as the figures name them.
_GAME_NAMES = {"koikoi": "Koi-Koi", "hachihachi": "Hachi-Hachi"}
#: Moves each game of the memory measurement is played for (about half a round).
MEMORY_MOVES = 10


# --- what a client needs of a game view ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seen:
    """The parts of a ``GameView`` a playing client uses."""

    over: bool
    round: int
    turn: int | None
    viewer: int | None
    hand_play: bool
    hand: tuple[int, ...]
    field: tuple[int, ...]
    legal: tuple[Move, ...]


def seen_of_proto(view: game_pb2.GameView) -> Seen:
    return Seen(
        over=view.status == game_pb2.GAME_STATUS_OVER,
        round=view.round,
        turn=view.turn if view.HasField("turn") else None,
        viewer=view.viewer_seat if view.HasField("viewer_seat") else None,
        hand_play=view.waiting.kind == game_pb2.WAITING_FOR_HAND_PLAY,
        hand=tuple(view.hand),
        field=tuple(view.field),
        legal=tuple((m.kind, m.card, m.target) for m in view.legal_moves),
    )


def seen_of_json(view: dict[str, Any]) -> Seen:
    return Seen(
        over=view.get("status") == "GAME_STATUS_OVER",
        round=int(view.get("round", 0)),
        turn=view.get("turn"),
        viewer=view.get("viewerSeat"),
        hand_play=view.get("waiting", {}).get("kind") == "WAITING_FOR_HAND_PLAY",
        hand=tuple(CARD_NUMBER[c] for c in view.get("hand", ())),
        field=tuple(CARD_NUMBER[c] for c in view.get("field", ())),
        legal=tuple(
            (
                KIND_NUMBER[m["kind"]],
                CARD_NUMBER[m.get("card", "CARD_UNSPECIFIED")],
                CARD_NUMBER[m.get("target", "CARD_UNSPECIFIED")],
            )
            for m in view.get("legalMoves", ())
        ),
    )


class Refused(Exception):
    """The referee refused a move (a client's mistake, not a failure)."""


# --- transports ------------------------------------------------------------------------------


class GameClient(Protocol):
    """One lane's client: one request at a time."""

    async def noop(self) -> None: ...
    async def write(self) -> None: ...
    async def create(self, seed: int) -> tuple[str, list[str], Seen]: ...
    async def get(self, game: str, token: str) -> Seen: ...
    async def submit(self, game: str, token: str, move: Move, request_id: str) -> Seen: ...
    async def close(self) -> None: ...


class HttpClient:
    """A minimal HTTP/1.1 keep-alive client: one connection, one request at a time."""

    def __init__(self, host: str, port: int, kind: str = "koikoi") -> None:
        self._address = (host, port)
        self._kind, self._players = KINDS[kind]
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _request(
        self, method: bytes, path: str, body: bytes = b"", token: str | None = None
    ) -> tuple[int, bytes]:
        if self._reader is None or self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(*self._address)
        head = b"%s %s HTTP/1.1\r\nHost: bench\r\nContent-Length: %d\r\n" % (
            method,
            path.encode(),
            len(body),
        )
        if body:
            head += b"Content-Type: application/json\r\n"
        if token:
            head += b"Authorization: Bearer %s\r\n" % token.encode()
        self._writer.write(head + b"\r\n" + body)
        header = (await self._reader.readuntil(b"\r\n\r\n")).lower()
        status = int(header[9:12])
        at = header.find(b"\r\ncontent-length:")
        if at < 0:
            if b"transfer-encoding" in header:
                raise RuntimeError("chunked responses are not expected here")
            return status, b""
        length = int(header[at + 17 : header.index(b"\r\n", at + 2)])
        return status, await self._reader.readexactly(length)

    async def _json(
        self, method: bytes, path: str, payload: dict[str, Any] | None, token: str | None
    ) -> dict[str, Any]:
        body = b"" if payload is None else json.dumps(payload).encode()
        status, answer = await self._request(method, path, body, token)
        if status in (400, 409):
            raise Refused(answer.decode(errors="replace"))
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {answer[:200]!r}")
        decoded: dict[str, Any] = json.loads(answer)
        return decoded

    async def noop(self) -> None:
        status, _ = await self._request(b"GET", NOOP_PATH)
        if status != 204:
            raise RuntimeError(f"no-op: HTTP {status}")

    async def write(self) -> None:
        status, _ = await self._request(b"POST", WRITE_PATH)
        if status != 204:
            raise RuntimeError(f"write: HTTP {status}")

    async def create(self, seed: int) -> tuple[str, list[str], Seen]:
        payload = {"kind": self._kind, "players": list(self._players), "seed": seed}
        created = await self._json(b"POST", "/v1/games", payload, None)
        return created["game"], created["playerTokens"], seen_of_json(created["view"])

    async def get(self, game: str, token: str) -> Seen:
        return seen_of_json((await self._json(b"GET", f"/v1/games/{game}", None, token))["view"])

    async def submit(self, game: str, token: str, move: Move, request_id: str) -> Seen:
        kind, card, target = move
        payload = {"move": {"kind": kind, "card": card, "target": target}, "requestId": request_id}
        answer = await self._json(b"POST", f"/v1/games/{game}/moves", payload, token)
        return seen_of_json(answer["view"])

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(OSError):
                await self._writer.wait_closed()


_REFUSALS = {grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT}


class GrpcClient:
    """The generated stub over a channel shared by the lanes of one process."""

    def __init__(self, channel: grpc.aio.Channel, kind: str = "koikoi") -> None:
        self._stub = service_pb2_grpc.RefereeServiceStub(channel)
        self._kind, self._players = KINDS[kind]
        self._noop: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
            NOOP_METHOD
        )
        self._write: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
            WRITE_METHOD
        )

    async def noop(self) -> None:
        await self._noop(b"")

    async def write(self) -> None:
        await self._write(b"")

    async def create(self, seed: int) -> tuple[str, list[str], Seen]:
        created = await self._stub.CreateGame(
            service_pb2.CreateGameRequest(kind=self._kind, players=self._players, seed=seed)
        )
        return created.game, list(created.player_tokens), seen_of_proto(created.view)

    async def get(self, game: str, token: str) -> Seen:
        answer = await self._stub.GetGame(
            service_pb2.GetGameRequest(game=game), metadata=_bearer(token)
        )
        return seen_of_proto(answer.view)

    async def submit(self, game: str, token: str, move: Move, request_id: str) -> Seen:
        kind, card, target = move
        request = service_pb2.SubmitMoveRequest(
            game=game,
            move=moves_pb2.Move(
                kind=moves_pb2.MoveKind.ValueType(kind),
                card=cards_pb2.Card.ValueType(card),
                target=cards_pb2.Card.ValueType(target),
            ),
            request_id=request_id,
        )
        try:
            answer = await self._stub.SubmitMove(request, metadata=_bearer(token))
        except grpc.aio.AioRpcError as error:
            if error.code() in _REFUSALS:
                raise Refused(str(error.details())) from None
            raise
        return seen_of_proto(answer.view)

    async def close(self) -> None:
        return None


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


# --- playing games ---------------------------------------------------------------------------


@dataclass
class Counters:
    """What a worker did besides the timed requests."""

    moves: int = 0
    creates: int = 0
    gets: int = 0
    refusals: int = 0
    errors: int = 0
    first_error: str = ""


class Player:
    """Plays complete games through one client, one move at a time (see the module docstring)."""

    def __init__(
        self, client: GameClient, rng: random.Random, seeds: Iterator[int], counters: Counters
    ) -> None:
        self._client = client
        self._rng = rng
        self._seeds = seeds
        self._counters = counters
        self._names = (f"{rng.getrandbits(48):012x}-{n}" for n in range(1 << 62))
        self.game = ""
        self._tokens: list[str] = []
        self._view: Seen | None = None
        #: seat -> (round, hand) from that seat's own last view.
        self._hands: dict[int, tuple[int, tuple[int, ...]]] = {}
        self.moves_in_game = 0

    def forget_game(self) -> None:
        """Start a new game at the next move (after a failure)."""
        self._view = None

    async def new_game(self) -> None:
        self.game, self._tokens, self._view = await self._client.create(next(self._seeds))
        self._counters.creates += 1
        self._hands = {}
        self.moves_in_game = 0

    async def next_move(self) -> tuple[int, Move]:
        """The seat on turn and a legal move for it (a new game when the last one is over)."""
        while True:
            view = self._view
            if view is None or view.over:
                await self.new_game()
                continue
            seat = view.turn
            if seat is not None:
                if view.viewer == seat and view.legal:
                    return seat, self._rng.choice(view.legal)
                known = self._hands.get(seat)
                if view.hand_play and known is not None and known[0] == view.round and known[1]:
                    return seat, self._play_from(known[1], view.field)
            reader = 0 if seat is None else seat
            self._view = await self._client.get(self.game, self._tokens[reader])
            self._counters.gets += 1
            self._hands[reader] = (self._view.round, self._view.hand)
            if seat is not None and not self._view.legal:
                raise RuntimeError("the seat on turn has no legal move")

    def _play_from(self, hand: tuple[int, ...], field: tuple[int, ...]) -> Move:
        card = self._rng.choice(hand)
        same_month = [f for f in field if MONTH_OF[f] == MONTH_OF[card]]
        # Two field cards of the month: the player names the one it takes; else no choice.
        target = self._rng.choice(same_month) if len(same_month) == 2 else 0
        return PLAY, card, target

    async def submit(self, seat: int, move: Move) -> None:
        """Submit ``move`` for ``seat``; a refusal makes the seat read its view next time."""
        try:
            view = await self._client.submit(self.game, self._tokens[seat], move, next(self._names))
        except Refused:
            self._counters.refusals += 1
            self._hands.pop(seat, None)
            if self._view is not None and self._view.viewer == seat:
                self._view = replace(self._view, viewer=None)
            raise
        self._view = view
        self._hands[seat] = (view.round, view.hand)
        self.moves_in_game += 1
        self._counters.moves += 1


# --- one worker process ----------------------------------------------------------------------


@dataclass(frozen=True)
class WorkerSpec:
    """What one client process runs."""

    transport: str
    workload: str
    open_loop: bool
    http: tuple[str, int]
    grpc_target: str
    lanes: int
    warmup: float
    duration: float
    #: Open loop: this process's share of the target rate (moves per second).
    rate: float = 0.0
    index: int = 0
    seed: int = 1
    #: The games the moves workload plays (a key of KINDS).
    kind: str = "koikoi"
    #: gRPC: a channel (so a connection) per lane rather than one per process, for a server
    #: whose workers share its port: the kernel gives each connection to one of them.
    channel_per_lane: bool = False


@dataclass
class WorkerResult:
    """What one client process measured in the window."""

    completed: int = 0
    latencies: list[float] = field(default_factory=list)
    counters: Counters = field(default_factory=Counters)
    cpu_seconds: float = 0.0
    backlog: int = 0


def worker_main(spec: WorkerSpec, barrier: Barrier, results: Any) -> None:
    """Entry point of a client process: puts its WorkerResult, or its failure as text."""
    try:
        results.put(asyncio.run(_run_worker(spec, barrier)))
    except BaseException as error:
        barrier.abort()  # the main process and the other workers stop waiting
        results.put(f"worker {spec.index}: {type(error).__name__}: {error}")
        raise


async def _run_worker(spec: WorkerSpec, barrier: Barrier) -> WorkerResult:
    result = WorkerResult()
    channel = grpc.aio.insecure_channel(spec.grpc_target) if spec.transport == "grpc" else None
    channels = [] if channel is None else [channel]
    clients: list[GameClient] = []
    for _ in range(spec.lanes * (4 if spec.open_loop else 1)):
        if channel is not None and spec.channel_per_lane:
            # grpc's channels to one target share one connection unless each has its own pool.
            own = grpc.aio.insecure_channel(
                spec.grpc_target, options=[("grpc.use_local_subchannel_pool", 1)]
            )
            channels.append(own)
            clients.append(GrpcClient(own, spec.kind))
        elif channel is not None:
            clients.append(GrpcClient(channel, spec.kind))
        else:
            clients.append(HttpClient(*spec.http, spec.kind))
    seeds = iter(range(spec.seed * 10_000_000 + spec.index * 1_000_000, 1 << 62))
    rng = random.Random(spec.seed * 1000 + spec.index)
    players = [
        Player(client, random.Random(rng.random()), seeds, result.counters) for client in clients
    ]
    # Before the common start: connect every lane, and give each player its first game, so
    # the measured part is not a storm of creations.
    await asyncio.gather(*(client.noop() for client in clients))
    if spec.workload == "moves":
        for first in range(0, len(players), 16):
            await asyncio.gather(*(p.new_game() for p in players[first : first + 16]))
        result.counters.creates = 0
    await asyncio.to_thread(barrier.wait)
    start = time.perf_counter()
    window = (start + spec.warmup, start + spec.warmup + spec.duration)

    lanes: list[Awaitable[None]] = []
    if spec.workload in ("noop", "write"):
        for client in clients:
            call = client.noop if spec.workload == "noop" else client.write
            lanes.append(_request_lane(call, window, result))
    elif not spec.open_loop:
        lanes.extend(_move_lane(player, window, result) for player in players)
    else:
        queue: asyncio.Queue[float] = asyncio.Queue()
        lanes.append(_ticker(queue, spec.rate, window, result))
        lanes.extend(_paced_move_lane(player, queue, window, result) for player in players)
    tasks = [asyncio.ensure_future(lane) for lane in lanes]
    cpu = asyncio.ensure_future(_cpu_in_window(window, result))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(*tasks, return_exceptions=True), spec.warmup + spec.duration + 10
        )
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, cpu, return_exceptions=True)
    for client in clients:
        await client.close()
    for each in channels:
        await each.close()
    return result


def _note_error(result: WorkerResult, error: BaseException) -> None:
    result.counters.errors += 1
    if not result.counters.first_error:
        result.counters.first_error = f"{type(error).__name__}: {error}"[:300]
    if result.counters.errors > 1000:
        raise RuntimeError(f"too many errors; first: {result.counters.first_error}")


async def _request_lane(
    call: Callable[[], Awaitable[None]], window: tuple[float, float], result: WorkerResult
) -> None:
    begin, end = window
    while (sent := time.perf_counter()) < end:
        try:
            await call()
        except Exception as error:
            _note_error(result, error)
            continue
        done = time.perf_counter()
        if sent >= begin and done <= end:
            result.completed += 1
            result.latencies.append(done - sent)


async def _move_lane(player: Player, window: tuple[float, float], result: WorkerResult) -> None:
    begin, end = window
    while time.perf_counter() < end:
        try:
            seat, move = await player.next_move()
            sent = time.perf_counter()
            await player.submit(seat, move)
        except Refused:
            continue
        except Exception as error:
            _note_error(result, error)
            player.forget_game()
            await asyncio.sleep(0.01)
            continue
        done = time.perf_counter()
        if sent >= begin and done <= end:
            result.completed += 1
            result.latencies.append(done - sent)


async def _ticker(
    queue: asyncio.Queue[float], rate: float, window: tuple[float, float], result: WorkerResult
) -> None:
    """Puts each move's scheduled start time in ``queue``, evenly spaced at ``rate``."""
    _, end = window
    interval = 1.0 / rate
    due = time.perf_counter()
    while due < end:
        now = time.perf_counter()
        while due <= now and due < end:
            queue.put_nowait(due)
            due += interval
        result.backlog = max(result.backlog, queue.qsize())
        await asyncio.sleep(max(0.0, min(due - time.perf_counter(), 0.005)))


async def _paced_move_lane(
    player: Player, queue: asyncio.Queue[float], window: tuple[float, float], result: WorkerResult
) -> None:
    begin, end = window
    while time.perf_counter() < end:
        try:
            # Prepare the move first (a creation or a read is not part of its latency)...
            seat, move = await player.next_move()
            # ...then wait for its turn in the schedule; latency counts from the scheduled time.
            scheduled = await queue.get()
            await player.submit(seat, move)
        except Refused:
            continue
        except Exception as error:
            _note_error(result, error)
            player.forget_game()
            await asyncio.sleep(0.01)
            continue
        if begin <= scheduled < end:
            result.completed += 1
            result.latencies.append(time.perf_counter() - scheduled)


async def _cpu_in_window(window: tuple[float, float], result: WorkerResult) -> None:
    begin, end = window
    await asyncio.sleep(max(0.0, begin - time.perf_counter()))
    first = os.times()
    await asyncio.sleep(max(0.0, end - time.perf_counter()))
    last = os.times()
    result.cpu_seconds = (last.user + last.system) - (first.user + first.system)


# --- measurements ----------------------------------------------------------------------------


@dataclass
class Measurement:
    """One workload on one transport."""

    rate: float
    p50_ms: float
    p99_ms: float
    server_cpu: float | None
    redis_cpu: float | None
    client_cpu: float
    counters: Counters
    target: float = 0.0
    backlog: int = 0


def _percentile(ordered: Sequence[float], q: float) -> float:
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def process_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """User plus system CPU time of process ``pid`` and of every live process under it (the
    workers of a service started with ``--workers``; a single process has none)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                parents[int(entry.name)] = int(stat[1])
    tree, seen = [pid], {pid}
    for member in tree:
        for child, parent in parents.items():
            if parent == member and child not in seen:
                seen.add(child)
                tree.append(child)
    total = 0.0
    for member in tree:
        with contextlib.suppress(OSError):  # ended meanwhile
            total += process_cpu_seconds(member)
    return total


def redis_cpu_seconds(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


@dataclass(frozen=True)
class Cores:
    """With ``--pin``: the core the server under test runs on, and the cores of everything
    else this script starts or runs (Redis, the load generator, this process)."""

    server: frozenset[int]
    others: frozenset[int]

    @staticmethod
    def split() -> Cores:
        """The last core this process may use for the server, the rest for the others."""
        if not hasattr(os, "sched_setaffinity"):
            sys.exit("--pin needs Linux (os.sched_setaffinity)")
        usable = sorted(os.sched_getaffinity(0))
        if len(usable) < 2:
            sys.exit("--pin needs at least 2 cores")
        return Cores(frozenset(usable[-1:]), frozenset(usable[:-1]))


def pin(pid: int, cores: frozenset[int]) -> None:
    """Keep every thread of process ``pid`` on ``cores``: a thread's affinity is its own, and
    grpc's poller threads exist once its server has started (threads started later inherit it)."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task.name), cores)


@dataclass
class Target:
    """Where the load goes, and what can be watched while it does."""

    http: tuple[str, int]
    grpc_target: str
    server_pid: int | None
    redis: redis.Redis | None


def measure(target: Target, spec: WorkerSpec, processes: int) -> Measurement:
    """Run ``processes`` workers of ``spec`` against ``target`` and merge what they measured."""
    return measure_spread([target], spec, processes)


def measure_spread(
    targets: Sequence[Target],
    spec: WorkerSpec,
    processes: int,
    redis_nodes: Sequence[redis.Redis] | None = None,
) -> Measurement:
    """Run ``processes`` workers of ``spec``, worker ``i`` against ``targets[i % len]``, and
    merge what they measured. The server CPU is that of every target's process (unknown if one
    is), the Redis CPU that of ``redis_nodes`` (by default the targets' Redis, each once)."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(processes + 1)
    results = context.Queue()
    workers = []
    for i in range(processes):
        target = targets[i % len(targets)]
        worker_spec = replace(spec, http=target.http, grpc_target=target.grpc_target, index=i)
        workers.append(
            context.Process(target=worker_main, args=(worker_spec, barrier, results), daemon=True)
        )
    for worker in workers:
        worker.start()
    try:
        barrier.wait(timeout=120)
    except threading.BrokenBarrierError:
        raise RuntimeError(str(results.get(timeout=10))) from None
    pids = [t.server_pid for t in targets if t.server_pid]
    if len(pids) < len(targets):
        pids = []
    if redis_nodes is None:
        redis_nodes = list({id(t.redis): t.redis for t in targets if t.redis is not None}.values())
    time.sleep(spec.warmup)
    server_start = sum(tree_cpu_seconds(pid) for pid in pids)
    redis_start = sum(redis_cpu_seconds(node) for node in redis_nodes)
    time.sleep(spec.duration)
    server_cpu = (
        (sum(tree_cpu_seconds(pid) for pid in pids) - server_start) / spec.duration
        if pids
        else None
    )
    redis_cpu = (
        (sum(redis_cpu_seconds(node) for node in redis_nodes) - redis_start) / spec.duration
        if redis_nodes
        else None
    )
    answers = [results.get(timeout=spec.duration + 120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    failures = [answer for answer in answers if isinstance(answer, str)]
    if failures:
        raise RuntimeError("; ".join(failures))
    merged: list[WorkerResult] = answers
    latencies = sorted(x for r in merged for x in r.latencies)
    counters = Counters(
        moves=sum(r.counters.moves for r in merged),
        creates=sum(r.counters.creates for r in merged),
        gets=sum(r.counters.gets for r in merged),
        refusals=sum(r.counters.refusals for r in merged),
        errors=sum(r.counters.errors for r in merged),
        first_error=next((r.counters.first_error for r in merged if r.counters.first_error), ""),
    )
    return Measurement(
        rate=sum(r.completed for r in merged) / spec.duration,
        p50_ms=_percentile(latencies, 0.50) * 1000,
        p99_ms=_percentile(latencies, 0.99) * 1000,
        server_cpu=server_cpu,
        redis_cpu=redis_cpu,
        client_cpu=sum(r.cpu_seconds for r in merged) / spec.duration,
        counters=counters,
        target=spec.rate * processes,
        backlog=max(r.backlog for r in merged),
    )


def describe(transport: str, workload: str, m: Measurement) -> str:
    cpu = "   ".join(
        f"{name} {value * 100:4.0f}%"
        for name, value in (
            ("server", m.server_cpu),
            ("redis", m.redis_cpu),
            ("clients", m.client_cpu),
        )
        if value is not None
    )
    line = (
        f"  {transport:5} {workload:10} {m.rate:9.0f}/s  p50 {m.p50_ms:6.2f} ms  "
        f"p99 {m.p99_ms:6.2f} ms   cpu: {cpu}"
    )
    if m.target:
        line += f"   (target {m.target:.0f}/s, generator backlog max {m.backlog})"
    if m.counters.moves:
        c = m.counters
        line += (
            f"\n  {'':16} per move: creations {c.creates / c.moves:.3f}, "
            f"reads {c.gets / c.moves:.3f}, refusals {c.refusals / c.moves:.4f}"
        )
    if m.counters.errors:
        line += f"\n  {'':16} ERRORS: {m.counters.errors} (first: {m.counters.first_error})"
    return line


# --- memory per game -------------------------------------------------------------------------


async def measure_memory(
    grpc_target: str, redis_url: str, prefix: str, games: int, concurrency: int, kind: str
) -> tuple[float, float, float]:
    """(MEMORY USAGE per game, used_memory growth per game, mean version reached).

    A first batch of games, not counted, opens the server's Redis connections: each new client
    connection costs Redis about 20 KB of buffers, which is not the games' memory. The growth is
    also net of any change in the clients' buffers (``mem_clients_normal``).
    """
    raw = AsyncRedis.from_url(redis_url)
    keyspace = KeySpace(prefix)
    created: list[str] = []
    versions: list[int] = []

    async def memory() -> int:
        info = await raw.info("memory")
        return int(info["used_memory"]) - int(info["mem_clients_normal"])

    try:
        async with grpc.aio.insecure_channel(grpc_target) as channel:
            seeds = iter(range(1, 1 << 62))

            async def play(count: int) -> list[str]:
                pending = iter(range(count))
                played: list[str] = []

                async def lane(rng: random.Random) -> None:
                    player = Player(GrpcClient(channel, kind), rng, seeds, Counters())
                    for _ in pending:
                        await player.new_game()
                        created.append(player.game)
                        while player.moves_in_game < MEMORY_MOVES:
                            seat, move = await player.next_move()
                            with contextlib.suppress(Refused):
                                await player.submit(seat, move)
                        played.append(player.game)
                        versions.append(player.moves_in_game + 1)

                await asyncio.gather(*(lane(random.Random(n)) for n in range(concurrency)))
                return played

            await play(concurrency)
            versions.clear()
            before = await memory()
            measured = await play(games)
            after = await memory()
        async with raw.pipeline(transaction=False) as pipe:
            for game in measured:
                for key in keyspace.game(game).all():
                    pipe.memory_usage(key, samples=0)
            usages = await pipe.execute()
        return (
            sum(u or 0 for u in usages) / len(measured),
            (after - before) / len(measured),
            statistics.mean(versions),
        )
    finally:
        for start in range(0, len(created), 500):
            keys = [k for game in created[start : start + 500] for k in keyspace.game(game).all()]
            await raw.delete(*keys)
        await raw.aclose()


# --- the generator's own ceiling -------------------------------------------------------------


class _StubHttp(asyncio.Protocol):
    """Answers every request with 204 at once (requests carry no body)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._buffer = b""

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while (end := self._buffer.find(b"\r\n\r\n")) >= 0:
            self._buffer = self._buffer[end + 4 :]
            self._transport.write(b"HTTP/1.1 204 No Content\r\n\r\n")


def stub_main(http_port: int, grpc_port: int, ready: Any, stop: Any) -> None:
    """Entry point of the stub server process: bare HTTP and gRPC no-op servers."""

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        http = await loop.create_server(_StubHttp, "127.0.0.1", http_port)
        server = grpc.aio.server()

        async def noop(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
            return b""

        handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.unary_unary_rpc_method_handler(noop)
        service, method = NOOP_METHOD.strip("/").split("/")
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, {method: handler}),)
        )
        server.add_insecure_port(f"127.0.0.1:{grpc_port}")
        await server.start()
        ready.set()
        await asyncio.to_thread(stop.wait)
        await server.stop(0)
        http.close()

    asyncio.run(serve())


def measure_ceiling(
    transports: Sequence[str], spec: WorkerSpec, processes: int, cores: Cores | None
) -> dict[str, Measurement]:
    context = multiprocessing.get_context("spawn")
    ready, stop = context.Event(), context.Event()
    http_port, grpc_port = free_port(), free_port()
    stub = context.Process(target=stub_main, args=(http_port, grpc_port, ready, stop), daemon=True)
    stub.start()
    try:
        if not ready.wait(60):
            raise RuntimeError("the stub servers did not start")
        if cores is not None and stub.pid is not None:
            pin(stub.pid, cores.server)
        target = Target(("127.0.0.1", http_port), f"127.0.0.1:{grpc_port}", stub.pid, None)
        return {
            transport: measure(
                target,
                replace(spec, transport=transport, workload="noop", open_loop=False),
                processes,
            )
            for transport in transports
        }
    finally:
        stop.set()
        stub.join(timeout=10)
        if stub.is_alive():
            stub.kill()


# --- main ------------------------------------------------------------------------------------


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=1, help="repeat and report medians")
    parser.add_argument("--duration", type=float, default=5.0, help="seconds measured per figure")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds before each window")
    parser.add_argument("--processes", type=int, default=1, help="client processes")
    parser.add_argument("--lanes", type=int, default=32, help="concurrent lanes per process")
    parser.add_argument(
        "--transport", action="append", choices=["http", "grpc"], help="default: both"
    )
    parser.add_argument(
        "--workload",
        action="append",
        choices=WORKLOADS,
        help="measure only this workload (repeat for several; default: all, e.g. to profile one)",
    )
    parser.add_argument("--memory-games", type=int, default=2000, help="0 skips the measure")
    parser.add_argument("--no-ceiling", action="store_true", help="skip the generator ceiling")
    parser.add_argument(
        "--pin",
        action="store_true",
        help="run the server on a core of its own, Redis and the clients on the others (Linux)",
    )
    parser.add_argument("--log-level", default="INFO", help="the started server's log level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--kind",
        choices=sorted(KINDS),
        default="koikoi",
        help="the games the moves workload and the memory figure play (3 players for Hachi-Hachi)",
    )
    parser.add_argument("--redis-url", help="use this Redis instead of a private redis-server")
    parser.add_argument(
        "--http-url",
        help="benchmark the running server at this URL (with --grpc-target) instead of "
        "starting one; run it with python -m tests.benchmarks.reference_requests "
        "--allow-testing-features --create-rate 0",
    )
    parser.add_argument("--grpc-target", help="host:port of that running server's gRPC")
    parser.add_argument(
        "--key-prefix", help="that running server's key prefix (for the memory measure)"
    )
    args = parser.parse_args()
    if (args.http_url is None) != (args.grpc_target is None):
        parser.error("--http-url and --grpc-target go together")
    if args.pin and args.http_url is not None:
        parser.error("--pin places a server this script starts, not a running one")
    return args


@dataclass(frozen=True)
class Deployment:
    """The server under test and the Redis behind it (None: not known to the script)."""

    target: Target
    redis_url: str | None
    prefix: str | None
    description: str


def given_or_private_redis(
    redis_url: str | None, workdir: Path, stack: contextlib.ExitStack
) -> str:
    """``redis_url`` (``--redis-url``), or that of a redis-server started here with default
    settings, stopped when ``stack`` closes."""
    if redis_url is not None:
        return redis_url
    if REDIS_SERVER is None:
        sys.exit("redis-server is not installed: pass --redis-url")
    server = ServerProcess(workdir / "redis", free_port())
    server.start()
    stack.callback(server.stop)
    return server.url


def deploy(
    args: argparse.Namespace, stack: contextlib.ExitStack, cores: Cores | None
) -> Deployment:
    """Start (or find) the server under test, and say what it is; with ``cores``, move the
    server to its core (it starts on the others, as Redis does, see :func:`main`)."""
    raw = redis.Redis.from_url(args.redis_url) if args.redis_url else None
    if args.http_url is not None:
        url = urlsplit(args.http_url)
        if raw is not None:
            stack.callback(raw.close)
        target = Target((url.hostname or "", url.port or 80), args.grpc_target, None, raw)
        return Deployment(
            target, args.redis_url, args.key_prefix, f"running server at {args.http_url}"
        )
    workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-bench-")))
    redis_url = given_or_private_redis(args.redis_url, workdir, stack)
    if args.redis_url is None:
        where = "(a private redis-server, default settings)"
        raw = redis.Redis.from_url(redis_url)
    else:
        where = f"at {redis_url}"
    assert raw is not None
    stack.callback(raw.close)
    prefix = f"bench-{uuid.uuid4().hex[:8]}:"
    server = RefereeProcess(
        workdir,
        env={
            "REDIS_URL": redis_url,
            "HANAFUDA_KEY_PREFIX": prefix,
            "HANAFUDA_LOG_LEVEL": args.log_level,
        },
        command=reference_requests.COMMAND,
    )
    server.start()
    stack.callback(server.stop)
    pid = server.process.pid if server.process else None
    if cores is not None and pid is not None:
        pin(pid, cores.server)
    target = Target(("127.0.0.1", server.http_port), server.grpc_target, pid, raw)
    version = raw.info("server")["redis_version"]
    description = (
        f"one service process started here (testing features and reference requests "
        f"on, log level {args.log_level}, JSON log lines to a file), Redis {version} {where}, "
        f"key prefix {prefix}"
    )
    if cores is not None:
        description += (
            f"; pinned: the server on core {_core_list(cores.server)}, "
            f"{'Redis and ' if args.redis_url is None else ''}"
            f"the load generator on {_core_list(cores.others)}"
        )
    return Deployment(target, redis_url, prefix, description)


def _core_list(cores: frozenset[int]) -> str:
    return ",".join(str(core) for core in sorted(cores))


def main() -> None:
    args = _arguments()
    cores = Cores.split() if args.pin else None
    if cores is not None:
        # Every process started from here on inherits these cores: the load generator's, a
        # private Redis, and the server until deploy() moves it to its own.
        os.sched_setaffinity(0, cores.others)
    transports: list[str] = args.transport or ["http", "grpc"]
    workloads: list[str] = args.workload or list(WORKLOADS)
    base = WorkerSpec(
        transport="",
        workload="",
        open_loop=False,
        http=("", 0),
        grpc_target="",
        lanes=args.lanes,
        warmup=args.warmup,
        duration=args.duration,
        seed=args.seed,
        kind=args.kind,
    )
    command = [".venv/bin/python", "-m", "tests.benchmarks.service", *sys.argv[1:]]
    print(f"command: {shlex.join(command)}")
    print(f"parameters: {vars(args)}")
    print(
        f"machine: {os.cpu_count()} cores, {platform.platform()}, "
        f"Python {platform.python_version()}"
    )
    print(
        f"generator: {args.processes} process(es) x {args.lanes} lanes, closed loop "
        f"(open loop at half the move rate for the latency run), {args.warmup:g} s warm-up "
        f"then {args.duration:g} s measured per figure"
    )
    with contextlib.ExitStack() as stack:
        deployment = deploy(args, stack, cores)
        target = deployment.target
        print(f"server: {deployment.description}")

        if args.memory_games and deployment.redis_url and deployment.prefix:
            usage, growth, version_reached = asyncio.run(
                measure_memory(
                    target.grpc_target,
                    deployment.redis_url,
                    deployment.prefix,
                    args.memory_games,
                    32,
                    args.kind,
                )
            )
            print(
                f"\nmemory per in-progress {_GAME_NAMES[args.kind]} game ({args.memory_games} "
                f"games, {MEMORY_MOVES} moves each with a request id, mean version "
                f"{version_reached:.1f}): "
                f"MEMORY USAGE of its keys {usage:.0f} B, used_memory growth {growth:.0f} B"
            )
        elif args.memory_games:
            print("\nmemory: skipped (needs --redis-url and --key-prefix of the running server)")

        runs = [
            run_once(target, base, transports, workloads, args.processes, n, args.runs)
            for n in range(args.runs)
        ]
        print_medians(runs, transports, workloads)

        if not args.no_ceiling:
            print("\ngenerator ceiling (the no-op workload against bare stub servers)")
            for transport, m in measure_ceiling(transports, base, args.processes, cores).items():
                print(describe(transport, "stub no-op", m).replace("server", "stub"))


Figures = dict[tuple[str, str], Measurement]


def run_once(
    target: Target,
    base: WorkerSpec,
    transports: Sequence[str],
    workloads: Sequence[str],
    processes: int,
    run: int,
    runs: int,
) -> Figures:
    """Every figure once: the three workloads saturated, then moves at half their rate."""
    print(f"\nrun {run + 1} of {runs}")
    figures: Figures = {}
    for transport in transports:
        for workload in workloads:
            spec = replace(base, transport=transport, workload=workload)
            m = figures[transport, workload] = measure(target, spec, processes)
            print(describe(transport, workload, m), flush=True)
        if "moves" not in workloads:
            continue
        half = figures[transport, "moves"].rate / 2
        spec = replace(
            base, transport=transport, workload="moves", open_loop=True, rate=half / processes
        )
        m = figures[transport, "moves@half"] = measure(target, spec, processes)
        print(describe(transport, "moves@half", m), flush=True)
    return figures


def print_medians(
    runs: Sequence[Figures], transports: Sequence[str], workloads: Sequence[str]
) -> None:
    print(f"\nmedians over {len(runs)} run(s)")
    shown = [*workloads, "moves@half"] if "moves" in workloads else list(workloads)
    for transport in transports:
        for workload in shown:
            picked = [r[transport, workload] for r in runs]
            rate = statistics.median(m.rate for m in picked)
            p50 = statistics.median(m.p50_ms for m in picked)
            p99 = statistics.median(m.p99_ms for m in picked)
            print(
                f"  {transport:5} {workload:10} {rate:9.0f}/s  p50 {p50:6.2f} ms  p99 {p99:6.2f} ms"
            )
        if set(WORKLOADS) - set(workloads):
            continue  # a ratio needs all three figures
        per_write = statistics.median(
            r[transport, "moves"].rate / r[transport, "write"].rate for r in runs
        )
        per_noop = statistics.median(
            r[transport, "moves"].rate / r[transport, "noop"].rate for r in runs
        )
        print(
            f"  {transport:5} ratios     move/one-write {per_write:.2f}   move/no-op {per_noop:.2f}"
        )
        costs = [_server_micros(runs, transport, workload) for workload in WORKLOADS]
        if all(cost is not None for cost in costs):
            noop, write, move = cast(list[float], costs)
            print(
                f"  {transport:5} server CPU per request: no-op {noop:.0f} us, one write "
                f"{write:.0f} us, move {move:.0f} us (its share of reads and creations included); "
                f"the move's own work {move - noop:.0f} us, the write's {write - noop:.0f} us"
            )


def _server_micros(runs: Sequence[Figures], transport: str, workload: str) -> float | None:
    """The median server CPU microseconds per counted request of a saturated workload (None
    when the server's CPU is not known: a server this script did not start)."""
    costs = [
        m.server_cpu / m.rate * 1e6
        for m in (r[transport, workload] for r in runs)
        if m.server_cpu is not None and m.rate > 0
    ]
    return statistics.median(costs) if len(costs) == len(runs) else None


if __name__ == "__main__":
    main()
