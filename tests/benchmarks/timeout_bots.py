"""What a timeout's decision costs: the greedy bots' time per decision, a script, not a test.

The greedy bot is the turn clocks' timeout bot (PLAY.md, "Bounded work": a timeout costs what a
cheap bot's decision costs), run by the sweeper on the serving process's event loop. Times each
greedy bot over the positions of ``tests/bots/test_greedy_record.py`` (600 Koi-Koi and 600
Hachi-Hachi positions of random games under varied rules), ``--runs`` times; prints the median
over the runs of the mean time per decision and of the slowest decision. With ``--baseline
PATH`` (another checkout with a ``.venv`` of its own) the same positions are timed there too, in
the same run, alternating with this code, and the ratios are printed. Run from the repository
root::

    .venv/bin/python -m tests.benchmarks.timeout_bots [--runs 5] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _measure() -> dict[str, tuple[float, float]]:
    """One timing of each greedy bot here: (mean ms per decision, slowest decision's ms)."""
    from tests.bots.positions import hachihachi_positions, koikoi_positions

    from hanafuda_referee.bots import hachihachi_greedy, koikoi_greedy
    from hanafuda_referee.hachihachi.view import view as hachihachi_view
    from hanafuda_referee.koikoi.view import view as koikoi_view

    count, seed = 600, 20261128
    koikoi_views = [koikoi_view(s, s.turn) for s in koikoi_positions(count, seed)]
    hachihachi_views = [hachihachi_view(s, s.turn) for s in hachihachi_positions(count, seed)]
    figures = {}
    for name, choose, views in (
        ("koikoi", koikoi_greedy.choose, koikoi_views),
        ("hachihachi", hachihachi_greedy.choose, hachihachi_views),
    ):
        times = []
        for view in views:
            started = time.perf_counter()
            choose(view)  # type: ignore[arg-type]
            times.append(time.perf_counter() - started)
        figures[name] = (sum(times) / len(times) * 1000, max(times) * 1000)
    return figures


def _run_in(checkout: Path) -> dict[str, tuple[float, float]]:
    """One timing in a checkout (this one or another), by its own interpreter and code: this
    script's file runs there, since an older checkout may not have it."""
    done = subprocess.run(
        [str(checkout / ".venv" / "bin" / "python"), __file__, "--measure"],
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": str(checkout)},
        capture_output=True,
        text=True,
        check=True,
    )
    return {name: (mean, worst) for name, (mean, worst) in json.loads(done.stdout).items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timings of each code")
    parser.add_argument("--baseline", type=Path, help="another checkout, with a .venv")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure()))
        return
    codes = {"this code": ROOT}
    if args.baseline is not None:
        if not (args.baseline / ".venv" / "bin" / "python").exists():
            raise SystemExit(f"--baseline: no .venv in {args.baseline}")
        codes["baseline"] = args.baseline.resolve()
    timings: dict[str, list[dict[str, tuple[float, float]]]] = {name: [] for name in codes}
    for _ in range(args.runs):
        for name, checkout in codes.items():
            timings[name].append(_run_in(checkout))
    medians = {
        name: {
            kind: (
                statistics.median(run[kind][0] for run in runs),
                statistics.median(run[kind][1] for run in runs),
            )
            for kind in ("koikoi", "hachihachi")
        }
        for name, runs in timings.items()
    }
    for name, kinds in medians.items():
        for kind, (mean, worst) in kinds.items():
            print(
                f"{name}: greedy {kind}: {mean:.3f} ms per decision, slowest {worst:.2f} ms "
                f"(medians of {args.runs} runs)"
            )
    if "baseline" in medians:
        for kind in ("koikoi", "hachihachi"):
            old, new = medians["baseline"][kind][0], medians["this code"][kind][0]
            print(f"ratio baseline / this code, greedy {kind}: {old / new:.2f}x")
    print(
        "reproduce: .venv/bin/python -m tests.benchmarks.timeout_bots "
        f"--runs {args.runs}" + (f" --baseline {args.baseline}" if args.baseline else ""),
        file=sys.stdout,
    )


if __name__ == "__main__":
    main()
