"""The in-process benchmark script still runs, and measures games its process has never seen.

Not a timed test: it checks what the script replays and that it prints a figure, not how fast.
"""

from __future__ import annotations

import re

import pytest
from hanafuda.v1 import moves_pb2
from tests.benchmarks.move_path import record_elsewhere
from tests.benchmarks.scripts import run_script


@pytest.mark.parametrize(("kind", "seats"), [("koikoi", {0, 1}), ("hachihachi", {0, 1, 2})])
def test_each_slice_holds_other_games_recorded_to_their_end(kind: str, seats: set[int]) -> None:
    slices = record_elsewhere(2, 2, rng_seed=1, kind=kind)
    assert [[seed for seed, _ in games] for games in slices] == [[1, 2], [3, 4]]
    for games in slices:
        for _, moves in games:
            assert moves
            assert {seat for seat, _ in moves} == seats
            assert all(isinstance(move, moves_pb2.Move) for _, move in moves)


def _run(*args: str) -> str:
    return run_script("move_path", "--games", "2", "--runs", "1", *args)


def _microseconds(output: str) -> float:
    found = re.search(r"cpu ([0-9.]+)", output)
    assert found, output
    return float(found.group(1))


def test_the_script_replays_new_games_by_default() -> None:
    output = _run()
    assert "(new games each run)" in output
    assert _microseconds(output) > 0
    assert "--same-games" not in output


def test_same_games_replays_what_the_process_recorded() -> None:
    output = _run("--same-games")
    assert "(the same games each run)" in output
    assert _microseconds(output) > 0
    assert output.rstrip().endswith("--same-games")


def test_hachi_hachi_games_are_replayed_through_the_http_app() -> None:
    output = _run("--kind", "hachihachi", "--through", "http")
    assert "through the HTTP app" in output
    assert _microseconds(output) > 0
    assert "--kind hachihachi" in output
