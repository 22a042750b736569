"""The ``WatchGame`` stream of a hosted game: the current view (or the versions after a resume
point), then every new version, until the game ends or the caller goes away.

An async generator over :class:`~.games.WatchCursor`, in a module of its own: everything else
of the hosted games is compiled with mypyc (see setup.py), which compiles no async generator.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from hanafuda.v1 import service_pb2

from hanafuda_referee.api.caller import Caller
from hanafuda_referee.api.games import HostedGames, store_failures

__all__ = ["watch_game"]


async def watch_game(
    games: HostedGames, request: service_pb2.WatchGameRequest, caller: Caller
) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
    """``WatchGame`` on ``games``: see the contract. Refusals (an unknown game, a bad token, a
    resume point ahead of the game) come with the first item asked for."""
    cursor = await games.open_watch(request, caller)
    if cursor.first is not None:
        yield cursor.first
    if cursor.over:
        return
    with store_failures(cursor.game.game_id):
        entries = games.watch_entries(cursor)
        try:
            async for entry in entries:
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
