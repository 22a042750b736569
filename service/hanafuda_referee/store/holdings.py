"""What one client holds (PLAY.md, "Limits"): the games a holder created, kept per holder so that
every replica on one store counts the same.

A holder (a name of the caller's: a client, or a client's games with bot seats) holds a set of
game ids, each with the time it was held. :meth:`~.contract.GameStore.hold_game` adds one only
while the holder holds fewer than a limit, atomically, so two replicas racing for a client's last
place cannot both take it. :meth:`~.contract.GameStore.held_games` lists the ids whose games are
still stored, and drops the others as it goes: a game that expires (or is deleted) stops counting
without anybody calling. A game that is over is still stored (for its view and its log), so the
store cannot tell it from one in play: the caller, who can, gives its ids back with
:meth:`~.contract.GameStore.release_games`.

A caller that holds a place just before it creates the game can keep the ids of creations in
flight from being dropped: only ids held at least a grace period ago are dropped (the service
holds after the creation, with no grace).

On Redis a holder is a sorted set (id -> the Redis time it was held, in milliseconds) under
``<prefix>held:<holder>``, which expires an idle time after its last hold: then no game it holds
can be in play, unless one was played for a whole idle time since (it stops counting then).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from .scripts import LuaScript
from .validation import check_game_id

__all__ = ["HOLD_GAME", "RELEASE_GONE", "HeldGames", "check_holder", "check_limit"]

_MAX_HOLDER_LENGTH = 200


def check_holder(holder: str) -> str:
    """Return ``holder`` if it can name a holder (1 to 200 printable characters, no braces:
    they would make a Redis Cluster hash tag), else raise :class:`ValueError`."""
    if not isinstance(holder, str) or not 0 < len(holder) <= _MAX_HOLDER_LENGTH:
        raise ValueError(f"a holder has 1 to {_MAX_HOLDER_LENGTH} characters")
    if not holder.isprintable() or "{" in holder or "}" in holder:
        raise ValueError("a holder is printable and has no braces")
    return holder


def check_limit(limit: int) -> int:
    """Return ``limit`` if it is a positive number of games, else raise :class:`ValueError`."""
    if not isinstance(limit, int) or limit < 1:
        raise ValueError("a holding limit is a positive number of games")
    return limit


#: KEYS: the holder's set. ARGV: game id, limit, the set's time to live (ms).
#: Returns 1 when the id is held (now, or already), 0 when the holder holds ``limit`` ids.
HOLD_GAME = LuaScript(
    "hold_game",
    """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
""",
)

#: KEYS: the holder's set. ARGV: grace (ms), then the ids whose games are gone.
#: Drops those of the ids held the grace ago or earlier; returns how many it dropped.
RELEASE_GONE = LuaScript(
    "release_gone",
    """
local t = redis.call('TIME')
local before = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - tonumber(ARGV[1])
local dropped = 0
for i = 2, #ARGV do
  local held = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if held and tonumber(held) <= before then
    dropped = dropped + redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return dropped
""",
)


class HeldGames:
    """The in-process store's holdings: holder -> {game id: clock time it was held}, in the
    order held. A holder's entry goes when it holds nothing."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._held: dict[str, dict[str, float]] = {}

    def hold(self, holder: str, game_id: str, limit: int) -> bool:
        """See :meth:`~.contract.GameStore.hold_game`."""
        check_game_id(game_id)
        held = self._held.setdefault(check_holder(holder), {})
        if game_id in held:
            return True
        if len(held) >= check_limit(limit):
            return False
        held[game_id] = self._clock()
        return True

    def held(self, holder: str, live: Callable[[str], bool], grace: float) -> list[str]:
        """See :meth:`~.contract.GameStore.held_games`; ``live`` says whether a game is
        stored."""
        held = self._held.get(check_holder(holder))
        if not held:
            return []
        before = self._clock() - grace
        stored = []
        for game_id, at in list(held.items()):
            if live(game_id):
                stored.append(game_id)
            elif at <= before:
                del held[game_id]
        if not held:
            del self._held[holder]
        return stored

    def release(self, holder: str, game_ids: Iterable[str]) -> None:
        """See :meth:`~.contract.GameStore.release_games`."""
        held = self._held.get(check_holder(holder))
        if held is None:
            return
        for game_id in game_ids:
            held.pop(game_id, None)
        if not held:
            del self._held[holder]
