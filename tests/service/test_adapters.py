"""The game adapters' replay step: ``advance`` gives the state ``apply`` gives, and refuses what
``apply`` refuses, over whole random games of each kind."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hanafuda.v1 import rules_pb2, service_pb2

from hanafuda_referee.hosting.adapter import GameAdapter
from hanafuda_referee.hosting.kinds import adapter_for
from hanafuda_referee.moves import Move

from .test_hachihachi_games import request as hachihachi_request

#: (label, creation request) of the games played.
GAMES = [
    (
        "koikoi",
        service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI,
            players=["a", "b"],
            koi_koi=rules_pb2.KoiKoiRules(rounds=3),
        ),
    ),
    ("hachihachi-3", hachihachi_request(3, seed=0)),
    ("hachihachi-5", hachihachi_request(5, seed=0)),
]


def _mover(adapter: GameAdapter[Any], state: Any) -> tuple[int, list[Move]]:
    """The seat to act and its legal moves."""
    for seat in range(adapter.seat_count(state)):
        moves = adapter.legal_moves(state, seat)
        if moves:
            return seat, moves
    raise AssertionError("nobody may move in a game not over")


@pytest.mark.parametrize(("label", "request_"), GAMES, ids=[label for label, _ in GAMES])
@pytest.mark.parametrize("seed", [1, 2])
def test_advance_gives_the_state_apply_gives(
    label: str, request_: service_pb2.CreateGameRequest, seed: int
) -> None:
    adapter = adapter_for(request_.kind)
    state, _ = adapter.new_game(request_, seed, [])
    rng = random.Random(seed)
    played = 0
    while not adapter.is_over(state):
        seat, moves = _mover(adapter, state)
        move = rng.choice(moves)
        after, blobs = adapter.apply(state, seat, move)
        assert blobs
        assert adapter.advance(state, seat, move) == after, (label, played)
        # The same move by a seat that may not move now is refused alike.
        other = (seat + 1) % adapter.seat_count(state)
        if not adapter.legal_moves(state, other):
            with pytest.raises(Exception) as by_apply:  # noqa: PT011 - compared below
                adapter.apply(state, other, move)
            with pytest.raises(type(by_apply.value)) as by_advance:
                adapter.advance(state, other, move)
            assert str(by_advance.value) == str(by_apply.value)
        state = after
        played += 1
    assert played > 20
