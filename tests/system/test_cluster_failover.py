"""Games played through two service processes over a Redis Cluster while a master fails over.

A cluster of three masters with a replica each runs on loopback ports (:mod:`.cluster`), and two
referee processes share it. Several games are played at once, each move through the next of
four clients (HTTP and gRPC of either process, in turn, so that consecutive requests of a game
go to different processes and transports). Meanwhile the master serving the first game is
failed over:

* gracefully, ``CLUSTER FAILOVER`` on its replica (a planned switch);
* or killed with SIGKILL (a crash), so the other nodes elect its replica after the node timeout.

Every request that fails is retried unchanged (a move with its request id) through the next
client until it is answered (the clients' side is :mod:`.failover`). What must hold:

* every refusal during the outage is ``UNAVAILABLE`` (HTTP 503, gRPC ``UNAVAILABLE``), and
  comes fast (the store bounds each operation): no other reason, no hang;
* no acknowledged move is lost or doubled: each game's log replays to exactly the moves the
  clients were told were accepted, version after version, and every move retried after an
  ``UNAVAILABLE`` is answered again, with its request id, with the very answer it got;
* every game resumes after the outage and is played to its end;
* neither process logs an error.

The outage (from a game's first refused request to its first success after the last refusal,
per game and over all) is printed: run with ``-s`` to see it. The graceful failover runs on a
cluster with a long node timeout, which it does not need, so that no node counts a live one
failed on a loaded machine; the kill needs the short one. ``tests/benchmarks/cluster.py``
measures the outage over several failovers.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hanafuda_referee.store.keys import KeySpace
from tests.service.conftest import seeded_request

from .clients import connect
from .cluster import (
    CALM_NODE_TIMEOUT_MS,
    CLUSTER_TOOLS,
    NODE_TIMEOUT_MS,
    FailoverCluster,
    replicated_cluster,
)
from .failover import GIVE_UP, Outage, Played, Table, creating, outage_of, play_game, wait_moves
from .processes import RefereeProcess
from .replay import assert_replays

pytestmark = pytest.mark.skipif(
    not CLUSTER_TOOLS, reason="redis-server and redis-cli are needed for a Redis Cluster"
)

#: Games played at once.
GAMES = 6
#: Rounds of each game: enough moves that every game is still in play after the outage.
ROUNDS = 6
#: Moves each game makes before its master is failed over.
BEFORE = 3
#: Moves each game makes after the failover (paced, so the games are in play across the
#: outage: ``failover.PACE``) before the games are played out at full speed.
AFTER = 3
#: The longest outage accepted: a killed master is replaced after the node timeout (1 s) and an
#: election (0.5 to 1.5 s); the rest is slack for a loaded host.
LONGEST_OUTAGE = 15.0


@pytest.fixture
def cluster(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FailoverCluster]:
    """The cluster, with the node timeout the test names (``indirect`` parametrization), by
    default the short one that a killed master needs."""
    timeout = getattr(request, "param", NODE_TIMEOUT_MS)
    with replicated_cluster(tmp_path / "cluster", timeout) as started:
        yield started


@pytest.fixture
def referees(
    tmp_path: Path, cluster: FailoverCluster
) -> Iterator[tuple[RefereeProcess, RefereeProcess]]:
    """Two service processes on the cluster, sharing one key prefix."""
    env = {"REDIS_URL": cluster.url, "HANAFUDA_KEY_PREFIX": "failover:"}
    with (
        RefereeProcess(tmp_path, env=env, name="referee-a") as first,
        RefereeProcess(tmp_path, env=env, name="referee-b") as second,
    ):
        yield first, second


async def play_through(
    processes: tuple[RefereeProcess, RefereeProcess],
    cluster: FailoverCluster,
    fail: Callable[[int], int],
    *,
    contained: bool,
) -> Outage:
    """Plays :data:`GAMES` games through both processes while ``fail`` fails over the master of
    the first game (given its port, it returns the promoted replica's once the cluster has
    settled); checks every game as the module docstring says, and returns the outage.
    ``contained``: only the games on that master may be refused."""
    async with connect(*processes) as clients:
        table = Table(clients)
        games = [Played(i, seeded_request(seed=7100 + i, rounds=ROUNDS)) for i in range(GAMES)]
        for played in games:
            created, _ = await table.send(played.index, "CreateGame", creating(played.request))
            played.game, played.tokens = created.game, list(created.player_tokens)
        master = cluster.master_of(KeySpace("failover:").game(games[0].game).game)
        on_master = [
            g.index
            for g in games
            if cluster.master_of(KeySpace("failover:").game(g.game).game) == master
        ]

        full_speed = asyncio.Event()
        rng = random.Random(30)
        tasks = [
            asyncio.create_task(play_game(table, g, full_speed, random.Random(rng.random())))
            for g in games
        ]
        try:
            await wait_moves(games, [0] * GAMES, BEFORE, tasks)
            since = time.monotonic()
            promoted = await asyncio.to_thread(fail, master)
            assert cluster.master_of(KeySpace("failover:").game(games[0].game).game) == promoted
            # Every game moves again once the cluster has settled, the moved master's included,
            # before they speed up.
            await wait_moves(games, [len(g.accepted) for g in games], AFTER, tasks)
            full_speed.set()
            async with asyncio.timeout(GIVE_UP):
                await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        outage = outage_of(table.attempts, since)
        retried = sum(len(g.retried) for g in games)
        print(
            f"\ngames on the failed master: {on_master}; moves answered after an UNAVAILABLE: "
            f"{retried}\n{outage.describe(since)}"
        )
        assert outage.seconds < LONGEST_OUTAGE, outage.describe(since)
        if contained:
            assert set(outage.per_game) <= set(on_master), (outage.per_game, on_master)

        for played in games:
            assert played.over
            # The log replays to exactly the acknowledged moves, read through each process.
            await assert_replays(
                clients[played.index % len(clients)],
                played.game,
                played.tokens,
                played.request,
                played.accepted,
            )
            # A move retried after UNAVAILABLE, sent once more with its request id anywhere,
            # gets the answer it got: it was made once, and that once is what was answered.
            for pending, token, answer in played.retried:
                for client in clients:
                    assert await client.submit_request(pending, token) == answer, client.label
    for process in processes:
        errors = [
            r
            for r in process.log_records()
            if r.get("outcome") == "error" or r.get("level") in ("error", "critical")
        ]
        assert not errors, errors[:3]
    return outage


@pytest.mark.parametrize("cluster", [CALM_NODE_TIMEOUT_MS], indirect=True)
async def test_a_graceful_failover_loses_no_move_and_every_game_resumes(
    cluster: FailoverCluster, referees: tuple[RefereeProcess, RefereeProcess]
) -> None:
    outage = await play_through(referees, cluster, cluster.fail_over, contained=True)
    # The master stops taking writes only while its replica catches up and takes over.
    assert outage.seconds < 5.0


async def test_a_killed_master_loses_no_move_and_every_game_resumes(
    cluster: FailoverCluster, referees: tuple[RefereeProcess, RefereeProcess]
) -> None:
    def kill(master: int) -> int:
        promoted = cluster.kill(master)
        cluster.wait_master(promoted)
        return promoted

    # Once the other masters count the dead one failed, and until its replica is elected, every
    # node answers CLUSTERDOWN (a slot has no master: cluster-require-full-coverage, by
    # default): the other games are refused too for that moment.
    outage = await play_through(referees, cluster, kill, contained=False)
    # The first game's master was dead for the node timeout at least, while it was played.
    assert 0 in outage.per_game, "the killed master's game never saw it gone"
    assert outage.seconds >= 0.5
