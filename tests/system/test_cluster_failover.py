"""Games played through two service processes over a Redis Cluster while a master fails over.

A cluster of three masters with a replica each runs on loopback ports (:mod:`.cluster`), and two
referee processes share it. Several games are played at once, each move through the next of
four clients (HTTP and gRPC of either process, in turn, so that consecutive requests of a game
go to different processes and transports). Meanwhile the master serving the first game is
failed over:

* gracefully, ``CLUSTER FAILOVER`` on its replica (a planned switch);
* or killed with SIGKILL (a crash), so the other nodes elect its replica after the node timeout.

Every request that fails is retried unchanged (a move with its request id) through the next
client until it is answered. What must hold:

* every refusal during the outage is ``UNAVAILABLE`` (HTTP 503, gRPC ``UNAVAILABLE``), and
  comes fast (the store bounds each operation): no other reason, no hang;
* no acknowledged move is lost or doubled: each game's log replays to exactly the moves the
  clients were told were accepted, version after version, and every move retried after an
  ``UNAVAILABLE`` is answered again, with its request id, with the very answer it got;
* every game resumes after the outage and is played to its end;
* neither process logs an error.

The outage (from the first failed request to the first success after it, per game and over all)
is printed: run with ``-s`` to see it. ``tests/benchmarks/cluster.py`` measures it over several
failovers.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest
from hanafuda.v1 import game_pb2, service_pb2

from hanafuda_referee.store.keys import KeySpace
from tests.service.conftest import seeded_request

from .clients import Client, Refused, connect, expected_status, submission
from .cluster import CLUSTER_TOOLS, FailoverCluster, replicated_cluster
from .processes import RefereeProcess
from .replay import Accepted, assert_replays

pytestmark = pytest.mark.skipif(
    not CLUSTER_TOOLS, reason="redis-server and redis-cli are needed for a Redis Cluster"
)

#: Games played at once.
GAMES = 6
#: Rounds of each game: enough moves that every game is still in play after the outage.
ROUNDS = 6
#: Moves each game makes before its master is failed over.
BEFORE = 3
#: Moves each game makes after the failover before the games are played out at full speed.
AFTER = 3
#: Seconds between two moves of a game until then, so the games are in play across the outage.
PACE = 0.03
#: Seconds between two attempts of a request refused with UNAVAILABLE.
RETRY_PAUSE = 0.05
#: The longest a request may take, answered or refused: the store gives up on an operation after
#: 2 s (1 s without a reply on an open connection), plus slack for a loaded host.
FAST = 3.5
#: The longest outage accepted: a killed master is replaced after the node timeout (1 s) and an
#: election (0.5 to 1.5 s); the rest is slack for a loaded host.
LONGEST_OUTAGE = 15.0
#: The longest any single request may be retried for before the test counts it a hang.
GIVE_UP = 30.0

_Result = TypeVar("_Result")


@dataclass
class Attempt:
    """One request sent: when, through which client, and how it ended (None: answered)."""

    game: int
    what: str
    client: str
    started: float
    ended: float
    refusal: Refused | None = None


@dataclass
class Played:
    """One game as its players saw it."""

    index: int
    request: service_pb2.CreateGameRequest
    game: str = ""
    tokens: list[str] = field(default_factory=list)
    accepted: list[Accepted] = field(default_factory=list)
    #: Moves answered only after at least one UNAVAILABLE: (request, token, answer).
    retried: list[tuple[service_pb2.SubmitMoveRequest, str, service_pb2.SubmitMoveResponse]] = (
        field(default_factory=list)
    )
    over: bool = False


class Table:
    """The clients, in the order requests rotate over them, and every attempt made."""

    def __init__(self, clients: Sequence[Client]) -> None:
        http_a, grpc_a, http_b, grpc_b = clients
        # Consecutive requests change process, and every other one transport too.
        self.clients = [http_a, grpc_b, grpc_a, http_b]
        self.attempts: list[Attempt] = []
        self._turn = 0

    def next_client(self) -> Client:
        self._turn += 1
        return self.clients[self._turn % len(self.clients)]

    async def send(
        self, game: int, what: str, call: Callable[[Client], Awaitable[_Result]]
    ) -> tuple[_Result, bool]:
        """``call`` through the next client, again through the next one after each
        ``UNAVAILABLE``, until it is answered; the answer, and whether it was retried. Any
        other refusal, or a request slower than :data:`FAST`, fails the test."""
        first = time.monotonic()
        retried = False
        while True:
            client = self.next_client()
            started = time.monotonic()
            try:
                result = await call(client)
            except Refused as refused:
                refusal = refused
            else:
                ended = time.monotonic()
                self.attempts.append(Attempt(game, what, client.label, started, ended))
                assert ended - started < FAST, (game, what, client.label, ended - started)
                return result, retried
            ended = time.monotonic()
            self.attempts.append(Attempt(game, what, client.label, started, ended, refusal))
            assert refusal.reason == "UNAVAILABLE", (game, what, client.label, refusal)
            assert refusal.status == expected_status(client.transport, "UNAVAILABLE")
            assert ended - started < FAST, (game, what, client.label, ended - started)
            assert ended - first < GIVE_UP, f"game {game}: {what} unavailable for too long"
            retried = True
            await asyncio.sleep(RETRY_PAUSE)


@dataclass(frozen=True)
class Outage:
    """The outage as the clients saw it."""

    #: game index -> (first failed attempt's start, first success's end after it).
    per_game: dict[int, tuple[float, float]]
    failures: int
    slowest_success: float

    @property
    def seconds(self) -> float:
        """From the first failed request to the last game's first success after its failures
        (0 when nothing failed)."""
        if not self.per_game:
            return 0.0
        start = min(first for first, _ in self.per_game.values())
        return max(end for _, end in self.per_game.values()) - start

    def describe(self, since: float) -> str:
        lines = [
            f"outage {self.seconds:.2f} s over {len(self.per_game)} game(s), "
            f"{self.failures} UNAVAILABLE answers, slowest answered request "
            f"{self.slowest_success:.2f} s"
        ]
        for game, (first, end) in sorted(self.per_game.items()):
            lines.append(
                f"  game {game}: unavailable from {first - since:+.2f} s to {end - since:+.2f} s "
                f"after the failover began ({end - first:.2f} s)"
            )
        return "\n".join(lines)


def outage_of(attempts: Sequence[Attempt], since: float) -> Outage:
    """Each game's outage: from its first failed request to its first success after the last
    one (a game refused, answered, then refused again is counted out all along); and the
    slowest request answered since ``since``."""
    per_game: dict[int, tuple[float, float]] = {}
    for game in {a.game for a in attempts}:
        mine = sorted((a for a in attempts if a.game == game), key=lambda a: a.started)
        failed = [a for a in mine if a.refusal is not None]
        if not failed:
            continue
        first = failed[0].started
        last = max(a.ended for a in failed)
        after = [a.ended for a in mine if a.refusal is None and a.ended >= last]
        assert after, f"game {game} was never answered again after its last failure"
        per_game[game] = (first, min(after))
    answered = [a.ended - a.started for a in attempts if a.refusal is None and a.ended >= since]
    failures = sum(1 for a in attempts if a.refusal is not None)
    return Outage(per_game, failures, max(answered, default=0.0))


def viewing(
    game: str, token: str | None = None
) -> Callable[[Client], Awaitable[game_pb2.GameView]]:
    """``GetGame`` as ``token``'s seat (a spectator without one), through a client."""
    return lambda client: client.view(game, token)


def submitting(
    request: service_pb2.SubmitMoveRequest, token: str
) -> Callable[[Client], Awaitable[service_pb2.SubmitMoveResponse]]:
    """``SubmitMove`` of this very request, through a client."""
    return lambda client: client.submit_request(request, token)


def creating(
    request: service_pb2.CreateGameRequest,
) -> Callable[[Client], Awaitable[service_pb2.CreateGameResponse]]:
    """``CreateGame``, through a client."""
    return lambda client: client.create(request)


async def play_game(
    table: Table, played: Played, full_speed: asyncio.Event, rng: random.Random
) -> None:
    """Plays ``played`` to its end: the seat on turn reads its view, then moves, with a request
    id and the version it read as expected; paced until ``full_speed`` is set."""
    index = played.index
    view: game_pb2.GameView = (await table.send(index, "GetGame", viewing(played.game)))[0]
    while view.status != game_pb2.GAME_STATUS_OVER:
        seat = view.turn
        token = played.tokens[seat]
        own, _ = await table.send(index, "GetGame", viewing(played.game, token))
        chosen = rng.choice(list(own.legal_moves))
        pending = submission(
            played.game,
            chosen,
            expected_version=own.version,
            request_id=f"move-{own.version}",
        )
        answer, retried = await table.send(index, "SubmitMove", submitting(pending, token))
        assert answer.version == own.version + 1, (index, own.version, answer.version)
        played.accepted.append(Accepted(seat, chosen, answer))
        if retried:
            played.retried.append((pending, token, answer))
        view = answer.view
        if not full_speed.is_set():
            await asyncio.sleep(PACE)
    played.over = True


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[FailoverCluster]:
    with replicated_cluster(tmp_path / "cluster") as started:
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


async def wait_moves(games: Sequence[Played], counts: Sequence[int], more: int) -> None:
    """Wait until each game made ``more`` moves beyond ``counts`` (or ended)."""
    deadline = time.monotonic() + GIVE_UP
    while not all(
        g.over or len(g.accepted) >= n + more for g, n in zip(games, counts, strict=True)
    ):
        assert time.monotonic() < deadline, [len(g.accepted) for g in games]
        await asyncio.sleep(0.01)


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
            await wait_moves(games, [0] * GAMES, BEFORE)
            since = time.monotonic()
            before = [len(g.accepted) for g in games]
            promoted = await asyncio.to_thread(fail, master)
            assert cluster.master_of(KeySpace("failover:").game(games[0].game).game) == promoted
            # Every game moves again, the moved master's included, before they speed up.
            await wait_moves(games, before, AFTER)
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
