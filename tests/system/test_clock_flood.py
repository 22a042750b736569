"""Abandoned clock games cannot stall the clocks of the others (PLAY.md, "Bounded work").

Fifty games with the costliest clock options the API accepts (a 1-second clock, ten automatic
decisions in a row, an expert bot seat whose replies go to the bot queue) are left alone beside
one victim game between two people. The victim's timeout must land within 1.5 s of its deadline,
the sweeper's lag must stay small, and every abandoned game must end within its bounded number
of deadlines. A real referee process over the shared Redis.
"""

from __future__ import annotations

import asyncio
import re
import time
from contextlib import aclosing
from pathlib import Path

import httpx
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from .clients import Client, open_client
from .conftest import own_referee

ABANDONED = 50
MAX_AUTO = 10


def _abandoned() -> service_pb2.CreateGameRequest:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["gone", "expert"],
        bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_EXPERT],
    )
    request.koi_koi.rounds = 1
    request.clock.move_seconds = 1
    request.clock.max_auto_decisions = MAX_AUTO
    request.clock.timeout_bot = play_pb2.BOT_LEVEL_GREEDY
    return request


def _victim() -> service_pb2.CreateGameRequest:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"]
    )
    request.clock.move_seconds = 2
    request.clock.max_auto_decisions = MAX_AUTO
    return request


async def _first_timeout_at(client: Client, game: str) -> float:
    """The wall-clock time (Unix seconds) a spectator's stream shows the game's first timeout."""
    async with aclosing(client.watch(game, None)) as items:
        async for item in items:
            if any(e.HasField("decision_timed_out") for e in item.events):
                return time.time()
    raise AssertionError("the stream ended before any timeout")


def _lag(metrics_text: str) -> float:
    found = re.search(
        r"^hanafuda_deadline_sweep_lag_seconds(?:\{[^}]*\})? (\S+)$", metrics_text, re.M
    )
    assert found, "the sweeper's lag gauge is missing"
    return float(found.group(1))


async def test_fifty_abandoned_clock_games_do_not_delay_a_victims_timeout(tmp_path: Path) -> None:
    with own_referee(tmp_path, flags=["--bot-workers", "2"]) as referee:
        async with open_client("grpc", referee) as client:
            abandoned = [(await client.create(_abandoned())).game for _ in range(ABANDONED)]
            # Let the abandoned games pile up deadlines, then start the victim.
            await asyncio.sleep(3)
            victim = await client.create(_victim())
            deadline = victim.view.clock.deadline.ToMilliseconds() / 1000
            landed = await asyncio.wait_for(_first_timeout_at(client, victim.game), 10)
            assert landed - deadline <= 1.5, (
                f"the victim's timeout came {landed - deadline:.2f} s late"
            )
            lag = _lag(httpx.get(referee.http_url + "/metrics", timeout=10).text)
            assert lag < 1.5, f"the sweeper is {lag:.2f} s behind"

            # Every abandoned game ends, its absent seat after at most MAX_AUTO automatic
            # decisions (the next timeout resigns it) unless the round ended first.
            ends_by = time.monotonic() + 150
            pending = set(abandoned)
            while pending and time.monotonic() < ends_by:
                for game in list(pending):
                    if (await client.view(game)).status == game_pb2.GAME_STATUS_OVER:
                        pending.discard(game)
                await asyncio.sleep(1)
            assert not pending, f"{len(pending)} abandoned games still run"
            for game in abandoned:
                log = await client.log(game)
                timeouts = [e for e in log.events if e.HasField("decision_timed_out")]
                resigned = [e for e in log.events if e.HasField("resigned")]
                assert len(timeouts) <= MAX_AUTO, (game, len(timeouts))
                assert all(e.resigned.timed_out for e in resigned)
