"""The bots' benchmark script still runs, records each game and resumes where it stopped.

Not a timed test, nor a strength test: a handful of games on a tiny budget.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.benchmarks.bots import koikoi_preset, schedule, wilson
from tests.benchmarks.scripts import run_script


def _run(out: Path, *args: str) -> str:
    return run_script("bots", "--out", str(out), *args)


def test_the_script_records_every_pairing_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "bots.jsonl"
    first = _run(out, "--games", "1", "--playouts", "8")
    assert "0 games recorded, 4 to play" in first
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["pairing"] for r in records) == [
        "hachihachi:expert-greedy",
        "hachihachi:greedy-random",
        "koikoi:expert-greedy",
        "koikoi:greedy-random",
    ]
    assert all(r["times"] for r in records)
    again = _run(out, "--games", "1", "--playouts", "8")
    assert "4 games recorded, 0 to play" in again
    assert len(out.read_text().splitlines()) == 4
    report = _run(out, "--report")
    assert "Koi-Koi, expert against greedy" in report
    assert "Hachi-Hachi, greedy against two random" in report
    assert "Time per decision" in report


def test_the_games_are_spread_as_play_md_asks() -> None:
    presets = [koikoi_preset(i) for i in range(1000)]
    assert presets.count("fudawiki") == 400
    assert {presets.count(name) for name in set(presets) - {"fudawiki"}} == {120}
    assert len({koikoi_preset(i) for i in range(10)}) == 6  # a short run covers every preset
    koikoi = [g for g in schedule(10) if g.game == "koikoi"]
    assert [g.first_dealer for g in koikoi[:4]] == [0, 0, 1, 1]
    hachihachi = [g for g in schedule(9) if g.game == "hachihachi" and g.strong == "expert"]
    assert {(g.seat, g.first_dealer) for g in hachihachi} == {
        (s, d) for s in range(3) for d in range(3)
    }


def test_the_interval_holds_the_rate() -> None:
    low, high = wilson(90, 100)
    assert 0.82 < low < 0.9 < high < 0.95
