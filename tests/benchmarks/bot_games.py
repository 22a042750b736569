"""Moves per second of games against a bot seat, a human move and the bot's reply per round trip:
a script, not a test.

Plays complete one-round Koi-Koi games (seat 0 a person taking random legal moves, seat 1 a bot
of each level) through the hosted-games layer on the in-process store, as the transports and a
bot worker call it, and prints per level the round trips per second and the median and 95th
percentile of one (the person's move and its commit, then the bot's turn as a bot worker plays
it: load, decision, commit), next to a game of two persons measured in the same run. Bots think
off the request path: the person's answer is the first part alone. Run from the repository
root::

    .venv/bin/python -m tests.benchmarks.bot_games [--games 20] [--levels random greedy expert]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time

from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from hanafuda_referee.botworkers.deciding import decide_turn
from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.bot_turns import BotDecision
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.moves import Move
from hanafuda_referee.store import MemoryStore

LEVELS = {
    "none": play_pb2.BOT_LEVEL_UNSPECIFIED,
    "random": play_pb2.BOT_LEVEL_RANDOM,
    "greedy": play_pb2.BOT_LEVEL_GREEDY,
    "expert": play_pb2.BOT_LEVEL_EXPERT,
}


async def _decided(decision: BotDecision) -> Move:
    return decide_turn(decision)[0]


async def _after_the_bots(
    hosted: HostedGames, game: str, view: game_pb2.GameView
) -> game_pb2.GameView:
    """The game once its bots played, each turn as a bot worker plays it."""
    while view.HasField("bot_thinking_seat"):
        await hosted.play_bot_turn(game, view.version - 1, _decided)
        read = await hosted.get(service_pb2.GetGameRequest(game=game), Caller())
        view = read.message().view
    return view


async def _games(level: str, games: int) -> list[float]:
    """Seconds per request of ``games`` games against ``level`` (none: two persons, both
    played by this script)."""
    hosted = HostedGames(MemoryStore(), allow_testing=True)
    times: list[float] = []
    for number in range(games):
        request = service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI,
            players=["me", "bot"],
            seed=number + 1,
            bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, LEVELS[level]],
        )
        request.koi_koi.rounds = 1
        created = await hosted.create(request, Caller(address="192.0.2.1"))
        rng = random.Random(number)
        view = await _after_the_bots(hosted, created.game, created.view)
        while view.status != game_pb2.GAME_STATUS_OVER:
            caller = Caller(token=created.player_tokens[view.turn], address="192.0.2.1")
            own = await hosted.get(service_pb2.GetGameRequest(game=created.game), caller)
            moves = list(own.message().view.legal_moves)
            submit = service_pb2.SubmitMoveRequest(game=created.game, move=rng.choice(moves))
            start = time.perf_counter()
            reply = await hosted.submit(submit, caller)
            view = await _after_the_bots(hosted, created.game, reply.message().view)
            times.append(time.perf_counter() - start)
    return times


async def main(levels: list[str], games: int) -> None:
    print(
        f"command: {' '.join([sys.executable, '-m', 'tests.benchmarks.bot_games', *sys.argv[1:]])}"
    )
    print(f"{games} one-round Koi-Koi games per level, in process, memory store")
    print(f"{'bot':<8}{'requests':>9}{'per s':>9}{'median ms':>11}{'p95 ms':>9}")
    for level in ["none", *levels]:
        times = await _games(level, games)
        p95 = sorted(times)[int(0.95 * (len(times) - 1))]
        print(
            f"{level:<8}{len(times):>9}{len(times) / sum(times):>9.0f}"
            f"{statistics.median(times) * 1e3:>11.2f}{p95 * 1e3:>9.2f}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--levels", nargs="+", default=["random", "greedy", "expert"])
    args = parser.parse_args()
    asyncio.run(main(args.levels, args.games))
