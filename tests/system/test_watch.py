"""Watching a game through real service processes: live across replicas, and resumable.

Four watchers follow one game, one per replica and transport (Server-Sent Events and gRPC), as
seats and as spectators. They disconnect, moves go on without them, and they resume from the
last version they received (``Last-Event-ID``, the ``fromVersion`` query parameter, gRPC
``from_version``); in the end each must have received every version exactly once, in order, with
exactly the events of the game's log as its viewer may see them.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from contextlib import aclosing

from hanafuda.v1 import game_pb2, service_pb2

from tests.service.conftest import seeded_request

from .clients import Client, HttpClient, connect
from .playing import play
from .processes import RefereeProcess
from .replay import Accepted, assert_replays

#: Seconds any single wait of these tests may take (far above what a healthy run needs).
WAIT = 30.0
#: The version at which every watcher first disconnects.
FIRST_STOP = 4
#: Moves made while every watcher is away.
MOVES_AWAY = 3
#: Versions each watcher receives per connection once moves flow on their own.
PER_CONNECTION = 3


class Follower:
    """Follows a game through one client, each new connection resuming after the last version
    received, until the service ends the stream (the game is over)."""

    def __init__(self, client: Client, game: str, seat: int | None, token: str | None):
        self.client = client
        self.game = game
        self.seat = seat
        self.token = token
        self.items: list[service_pb2.WatchGameResponse] = []
        self.connections = 0
        self.ended = False
        self.failure: BaseException | None = None
        self._changed = asyncio.Condition()

    @property
    def version(self) -> int:
        """The last version received (0 before any)."""
        return self.items[-1].version if self.items else 0

    async def connection(self, until: int | None = None) -> None:
        """One connection: from the current view the first time, else resuming after
        :attr:`version`; leaves after receiving version ``until`` or when the stream ends."""
        try:
            await self._connection(until)
        except BaseException as error:
            self.failure = error
            raise
        finally:
            async with self._changed:
                self._changed.notify_all()

    async def _connection(self, until: int | None) -> None:
        self.connections += 1
        from_version: int | None = None
        last_event_id: int | None = None
        if self.items:
            if isinstance(self.client, HttpClient) and self.connections % 2:
                # An EventSource reconnects to its original URL (any fromVersion it had) and
                # says how far it got in Last-Event-ID, which wins.
                last_event_id = self.version
                if self.connections % 4 == 1:
                    from_version = 0
            else:
                from_version = self.version
        if isinstance(self.client, HttpClient):
            stream = self.client.watch(
                self.game, self.token, from_version, last_event_id=last_event_id
            )
        else:
            stream = self.client.watch(self.game, self.token, from_version)
        # Leaving the block closes the stream: the connection ends there.
        async with aclosing(stream) as items:
            async for item in items:
                got, last = item.version, self.version
                # Every connection continues exactly where the previous one stopped.
                assert not self.items or got == last + 1, (self.client.label, last, got)
                self.items.append(item)
                async with self._changed:
                    self._changed.notify_all()
                if until is not None and item.version >= until:
                    return
        self.ended = True

    async def reach(self, version: int) -> None:
        """Waits until :attr:`version` is at least ``version``."""
        async with asyncio.timeout(WAIT), self._changed:
            await self._changed.wait_for(
                lambda: self.version >= version or self.failure is not None
            )
        if self.failure is not None:
            raise AssertionError(f"{self.client.label} failed") from self.failure

    async def to_the_end(self) -> None:
        """Reconnects every :data:`PER_CONNECTION` versions until the stream ends."""
        while not self.ended:
            await self.connection(until=self.version + PER_CONNECTION)


def assert_followed(
    follower: Follower, log: service_pb2.GetGameLogResponse, final: game_pb2.GameView
) -> None:
    """Every version from 1 exactly once, in order, each item's events those of the log (as
    the follower's viewer sees it) at that version, and the last view the final one."""
    label = follower.client.label
    versions = [item.version for item in follower.items]
    assert versions == list(range(1, final.version + 1)), (label, versions)
    assert not follower.items[0].events  # the first connection started from the current view
    received = [event for item in follower.items for event in item.events]
    assert received == [e for e in log.events if e.version >= 2], label
    for item in follower.items:
        assert item.view.version == item.version
        assert all(e.version == item.version for e in item.events)
        if follower.seat is None:
            assert not item.view.HasField("viewer_seat") and not item.view.hand
        else:
            assert item.view.viewer_seat == follower.seat
    assert follower.items[-1].view == final, label


async def test_watchers_resume_from_their_last_version_and_miss_nothing(
    referee_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    async with connect(*referee_pair) as clients:
        http_a, grpc_a, http_b, grpc_b = clients
        request = seeded_request(seed=9090, rounds=2)
        created = await http_b.create(request)
        game, tokens = created.game, list(created.player_tokens)
        followers = [
            Follower(http_a, game, None, None),
            Follower(grpc_a, game, 1, tokens[1]),
            Follower(http_b, game, 0, tokens[0]),
            Follower(grpc_b, game, None, None),
        ]
        on_a, on_b = followers[:2], followers[2:]
        accepted: list[Accepted] = []
        rng = random.Random(7)

        # Live: each move made on one replica reaches the watchers of both, one by one.
        first = [asyncio.create_task(f.connection(until=FIRST_STOP)) for f in followers]
        for follower in followers:
            await follower.reach(1)
        for version in range(2, FIRST_STOP + 1):
            movers: Sequence[Client] = (http_b, grpc_b) if version % 2 else (http_a, grpc_a)
            await play(movers, game, tokens, accepted, moves=1, rng=rng)
            for follower in on_a if movers[0] is http_b else on_b:
                await follower.reach(version)
        async with asyncio.timeout(WAIT):
            await asyncio.gather(*first)
        assert all(f.version == FIRST_STOP and not f.ended for f in followers)

        # Away: moves go on (on both replicas) while nobody watches.
        await play(clients, game, tokens, accepted, moves=MOVES_AWAY, rng=rng)

        # Back: every watcher resumes after FIRST_STOP and keeps dropping and resuming while
        # the rest of the game is played through both replicas and both transports.
        async with asyncio.timeout(WAIT * 2):
            *_, final = await asyncio.gather(
                *(f.to_the_end() for f in followers),
                play(clients, game, tokens, accepted, rng=rng),
            )
        assert isinstance(final, game_pb2.GameView)
        assert final.status == game_pb2.GAME_STATUS_OVER

        for follower in followers:
            assert follower.connections >= 3, (follower.client.label, follower.connections)
            viewer = follower.token
            own_final = await follower.client.view(game, viewer)
            assert own_final.version == final.version
            assert_followed(follower, await follower.client.log(game, viewer), own_final)
        await assert_replays(grpc_a, game, tokens, request, accepted)
