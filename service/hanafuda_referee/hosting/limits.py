"""Per-client limits that keep one client from spoiling the service for the others (PLAY.md,
"Limits").

Every limit counts by the client :mod:`.identity` names (a verified API key, else an address,
an IPv6 address by its network): a header the referee does not check never makes a new client.
A creation passes, in this order, each of them cheaply before any work is done on it:

* an API key, when keys are configured (``API_KEY_REQUIRED``);
* the expert seats it asks for, at most so many per game (``TOO_MANY_EXPERT_SEATS``);
* the store's memory: above a share of its limit (Redis ``used_memory`` against ``maxmemory``,
  read at most once a second per process) no game is created (``STORE_FULL``), so that the
  room left goes to the games in progress, whose moves still commit, and nothing is evicted;
* :class:`CreationLimit`, a token bucket per client in the store, shared by every replica
  (``RATE_LIMITED`` with the wait);
* :class:`ClientLimits`: the unfinished games one client holds, and its unfinished games with
  bot seats (``TOO_MANY_GAMES``, ``TOO_MANY_BOT_GAMES``). The store keeps what each client holds
  (:mod:`hanafuda_referee.store.holdings`), so every replica counts the same; a game that
  expires stops counting by itself, and a game that is over stops counting when the client next
  reaches its limit (its games are then read, and those over are given back). The place is taken
  atomically once the game is stored (:meth:`Admitted.hold`), so two replicas racing for a
  client's last place cannot both take it: the one that loses deletes the game it stored, which
  nobody has heard of, and refuses.

>>> limit = CreationLimit(per_minute=30, burst=10)
>>> limit.per_second
0.5
>>> ClientLimits(unfinished_games=50, bot_games=5, expert_seats=2).expert_seats
2
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from hanafuda.v1 import play_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import RETRY_AFTER, ApiError
from hanafuda_referee.hosting.identity import ANONYMOUS, ClientIdentity
from hanafuda_referee.store import GameStore

__all__ = [
    "MEMORY_READING_SECONDS",
    "STORE_FULL_RETRY_SECONDS",
    "Admission",
    "Admitted",
    "ClientLimits",
    "CreationLimit",
]

#: How long a process keeps a reading of the store's memory before it asks again.
MEMORY_READING_SECONDS = 1.0
#: The wait a ``STORE_FULL`` refusal suggests: games must end or expire first.
STORE_FULL_RETRY_SECONDS = 30
#: A place is taken once its game is stored (:meth:`Admitted.hold`): a place whose game is not
#: stored is free at once.
_HOLD_GRACE_MS = 0


@dataclass(frozen=True, slots=True)
class CreationLimit:
    """At most ``burst`` games at once, then ``per_minute`` games a minute, per client."""

    per_minute: float
    burst: int

    def __post_init__(self) -> None:
        if not self.per_minute > 0 or self.burst < 1:
            raise ValueError("a creation limit needs a positive rate and a burst of at least 1")

    @property
    def per_second(self) -> float:
        return self.per_minute / 60

    async def check(self, store: GameStore, client: str) -> None:
        """Take one creation from ``client``'s bucket, or refuse with ``RATE_LIMITED`` and the
        whole seconds to wait (rounded up, at least 1), taking nothing."""
        wait = await store.take_token("create:" + client, self.per_second, self.burst)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise ApiError(
                "RATE_LIMITED",
                f"too many games created by this client: retry in {seconds} s",
                {RETRY_AFTER: str(seconds)},
            )


@dataclass(frozen=True, slots=True)
class ClientLimits:
    """What one client may hold (0: no limit): its unfinished games, those of them with bot
    seats, and the expert seats of one game."""

    unfinished_games: int = 50
    bot_games: int = 5
    expert_seats: int = 2

    def __post_init__(self) -> None:
        if min(self.unfinished_games, self.bot_games, self.expert_seats) < 0:
            raise ValueError("client limits must not be negative")


#: No limit on what a client holds.
NO_CLIENT_LIMITS = ClientLimits(0, 0, 0)


class Admission:
    """Whether a caller may create a game, and the places it then takes (module docstring).

    ``is_over`` says whether a stored game is over (or gone): the store cannot tell, and the
    games are read only when a client reaches one of its limits. ``memory_ceiling``: the share
    of the store's memory limit above which no game is created (1 or more: never)."""

    def __init__(
        self,
        store: GameStore,
        *,
        identity: ClientIdentity = ANONYMOUS,
        rate: CreationLimit | None = None,
        limits: ClientLimits = NO_CLIENT_LIMITS,
        memory_ceiling: float = 1.0,
        is_over: Callable[[str], Awaitable[bool]] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not memory_ceiling > 0:
            raise ValueError("the memory ceiling is a positive share of the store's limit")
        self.store = store
        self.identity = identity
        self.rate = rate
        self.limits = limits
        self.memory_ceiling = memory_ceiling
        self._is_over = is_over
        self._clock = clock
        self._memory: tuple[int, int] | None = None
        self._memory_read_at = -math.inf

    def check_key(self, caller: Caller) -> None:
        """Refuse a creation without one of the configured API keys (none configured: any
        caller may create)."""
        if self.identity.requires_key and self.identity.verified_key(caller) is None:
            raise ApiError("API_KEY_REQUIRED", "creating games needs an API key of this server")

    async def admit(self, request: service_pb2.CreateGameRequest, caller: Caller) -> Admitted:
        """Check a creation against every limit (module docstring) before any work is done on
        it: the places to take once its game id is drawn, or a refusal that changed nothing
        (but a token of the rate limit, which a refusal by a later check does not give back)."""
        self.check_key(caller)
        client = self.identity.client_of(caller)
        experts = sum(1 for level in request.bots if level == play_pb2.BOT_LEVEL_EXPERT)
        if self.limits.expert_seats and experts > self.limits.expert_seats:
            raise ApiError(
                "TOO_MANY_EXPERT_SEATS",
                f"at most {self.limits.expert_seats} expert seats in one game",
                {"limit": str(self.limits.expert_seats)},
            )
        await self._check_memory()
        if self.rate is not None:
            await self.rate.check(self.store, client)
        places: list[_Place] = []
        if self.limits.unfinished_games:
            places.append(_Place("games:" + client, self.limits.unfinished_games, "TOO_MANY_GAMES"))
        if self.limits.bot_games and any(request.bots):
            places.append(_Place("bots:" + client, self.limits.bot_games, "TOO_MANY_BOT_GAMES"))
        for place in places:
            await self._check_place(place)
        return Admitted(self, tuple(places))

    async def _check_memory(self) -> None:
        now = self._clock()
        if now - self._memory_read_at >= MEMORY_READING_SECONDS:
            # Noted before the read: the requests meanwhile use the last reading.
            self._memory_read_at = now
            self._memory = await self.store.memory_use()
        use = self._memory
        if use is not None and use[0] >= self.memory_ceiling * use[1]:
            raise ApiError(
                "STORE_FULL",
                "the game store is nearly full: no new game until games end; "
                f"retry in {STORE_FULL_RETRY_SECONDS} s",
                {RETRY_AFTER: str(STORE_FULL_RETRY_SECONDS)},
            )

    async def _check_place(self, place: _Place) -> None:
        """Refuse when the client holds ``place.limit`` unfinished games of the kind; the games
        over among them are given back on the way."""
        held = await self.store.held_games(place.holder, _HOLD_GRACE_MS)
        if len(held) < place.limit:
            return
        over = await self._over(held)
        if over:
            await self.store.release_games(place.holder, over)
        if len(held) - len(over) >= place.limit:
            raise place.refusal()

    async def _over(self, game_ids: list[str]) -> list[str]:
        if self._is_over is None:
            return []
        done = await asyncio.gather(*(self._is_over(game_id) for game_id in game_ids))
        return [game_id for game_id, over in zip(game_ids, done, strict=True) if over]

    async def _hold(self, places: tuple[_Place, ...], game_id: str) -> None:
        taken: list[_Place] = []
        try:
            for place in places:
                if not await self.store.hold_game(place.holder, game_id, place.limit):
                    # Another creation of the client's took the last place meanwhile, or games
                    # over still hold places: count again, and try once more.
                    await self._check_place(place)
                    if not await self.store.hold_game(place.holder, game_id, place.limit):
                        raise place.refusal()
                taken.append(place)
        except ApiError:
            for place in taken:
                await self.store.release_games(place.holder, [game_id])
            raise


@dataclass(frozen=True, slots=True)
class _Place:
    """A kind of game a client holds at most ``limit`` of, under the store name ``holder``."""

    holder: str
    limit: int
    reason: str

    def refusal(self) -> ApiError:
        what = "games with bot seats" if self.reason == "TOO_MANY_BOT_GAMES" else "games"
        return ApiError(
            self.reason,
            f"this client holds {self.limit} unfinished {what}, as many as it may: "
            "finish or resign one first",
            {"limit": str(self.limit)},
        )


@dataclass(frozen=True, slots=True)
class Admitted:
    """A creation that passed :meth:`Admission.admit`: the places its game takes."""

    admission: Admission
    places: tuple[_Place, ...]

    async def hold(self, game_id: str) -> None:
        """Take the places of the game just stored (atomically on the store: a client's last
        place goes to one creation), or delete the game and refuse as :meth:`Admission.admit`
        does."""
        if self.places:
            try:
                await self.admission._hold(self.places, game_id)
            except ApiError:
                await self.admission.store.delete(game_id)
                raise
