"""Abandoned clock games cannot stall the clocks of the others (PLAY.md, "Bounded work").

Fifty games stored with the clock options that stalled the clocks before they were bounded, above
where the API still accepts them (a 1-second clock, "never" resign, an expert taking the
timeouts, an expert bot seat: written into the store in the earlier format), and ten with the
costliest options the API accepts (ten automatic decisions in a row, a greedy timeout bot) are
left alone beside one victim game between two people. The victim's timeout must land within
1.5 s of its deadline, the sweeper's lag must stay small, and every abandoned game must end
within its bounded number of deadlines (the stored ones play under the nearest bounded options:
ten automatic decisions, a greedy timeout bot). A real referee process over the shared Redis.
"""

from __future__ import annotations

import asyncio
import re
import time
from contextlib import aclosing
from pathlib import Path

import httpx
import redis
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from hanafuda_referee.hosting.tokens import GameMeta
from hanafuda_referee.hosting.turns import ClockSettings
from hanafuda_referee.store.encoding import decode_record, encode_record
from hanafuda_referee.store.keys import KeySpace
from tests.legacy_meta import legacy_meta

from .clients import Client, open_client
from .conftest import redis_env
from .processes import RefereeProcess
from .shared_redis import SHARED_REDIS_URL, owned_prefix

#: Abandoned games stored with the earlier, unbounded options, and created with the API's worst.
STORED_BEFORE, API_WORST = 50, 10
MAX_AUTO = 10
#: What stalled the clocks: max_auto_decisions 0 ("never", in the earlier format) and an expert
#: taking each timeout's decision.
UNBOUNDED = ClockSettings(1_000, 0, False, 0, play_pb2.BOT_LEVEL_EXPERT)


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


def _store_as_before(prefix: str, game_id: str) -> None:
    """Rewrite the game's meta in the store as the earlier format with :data:`UNBOUNDED` clock
    settings, atomically against the referee's own commits (the record is rewritten whole)."""
    key = KeySpace(prefix).game(game_id).game
    with redis.Redis.from_url(SHARED_REDIS_URL) as client, client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(key)
                record = decode_record(pipe.lindex(key, 0))
                meta = legacy_meta(GameMeta.decode(record.meta), UNBOUNDED)
                pipe.multi()
                pipe.lset(key, 0, encode_record(record.version, meta, record.state))
                pipe.execute()
                return
            except redis.WatchError:
                continue


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
    with (
        owned_prefix() as prefix,
        RefereeProcess(tmp_path, env=redis_env(prefix), flags=["--bot-workers", "2"]) as referee,
    ):
        async with open_client("grpc", referee) as client:
            stored_before = [(await client.create(_abandoned())).game for _ in range(STORED_BEFORE)]
            for game in stored_before:
                _store_as_before(prefix, game)
            abandoned = stored_before + [
                (await client.create(_abandoned())).game for _ in range(API_WORST)
            ]
            # The stored games load, and show the options they now play under.
            shown = (await client.view(stored_before[0])).clock.options
            assert (shown.max_auto_decisions, shown.timeout_bot) == (
                MAX_AUTO,
                play_pb2.BOT_LEVEL_GREEDY,
            )
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
            ends_by = time.monotonic() + 180
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
