"""The expert's light Hachi-Hachi play-out against the engine: the same moves must pay the same.

Each check plays a round out with :func:`hachihachi_rollout.play_out`, recording its moves, then
makes those moves through the engine from the same state: every move must be legal there, the
engine's round must end with the last of them, and each seat's balance change must equal the
play-out's (dekiyaku, sage and overtaken payments, the card count, the end-of-round dekiyaku,
drop fees).
"""

from __future__ import annotations

import random
from collections import Counter

from hanafuda_referee.bots.hachihachi_rollout import Draws, play_out
from hanafuda_referee.hachihachi.events import RoundEnded
from hanafuda_referee.hachihachi.game import HachiHachiState, Phase, apply, legal_moves
from hanafuda_referee.moves import Move
from tests.bots.positions import hachihachi_positions


def _engine_deltas(state: HachiHachiState, moves: list[Move]) -> tuple[tuple[int, ...], str]:
    """Each seat's balance change when the engine takes ``moves`` from ``state`` (to the end of
    the round), and how the round ended."""
    ended: RoundEnded | None = None
    for i, move in enumerate(moves):
        assert ended is None, "the play-out went on after the engine's round ended"
        assert move in legal_moves(state), (i, move, legal_moves(state))
        state, events = apply(state, state.turn, move)
        ended = next((e for e in events if isinstance(e, RoundEnded)), None)
    assert ended is not None, "the engine's round did not end with the play-out's"
    return ended.balances, ended.result.outcome


def test_the_play_out_pays_what_the_engine_pays() -> None:
    rng = random.Random(5)
    outcomes: Counter[str] = Counter()
    checked = 0
    for state in hachihachi_positions(400, seed=31):
        if state.phase is Phase.DROP:
            continue
        moves = legal_moves(state)
        first = rng.choice(moves) if rng.random() < 0.5 else None
        record: list[Move] = []
        deltas = play_out(state, Draws([rng.random() for _ in range(96)]), first, record)
        if first is not None:
            assert record[0] == first
        balances, outcome = _engine_deltas(state, record)
        assert deltas == tuple(b - a for a, b in zip(state.balances, balances, strict=True))
        assert sum(deltas) == 0
        outcomes[outcome] += 1
        checked += 1
    assert checked > 250
    # Every way a round ends was played.
    assert set(outcomes) == {"count", "shobu", "overtaken"}, outcomes
