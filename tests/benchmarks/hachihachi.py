"""Hachi-Hachi engine throughput on one core: a script, not a test (pytest does not collect it).

Prints the median, over several runs, of full random Hachi-Hachi rounds per second through the
engine (``new_game`` + ``legal_moves`` + ``apply``), by the wall clock and by this process's CPU
time: each round is dealt, its teyaku declared and paid, then played by random legal moves
(join/drop, plays, targets, sage/shōbu) to its end. One figure with 3 participants, one with 4 to
6 (the drop phase and the shuffle of the dropped hands included). A baseline measured in the same
run (``random.Random.shuffle`` of a 48-card list) gives machine-independent ratios. Run from
the repository root::

    .venv/bin/python tests/benchmarks/hachihachi.py [--rounds 300] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

from hanafuda_referee.hachihachi.game import Phase, apply, legal_moves, new_game
from hanafuda_referee.hachihachi.rules import HachiHachiRules

SHUFFLES = 10_000


def random_rounds(rounds: int, seed: int, participants: Callable[[int], int]) -> int:
    """Play ``rounds`` one-round games with random legal moves; return the rounds played.

    Game ``i`` has seed ``seed + i``, ``participants(i)`` seats and seat 0 as first dealer.
    """
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": 1})
    rng = random.Random(seed)
    choice = rng.choice
    for i in range(rounds):
        state, _ = new_game(rules, seed + i, participants(i), first_dealer=0)
        while state.phase is not Phase.OVER:
            state, _ = apply(state, state.turn, choice(legal_moves(state)))
    return rounds


def rate(work: Callable[[], int], runs: int) -> tuple[float, float]:
    """The medians over ``runs`` of items per second, ``work`` returning how many it did: by the
    wall clock, and by this process's CPU time (steadier on a shared machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        done = work()
        wall.append(done / (time.perf_counter() - start))
        cpu.append(done / (time.process_time() - start_cpu))
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=300, help="rounds per timed run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs, seed, rounds = args.runs, args.seed, args.rounds

    # One core: the figures are per core, and a second core would only add noise.
    core = None
    if hasattr(os, "sched_setaffinity"):
        core = max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})

    def shuffles() -> int:
        rng = random.Random(seed)
        deck = list(range(1, 49))
        for _ in range(SHUFFLES):
            rng.shuffle(deck)
        return SHUFFLES

    def three() -> int:
        return random_rounds(rounds, seed, lambda i: 3)

    def four_to_six() -> int:
        return random_rounds(rounds, seed, lambda i: 4 + i % 3)

    baseline, baseline_cpu = rate(shuffles, runs)
    figures = [
        ("full random rounds/s, 3 participants", rate(three, runs)),
        ("full random rounds/s, 4-6 participants (drop phase)", rate(four_to_six, runs)),
    ]
    print(f"command: {sys.executable} {' '.join(sys.argv)}")
    print(f"python:  {platform.python_implementation()} {sys.version.split()[0]} ({sys.platform})")
    print(f"{rounds} rounds per run; median of {runs} runs; pinned to core {core}")
    print(f"{'':55} {'wall clock':>12}   {'CPU time':>12}   ratio to the baseline (CPU)")
    print(
        f"{'baseline: shuffles/s (random.Random.shuffle, 48 cards)':55} "
        f"{baseline:12,.0f}   {baseline_cpu:12,.0f}"
    )
    for label, (wall, cpu) in figures:
        print(f"{label:55} {wall:12,.0f}   {cpu:12,.0f}   x{cpu / baseline_cpu:7.4f}")


if __name__ == "__main__":
    main()
