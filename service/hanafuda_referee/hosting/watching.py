"""The ``WatchGame`` stream of a hosted game: the current view (or the versions after a resume
point), then every new version, until the game ends or the caller goes away.

An async generator over :class:`~.games.WatchCursor`, which holds where the stream stands; the
generator only reads, waits and yields.

:class:`WatcherSlots` bounds how many streams a process follows at once, in all, per game and
per client. Watching needs no token, and a stream holds a socket, its buffers and a task for as
long as the client likes: with no bound, a few thousand idle spectators would take the process's
file descriptors, and with them its Redis connections and every other client's requests.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Iterator
from typing import Any

from hanafuda.v1 import service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.games import HostedGames, WatchCursor, store_failures
from hanafuda_referee.observability import metrics

__all__ = ["WatcherSlots", "watch_game"]


class WatcherSlots:
    """The ``WatchGame`` streams a process follows, and the most it may follow.

    Spectators' streams are bounded three ways: ``limit`` in all (0: no limit), ``per_game`` for
    one game and ``per_client`` from one client (as :mod:`.identity` names it: its network
    address, an IPv6 address by its network, or a verified API key). A seat's own streams (a
    valid token) count in :attr:`open` but never against those bounds, so spectators cannot
    lock a player out of following a game; they have a bound of their own, ``per_seat`` streams
    for one seat of one game (several tabs or devices, not thousands). A stream over a bound is
    refused with ``UNAVAILABLE`` (503), whose metadata ``limit`` names the bound: a client
    retries later, or on another replica.

    >>> slots = WatcherSlots(1)
    >>> with slots.slot("g1", None, "192.0.2.1"), slots.slot("g1", 0, "192.0.2.1"):
    ...     slots.open
    2
    >>> with slots.slot("g1", None, "192.0.2.1"), slots.slot("g2", None, "192.0.2.2"):
    ...     pass
    Traceback (most recent call last):
    ...
    hanafuda_referee.calls.errors.ApiError: too many watchers on this server; retry later
    >>> slots.open
    0
    """

    __slots__ = (
        "_by_client",
        "_by_game",
        "_by_seat",
        "limit",
        "open",
        "per_client",
        "per_game",
        "per_seat",
        "spectators",
    )

    def __init__(
        self, limit: int = 0, *, per_game: int = 0, per_client: int = 0, per_seat: int = 0
    ) -> None:
        if min(limit, per_game, per_client, per_seat) < 0:
            raise ValueError("a watcher limit cannot be negative")
        self.limit = limit
        self.per_game = per_game
        self.per_client = per_client
        self.per_seat = per_seat
        #: Every stream followed now; :attr:`spectators` of them without a seat.
        self.open = 0
        self.spectators = 0
        self._by_game: dict[str, int] = {}
        self._by_client: dict[str, int] = {}
        self._by_seat: dict[tuple[str, int], int] = {}

    def check_spectator(self, game_id: str, address: str) -> None:
        """Refuse a spectator's stream now if no slot would be free for it (before anything is
        read for it: a refusal must cost next to nothing)."""
        if self.limit and self.spectators >= self.limit:
            raise _full("too many watchers on this server", "max_watchers")
        if self.per_game and self._by_game.get(game_id, 0) >= self.per_game:
            raise _full("too many spectators of this game on this server", "watchers_per_game")
        if self.per_client and self._by_client.get(address, 0) >= self.per_client:
            raise _full("too many streams from this client on this server", "watchers_per_client")

    @contextlib.contextmanager
    def slot(self, game_id: str, seat: int | None, address: str) -> Iterator[None]:
        """Hold one slot for the ``with`` block: a spectator's (``seat`` None) or that seat's;
        or raise the refusal when none is free."""
        if seat is None:
            self.check_spectator(game_id, address)
            counts: list[tuple[dict[Any, int], Any]] = [
                (self._by_game, game_id),
                (self._by_client, address),
            ]
            self.spectators += 1
        else:
            key = (game_id, seat)
            if self.per_seat and self._by_seat.get(key, 0) >= self.per_seat:
                raise _full("too many streams of this seat on this server", "watchers_per_seat")
            counts = [(self._by_seat, key)]
        for table, name in counts:
            table[name] = table.get(name, 0) + 1
        self.open += 1
        metrics.WATCHERS.inc()
        try:
            yield
        finally:
            self.open -= 1
            metrics.WATCHERS.dec()
            if seat is None:
                self.spectators -= 1
            for table, name in counts:
                left = table[name] - 1
                if left:
                    table[name] = left
                else:
                    del table[name]  # the tables hold only what is open


def _full(what: str, limit: str) -> ApiError:
    return ApiError("UNAVAILABLE", f"{what}; retry later", {"limit": limit})


async def watch_game(
    games: HostedGames,
    request: service_pb2.WatchGameRequest,
    caller: Caller,
    slots: WatcherSlots | None = None,
) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
    """``WatchGame`` on ``games``: see the contract. Refusals (an unknown game, a bad token, a
    resume point ahead of the game, no free slot in ``slots``) come with the first item asked
    for. The stream holds its slot, a seat's or a spectator's, until it ends: when the game
    does, or with ``UNAVAILABLE`` when the server shuts down (:mod:`.closing`)."""
    cursor = await games.open_watch(request, caller)
    held = (
        contextlib.nullcontext()
        if slots is None
        else slots.slot(cursor.game.game_id, cursor.seat, games.identity.client_of(caller))
    )
    # Closed with this stream, not when collected: it holds the store's subscription.
    with held:
        async with contextlib.aclosing(_follow(games, cursor)) as items:
            async for item in items:
                yield item


async def _follow(
    games: HostedGames, cursor: WatchCursor
) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
    if cursor.first is not None:
        yield cursor.first
    if cursor.over:
        return
    with store_failures(cursor.game.game_id):
        entries = aiter(games.watch_entries(cursor))
        try:
            while True:
                # The server's shutdown ends the stream here, where it spends its time.
                try:
                    entry = await games.closing.interruptible(anext(entries))
                except StopAsyncIteration:
                    return
                item = cursor.advance(entry)
                if item is not None:
                    yield item
                if cursor.over:
                    return
        finally:
            # Stop the store's watcher now rather than when it is garbage collected.
            close = getattr(entries, "aclose", None)
            if close is not None:
                await close()
