"""The clients' side of a failover: games played through several clients, every request retried
unchanged after ``UNAVAILABLE``, and every attempt timed, to tell what the outage was.

:class:`Table` sends each request through the next of its clients (HTTP and gRPC of two
processes, in turn) and again after each ``UNAVAILABLE``, a move with its request id, until it is
answered; any other refusal, or a request slower than :data:`FAST`, fails. :func:`play_game`
plays one game so, :func:`outage_of` reads the outage off the attempts. Used by
``test_cluster_failover.py`` and by ``tests/benchmarks/cluster.py``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from hanafuda.v1 import game_pb2, service_pb2

from .clients import Client, Refused, expected_status, submission
from .replay import Accepted

__all__ = [
    "FAST",
    "GIVE_UP",
    "PACE",
    "Attempt",
    "Outage",
    "Played",
    "Table",
    "creating",
    "outage_of",
    "play_game",
    "wait_moves",
]

#: Seconds between two moves of a game while it is paced (see :func:`play_game`).
PACE = 0.03
#: Seconds between two attempts of a request refused with UNAVAILABLE.
RETRY_PAUSE = 0.05
#: The longest a request may take, answered or refused: the store gives up on an operation after
#: 2 s (1 s without a reply on an open connection), plus slack for a loaded host.
FAST = 3.5
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


async def wait_moves(
    games: Sequence[Played],
    counts: Sequence[int],
    more: int,
    players: Sequence[asyncio.Task[None]] = (),
) -> None:
    """Wait until each game made ``more`` moves beyond ``counts`` (or ended); a failure of one
    of the games' ``players`` (their :func:`play_game` tasks) is raised at once."""
    deadline = time.monotonic() + GIVE_UP
    while not all(
        g.over or len(g.accepted) >= n + more for g, n in zip(games, counts, strict=True)
    ):
        for player in players:
            if player.done() and not player.cancelled() and player.exception() is not None:
                player.result()
        assert time.monotonic() < deadline, [len(g.accepted) for g in games]
        await asyncio.sleep(0.01)
