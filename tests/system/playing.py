"""Playing hosted Koi-Koi games through the transport clients, recording every accepted move.

Moves are drawn from the legal moves the seat on turn is shown, with a seeded random choice, so
a game with a given seed is played the same way on every run.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2, service_pb2

from .clients import RefereeClient
from .replay import Accepted

__all__ = ["play", "seeded_request", "submission"]


def seeded_request(seed: int, rounds: int) -> service_pb2.CreateGameRequest:
    """A seeded Koi-Koi game of ``rounds`` rounds on the default preset."""
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["Ann", "Bob"],
        seed=seed,
        koi_koi=rules_pb2.KoiKoiRules(rounds=rounds),
    )


def submission(
    game: str, move: moves_pb2.Move, *, request_id: str = "", expected_version: int | None = None
) -> service_pb2.SubmitMoveRequest:
    """A ``SubmitMoveRequest`` of ``move`` (conditional when ``expected_version`` is given)."""
    request = service_pb2.SubmitMoveRequest(game=game, request_id=request_id)
    request.move.CopyFrom(move)
    if expected_version is not None:
        request.expected_version = expected_version
    return request


async def play(
    clients: Sequence[RefereeClient],
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
    view = await clients[0].get(game)
    played = 0
    while view.status != game_pb2.GAME_STATUS_OVER and (moves is None or played < moves):
        client = clients[view.version % len(clients)]
        seat = view.turn
        own = await client.get(game, tokens[seat])
        move = rng.choice(list(own.legal_moves))
        answer = await client.submit(
            submission(game, move, expected_version=own.version), tokens[seat]
        )
        assert answer.version == own.version + 1, client.label
        accepted.append(Accepted(seat, move, answer))
        view = answer.view
        played += 1
    return view
