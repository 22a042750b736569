"""What a read costs for games of 1, 12 and 120 rounds: a script, not a test.

PLAY.md: reads cost what the present costs, not the history. For one Koi-Koi game of each
length, played by random legal moves (in-process store) up to the start of its last round,
prints the bytes and the microseconds (median of ``--reps``, wall clock, this process alone)
of:

- a view (``GetGame`` as a spectator, written as the HTTP transport writes it: JSON);
- a watch item (the item of the last version, as a watcher resuming just before it gets it,
  serialized as gRPC sends it);
- a log page (``GetGameLog`` with the default page size: the first page and the last one).

The figures should be flat in the number of rounds. Run from the repository root::

    .venv/bin/python -m tests.benchmarks.reads [--reps 200] [--rounds 1 12 120]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from hanafuda.v1 import game_pb2, rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.store import MemoryStore
from hanafuda_referee.writers.forms import JSON

SPECTATOR = Caller(address="192.0.2.1")


async def _long_game(games: HostedGames, rounds: int, seed: int) -> str:
    """A game of ``rounds`` rounds played up to its last round's first hand play."""
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], seed=seed
    )
    request.koi_koi.rounds = rounds
    created = await games.create(request, SPECTATOR)
    tokens = list(created.player_tokens)
    rng = random.Random(seed)
    game = created.game
    while True:
        view = (await games.get(service_pb2.GetGameRequest(game=game), SPECTATOR)).message().view
        if view.status == game_pb2.GAME_STATUS_OVER:
            raise RuntimeError("the game ended before its last round: try another seed")
        if view.rounds_finished == rounds - 1 and view.waiting.kind == (
            game_pb2.WAITING_FOR_HAND_PLAY
        ):
            return game
        seat = Caller(token=tokens[view.turn], address="192.0.2.1")
        own = (await games.get(service_pb2.GetGameRequest(game=game), seat)).message().view
        move = rng.choice(list(own.legal_moves))
        await games.submit(service_pb2.SubmitMoveRequest(game=game, move=move), seat)


async def _timed(call: Callable[[], Awaitable[int]], reps: int) -> tuple[int, float]:
    """The size ``call`` returns and its median microseconds."""
    size = await call()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return size, statistics.median(times) * 1e6


async def main(rounds_list: list[int], reps: int) -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    print(f"command: {' '.join([sys.executable, '-m', 'tests.benchmarks.reads', *sys.argv[1:]])}")
    print(f"python:  {sys.version.split()[0]}; median of {reps} reads each")
    header = f"{'rounds':>6}  {'read':<16}{'bytes':>9}{'µs':>10}"
    print(header)
    for rounds in rounds_list:
        game = None
        for seed in range(1, 50):
            try:
                game = await _long_game(games, rounds, seed)
                break
            except RuntimeError:
                continue
        assert game is not None
        view = (await games.get(service_pb2.GetGameRequest(game=game), SPECTATOR)).message().view

        async def view_read(game: str = game) -> int:
            reply = await games.get(service_pb2.GetGameRequest(game=game), SPECTATOR)
            return len(reply.written(JSON).encode())

        async def watch_item(game: str = game, version: int = view.version) -> int:
            request = service_pb2.WatchGameRequest(game=game, from_version=version - 1)
            cursor = await games.open_watch(request, SPECTATOR)
            item: Any = None
            async for entry in games.watch_entries(cursor):
                item = cursor.advance(entry)
                if item is not None:
                    break
            return len(item.SerializeToString())

        tokens: list[str] = [""]
        request = service_pb2.GetGameLogRequest(game=game)
        while True:
            page = await games.log(request, SPECTATOR)
            if not page.next_page_token:
                break
            tokens.append(page.next_page_token)
            request.page_token = page.next_page_token

        def log_page(token: str, game: str = game) -> Callable[[], Awaitable[int]]:
            async def read() -> int:
                request = service_pb2.GetGameLogRequest(game=game, page_token=token)
                return len((await games.log(request, SPECTATOR)).SerializeToString())

            return read

        for name, call in (
            ("view (JSON)", view_read),
            ("watch item", watch_item),
            ("log page, first", log_page(tokens[0])),
            ("log page, last", log_page(tokens[-1])),
        ):
            size, micros = await _timed(call, reps)
            print(f"{rounds:>6}  {name:<16}{size:>9,}{micros:>10.0f}")
        print(f"{'':>6}  ({view.version} versions, {len(tokens)} log pages)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--rounds", type=int, nargs="+", default=[1, 12, 120])
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.reps))
