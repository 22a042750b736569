"""What watchers cost a server: a script, not a test.

Starts a private Redis (or uses ``--redis-url``) and one service process, creates ``--games``
seeded Koi-Koi games, opens ``--watchers`` spectator streams spread evenly over them (gRPC
``WatchGame`` streams, or Server-Sent Events on plain sockets), then plays the first moves of
every game (default rules, 12 rounds), each its mover's first legal move, over gRPC (each move
preceded by both seats' ``GetGame``, as a simple client does), and prints the server's CPU time
per move. The same games (seeds) played with no watcher, in the same run on the same server,
are the baseline: the difference, divided by the watchers of a game, is what one watcher costs
per version. Also prints how many connections the Redis server holds while the watchers follow
(the service's and this script's included). Run from the repository root::

    .venv/bin/python -m tests.benchmarks.watchers [--watchers 200] [--games 4] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import redis
from hanafuda.v1 import rules_pb2, service_pb2, service_pb2_grpc
from tests.benchmarks.service import given_or_private_redis, process_cpu_seconds
from tests.system.processes import RefereeProcess

#: Moves played per game: about two rounds of a default game (the measure is per move, so a
#: game need not end).
_MOVES_PER_GAME = 40


@dataclass(frozen=True)
class Figure:
    """One measurement: the server's CPU per move, the items the watchers got, and the Redis
    server's connections while they followed."""

    transport: str
    watchers: int
    cpu_per_move: float
    items: int
    redis_connections: int


async def _follow_grpc(
    stub: service_pb2_grpc.RefereeServiceAsyncStub, game: str, items: list[int]
) -> None:
    async for _ in stub.WatchGame(service_pb2.WatchGameRequest(game=game)):
        items[0] += 1


async def _follow_sse(port: int, game: str, items: list[int]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(f"GET /v1/games/{game}/events HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        await writer.drain()
        while data := await reader.read(1 << 16):
            items[0] += data.count(b"\ndata: ")
    finally:
        writer.close()


async def _play(
    stub: service_pb2_grpc.RefereeServiceAsyncStub, created: service_pb2.CreateGameResponse
) -> int:
    """Play the game's first moves (at most :data:`_MOVES_PER_GAME`), each its mover's first
    legal move; the number of moves."""
    moves = 0
    for _ in range(_MOVES_PER_GAME):
        views = []
        for token in created.player_tokens:
            reply = await stub.GetGame(
                service_pb2.GetGameRequest(game=created.game),
                metadata=(("authorization", f"Bearer {token}"),),
            )
            views.append((token, reply.view))
        mover = next(((token, view) for token, view in views if view.legal_moves), None)
        if mover is None:
            return moves
        token, view = mover
        await stub.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=view.legal_moves[0]),
            metadata=(("authorization", f"Bearer {token}"),),
        )
        moves += 1
    return moves


async def measure(
    server: RefereeProcess, raw: redis.Redis, transport: str, watchers: int, games: int, seed: int
) -> Figure:
    """Play ``games`` new games with ``watchers`` spectators spread over them."""
    pid = server.process.pid if server.process else None
    assert pid is not None
    channel: grpc.aio.Channel = grpc.aio.insecure_channel(server.grpc_target)
    async with channel:
        stub: service_pb2_grpc.RefereeServiceAsyncStub = service_pb2_grpc.RefereeServiceStub(
            channel
        )
        created = [
            await stub.CreateGame(
                service_pb2.CreateGameRequest(
                    kind=rules_pb2.GAME_KIND_KOI_KOI, players=["Ann", "Bob"], seed=seed + n
                )
            )
            for n in range(games)
        ]
        items = [0]
        followers = [
            asyncio.create_task(
                _follow_grpc(stub, created[n % games].game, items)
                if transport == "grpc"
                else _follow_sse(server.http_port, created[n % games].game, items)
            )
            for n in range(watchers)
        ]
        try:
            # Every watcher has its first item (the current view) before the moves start.
            async with asyncio.timeout(60):
                while items[0] < watchers:
                    await asyncio.sleep(0.05)
            connections = int(raw.info("clients")["connected_clients"])
            items[0] = 0
            before = process_cpu_seconds(pid)
            moves = sum(await asyncio.gather(*(_play(stub, game) for game in created)))
            # The last items reach the watchers.
            async with asyncio.timeout(60):
                while items[0] < moves * watchers // games:
                    await asyncio.sleep(0.05)
            spent = process_cpu_seconds(pid) - before
        finally:
            for follower in followers:
                follower.cancel()
            await asyncio.gather(*followers, return_exceptions=True)
    return Figure(transport, watchers, spent / moves, items[0], connections)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3, help="repeat and report medians")
    parser.add_argument("--transport", choices=("grpc", "http"), action="append")
    parser.add_argument("--redis-url", help="use this Redis instead of a private redis-server")
    return parser.parse_args()


def _report(figures: Sequence[Figure], baseline: Sequence[Figure], games: int) -> str:
    move = statistics.median(f.cpu_per_move for f in figures)
    alone = statistics.median(f.cpu_per_move for f in baseline)
    watchers = figures[0].watchers
    per_item = (move - alone) / (watchers / games)
    return (
        f"  {figures[0].transport:<5} {watchers} watchers: {move * 1e3:6.2f} ms of server CPU "
        f"per move, against {alone * 1e3:.2f} ms with none (ratio {move / alone:.2f}); "
        f"{per_item * 1e6:.0f} us per watcher and version; Redis connections while they "
        f"follow: {max(f.redis_connections for f in figures)}"
    )


def main() -> None:
    args = _arguments()
    transports = args.transport or ["grpc", "http"]
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-watch-")))
        redis_url = given_or_private_redis(args.redis_url, workdir, stack)
        raw = redis.Redis.from_url(redis_url)
        stack.callback(raw.close)
        server = RefereeProcess(
            workdir,
            env={"REDIS_URL": redis_url, "HANAFUDA_KEY_PREFIX": f"bench-{uuid.uuid4().hex[:8]}:"},
        )
        server.start()
        stack.callback(server.stop)
        print(
            f"{args.watchers} spectators over {args.games} Koi-Koi games, {_MOVES_PER_GAME} moves "
            f"of each (first legal moves); medians of {args.runs} runs, each next to the same "
            "moves with no watcher"
        )
        seed = 1
        for transport in transports:
            figures: list[Figure] = []
            baseline: list[Figure] = []
            for _ in range(args.runs):
                # The same games (seeds) with and without watchers.
                for count, into in ((0, baseline), (args.watchers, figures)):
                    into.append(
                        asyncio.run(measure(server, raw, transport, count, args.games, seed))
                    )
                seed += args.games
            print(_report(figures, baseline, args.games))
    print(
        "reproduce: .venv/bin/python -m tests.benchmarks.watchers "
        f"--watchers {args.watchers} --games {args.games} --runs {args.runs}"
        + "".join(f" --transport {t}" for t in transports)
    )


if __name__ == "__main__":
    main()
