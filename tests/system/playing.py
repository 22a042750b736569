"""Moves, and hosted games played through the transport clients with every accepted move
recorded.

:func:`play` draws its moves from the legal moves the seat on turn is shown, with a seeded random
choice, so a game with a given seed is played the same way on every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Sequence

from hanafuda.v1 import game_pb2, moves_pb2

from tests.service.conftest import cards

from .clients import Client
from .replay import Accepted

__all__ = [
    "CHOOSE",
    "KOIKOI",
    "PLAY",
    "SAGE",
    "SHOBU",
    "STOP",
    "after_the_bots",
    "move",
    "play",
]

PLAY, CHOOSE, KOIKOI, STOP, SHOBU, SAGE = (
    moves_pb2.MOVE_KIND_PLAY,
    moves_pb2.MOVE_KIND_CHOOSE_TARGET,
    moves_pb2.MOVE_KIND_KOIKOI,
    moves_pb2.MOVE_KIND_STOP,
    moves_pb2.MOVE_KIND_SHOBU,
    moves_pb2.MOVE_KIND_SAGE,
)


def move(kind: int, card: int = 0, target: int = 0) -> moves_pb2.Move:
    """A move of ``kind`` naming card numbers (0: none)."""
    return moves_pb2.Move(
        kind=moves_pb2.MoveKind.ValueType(kind), card=cards([card])[0], target=cards([target])[0]
    )


async def after_the_bots(
    client: Client,
    game: str,
    token: str | None,
    known: game_pb2.GameView,
    *,
    within: float = 30.0,
) -> game_pb2.GameView:
    """The game once no bot is to act (a person's turn, or the end) as ``token``'s seat sees
    it: ``known`` itself when no bot is thinking in it, else the first view without one that a
    watch from ``known``'s version shows (bots move off the request path, in bot workers)."""
    if not known.HasField("bot_thinking_seat"):
        return known
    async with (
        asyncio.timeout(within),
        contextlib.aclosing(client.watch(game, token, from_version=known.version)) as items,
    ):
        async for item in items:
            if not item.view.HasField("bot_thinking_seat"):
                return item.view
    raise AssertionError("the watch ended with a bot still thinking")


async def play(
    clients: Sequence[Client],
    game: str,
    tokens: Sequence[str],
    accepted: list[Accepted],
    *,
    moves: int | None = None,
    rng: random.Random | None = None,
) -> game_pb2.GameView:
    """Plays ``moves`` moves (all, until the game ends, when None), each conditional on the
    version read just before, through the clients in turn; appends them to ``accepted`` and
    returns the last view the mover saw."""
    rng = rng or random.Random(0)
    view = await clients[0].view(game)
    played = 0
    while view.status != game_pb2.GAME_STATUS_OVER and (moves is None or played < moves):
        client = clients[view.version % len(clients)]
        seat = view.turn
        own = await client.view(game, tokens[seat])
        chosen = rng.choice(list(own.legal_moves))
        answer = await client.submit(game, chosen, tokens[seat], expected_version=own.version)
        assert answer.version == own.version + 1, client.label
        accepted.append(Accepted(seat, chosen, answer))
        view = answer.view
        played += 1
    return view
