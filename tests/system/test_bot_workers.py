"""Bot workers (PLAY.md, "Bots think off the request path") through real processes: referees,
the ``bot-workers`` command, Redis and the in-process store.

- A move that hands the turn to an expert seat is answered at once, at the move's own version,
  the view saying that the bot is thinking; the bot's move comes as the next version and reaches
  a watcher within its budget plus the queue's delay: both games, both transports.
- Referees with no worker of their own (``--bot-workers 0``): with no worker at all a bot's turn
  waits, the views say so and the queue's oldest turn grows older; ``bot-workers`` then plays it,
  and a worker killed with SIGKILL mid-game loses nothing: every turn is applied once.
- The in-process store with its embedded pool plays a whole game against an expert.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from .clients import TRANSPORTS, Client, open_client
from .conftest import own_referee, redis_env
from .playing import after_the_bots
from .processes import RefereeProcess

EXPERT = play_pb2.BOT_LEVEL_EXPERT
PERSON = play_pb2.BOT_LEVEL_UNSPECIFIED
#: The longest a bot's move may take to reach a watcher once the move before it was answered:
#: the expert's CPU cap (150 ms), the queue's delay and the commit, with room for a shared
#: two-core machine running the suite.
BOT_MOVE_WITHIN = 3.0


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """A referee on Redis with its embedded bot workers (the default)."""
    with own_referee(tmp_path_factory.mktemp("bot-workers")) as process:
        yield process


def _request(kind: int) -> service_pb2.CreateGameRequest:
    if kind == rules_pb2.GAME_KIND_KOI_KOI:
        request = service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI, players=["me", "bot"], bots=[PERSON, EXPERT], seed=5
        )
        request.koi_koi.rounds = 1
        return request
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI,
        players=["me", "bot-a", "bot-b"],
        bots=[PERSON, EXPERT, EXPERT],
        seed=5,
    )
    request.hachi_hachi.rounds = 1
    return request


async def _next_item(
    client: Client, game: str, token: str, after: int
) -> tuple[service_pb2.WatchGameResponse, float]:
    """The first watch item after version ``after`` and when it came (monotonic seconds)."""
    async with (
        asyncio.timeout(30),
        contextlib.aclosing(client.watch(game, token, from_version=after)) as items,
    ):
        async for item in items:
            return item, time.monotonic()
    raise AssertionError("the watch ended")


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    "kind", [rules_pb2.GAME_KIND_KOI_KOI, rules_pb2.GAME_KIND_HACHI_HACHI], ids=["koikoi", "hachi"]
)
async def test_a_move_is_answered_before_the_expert_moves(
    referee: RefereeProcess, transport: str, kind: int
) -> None:
    async with open_client(transport, referee) as client:
        created = await client.create(_request(kind))
        game, token = created.game, created.player_tokens[0]
        view = await after_the_bots(client, game, token, await client.view(game, token))
        rng = random.Random(3)
        handed_over = 0
        while view.status != game_pb2.GAME_STATUS_OVER and handed_over < 3:
            answer = await client.submit(
                game, rng.choice(list(view.legal_moves)), token, expected_version=view.version
            )
            answered = time.monotonic()
            # The answer is the move's own commit, with only the person's events in it.
            assert answer.version == view.version + 1
            assert all(e.actor == 0 for e in answer.events if e.HasField("actor"))
            if answer.view.HasField("bot_thinking_seat"):
                handed_over += 1
                bot = answer.view.bot_thinking_seat
                assert list(answer.view.bots)[bot] == EXPERT
                assert answer.view.turn == bot and not answer.view.legal_moves
                item, came = await _next_item(client, game, token, answer.version)
                assert item.version == answer.version + 1
                assert {e.actor for e in item.events if e.HasField("actor")} == {bot}
                assert came - answered < BOT_MOVE_WITHIN, came - answered
            view = await after_the_bots(client, game, token, answer.view)
        assert handed_over > 0


def _one_decision_per_version(log: service_pb2.GetGameLogResponse) -> None:
    """Every version of the log holds one seat's decision at most: no turn applied twice."""
    actors: dict[int, set[int]] = {}
    for event in log.events:
        if event.HasField("actor"):
            actors.setdefault(event.version, set()).add(event.actor)
    assert all(len(seats) == 1 for seats in actors.values()), actors


def _worker_pid(workers: RefereeProcess, seen: set[int]) -> int:
    """The process id of a bot worker process of ``workers`` not in ``seen``."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for record in workers.log_records():
            if record.get("event") == "bot worker serving" and record["pid"] not in seen:
                return int(record["pid"])
        time.sleep(0.1)
    raise AssertionError(f"no bot worker started:\n{workers.log_text()}")


async def test_external_workers_only(tmp_path: Path, key_prefix: str) -> None:
    env = redis_env(key_prefix)
    everyone = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], bots=[EXPERT, EXPERT], seed=8
    )
    everyone.koi_koi.rounds = 1
    with (
        RefereeProcess(tmp_path, env=env, flags=["--bot-workers", "0"], name="a") as first,
        RefereeProcess(tmp_path, env=env, flags=["--bot-workers", "0"], name="b") as second,
    ):
        async with open_client("grpc", first) as one, open_client("http", second) as other:
            created = await one.create(everyone)
            game = created.game
            # No worker anywhere: the turn waits, the views say so, the queue's oldest turn ages.
            assert created.view.bot_thinking_seat == created.view.turn
            await asyncio.sleep(2.5)
            waiting = await other.view(game)
            assert waiting.version == created.view.version
            assert waiting.bot_thinking_seat == created.view.turn
            # The gauge is sampled every 2 s: wait for a sample that saw the turn a second old.
            older = first.metric("hanafuda_bot_queue_oldest_seconds")
            for _ in range(20):
                if older >= 1.0:
                    break
                await asyncio.sleep(0.5)
                older = first.metric("hanafuda_bot_queue_oldest_seconds")
            assert older >= 1.0
            await asyncio.sleep(2.5)
            assert first.metric("hanafuda_bot_queue_oldest_seconds") > older
            assert (await other.view(game)).version == created.view.version

            with RefereeProcess(
                tmp_path, env=env, subcommand="bot-workers", name="workers"
            ) as workers:
                pid = _worker_pid(workers, set())
                # Let it play a few moves, then kill it, most likely mid-decision.
                deadline = time.monotonic() + 30
                while (await other.view(game)).version < created.view.version + 4:
                    assert time.monotonic() < deadline, workers.log_text()
                    await asyncio.sleep(0.05)
                os.kill(pid, signal.SIGKILL)
                # Its replacement, a new consumer, takes the turns on (the one in hand once the
                # reclaim time has passed).
                _worker_pid(workers, {pid})
                final = await after_the_bots(other, game, None, await other.view(game), within=60)
                assert final.status == game_pb2.GAME_STATUS_OVER
                assert workers.metric("hanafuda_bot_queue_depth") >= 0
                assert httpx.get(f"{workers.http_url}/healthz", timeout=5).status_code == 200
                # SIGTERM: the workers finish the turn in hand, the command exits cleanly.
                assert workers.stop() == 0
            log = await other.log(game, None)
            _one_decision_per_version(log)


async def test_the_in_process_store_plays_a_whole_game_against_an_expert(tmp_path: Path) -> None:
    with RefereeProcess(tmp_path, name="memory") as referee:
        async with open_client("http", referee) as client:
            created = await client.create(_request(rules_pb2.GAME_KIND_KOI_KOI))
            game, token = created.game, created.player_tokens[0]
            view = await after_the_bots(client, game, token, await client.view(game, token))
            rng = random.Random(1)
            while view.status != game_pb2.GAME_STATUS_OVER:
                assert view.turn == 0 and view.legal_moves
                answer = await client.submit(
                    game, rng.choice(list(view.legal_moves)), token, expected_version=view.version
                )
                view = await after_the_bots(client, game, token, answer.view)
            log = await client.log(game, token)
            assert any(e.HasField("actor") and e.actor == 1 for e in log.events)
            _one_decision_per_version(log)
        # Every turn finished: the queue's gauge (sampled every 2 s) comes down to 0.
        deadline = time.monotonic() + 10
        while referee.metric("hanafuda_bot_queue_depth") != 0:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.2)


async def test_serving_processes_share_one_pool_started_by_the_supervisor(
    tmp_path: Path, key_prefix: str
) -> None:
    everyone = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], bots=[EXPERT, EXPERT], seed=4
    )
    everyone.koi_koi.rounds = 1
    flags = ["--workers", "2", "--bot-workers", "1"]
    with RefereeProcess(tmp_path, env=redis_env(key_prefix), flags=flags) as referee:
        async with open_client("http", referee) as client:
            created = await client.create(everyone)
            final = await after_the_bots(client, created.game, None, created.view, within=60)
            assert final.status == game_pb2.GAME_STATUS_OVER
        serving = [r for r in referee.log_records() if r.get("event") == "bot worker serving"]
        assert len(serving) == 1, serving
        # The decisions of the pool's process are in the /metrics of every serving process.
        text = httpx.get(f"{referee.http_url}/metrics", timeout=5).text
        (count,) = re.findall(
            r'^hanafuda_bot_decisions_total\{level="expert"\} (\S+)$', text, flags=re.MULTILINE
        )
        assert float(count) > 0


def test_the_command_refuses_the_in_process_store(tmp_path: Path) -> None:
    workers = RefereeProcess(tmp_path, subcommand="bot-workers", name="alone")
    assert workers.exit_status_at_start() == 2
    assert "bot-workers needs Redis" in workers.log_text()
