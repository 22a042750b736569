"""The greedy bots decide as recorded: on 600 Koi-Koi and 600 Hachi-Hachi positions of random
games under varied rules, each greedy bot's choice equals the one in ``greedy_moves.json``.

The greedy bot is the timeout bot of the turn clocks, so the sweeper runs it on the event loop
(PLAY.md, "Bounded work") and it is kept fast; this record is what lets it be made faster without
deciding otherwise. A deliberate change of a greedy heuristic rewrites the record, from the
repository root::

    .venv/bin/python -m tests.bots.test_greedy_record --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hanafuda_referee.bots import hachihachi_greedy, koikoi_greedy
from hanafuda_referee.hachihachi.view import view as hachihachi_view
from hanafuda_referee.koikoi.view import view as koikoi_view
from hanafuda_referee.moves import Move
from tests.bots.positions import hachihachi_positions, koikoi_positions

RECORD = Path(__file__).with_name("greedy_moves.json")
#: Positions per game kind, and the seed of the random games they come from.
POSITIONS, SEED = 600, 20261128


def _written(move: Move) -> str:
    return f"{move.kind.name} {move.card} {move.target}"


def decisions() -> dict[str, list[str]]:
    """Each greedy bot's choice at each position, written ``KIND card target``."""
    return {
        "koikoi": [
            _written(koikoi_greedy.choose(koikoi_view(state, state.turn)))
            for state in koikoi_positions(POSITIONS, SEED)
        ],
        "hachihachi": [
            _written(hachihachi_greedy.choose(hachihachi_view(state, state.turn)))
            for state in hachihachi_positions(POSITIONS, SEED)
        ],
    }


def test_the_greedy_bots_decide_as_recorded() -> None:
    recorded = json.loads(RECORD.read_text())
    now = decisions()
    for kind in ("koikoi", "hachihachi"):
        assert len(now[kind]) == len(recorded[kind]) == POSITIONS
        changed = [
            i for i, (a, b) in enumerate(zip(now[kind], recorded[kind], strict=True)) if a != b
        ]
        assert not changed, f"{kind}: {len(changed)} decisions differ, first at {changed[:5]}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit(__doc__)
    RECORD.write_text(json.dumps(decisions(), indent=0) + "\n")
    print(f"wrote {RECORD}")
