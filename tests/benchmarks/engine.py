"""Koi-Koi engine throughput on one core: a script, not a test (pytest does not collect it).

Prints, each the median of several runs, by the wall clock and by this process's CPU time (the
steadier of the two on a shared machine), and each with the command that reproduces it alone:

- ``engine``: full random rounds per second through the engine (``new_game`` + ``legal_moves`` +
  ``apply``, immutable states and events);
- ``rounds``: the same rounds through the fast play-out path, ``rollout.random_rounds`` (the
  shuffle, the deal checks and the play-out); target 20,000/s;
- ``play-outs``: ``rollout.play_out`` alone, from states already dealt;
- ``scorings``: yaku-point scorings per second, ``points_function`` (the numeric path a
  simulation calls); target 1,000,000/s;
- ``breakdowns``: full breakdowns per second, ``score_stop`` (yaku with their cards).

A baseline measured in the same run (``random.Random.shuffle`` of a 48-card list) gives
machine-independent ratios. Run from the repository root::

    .venv/bin/python tests/benchmarks/engine.py [--preset fudawiki] [--runs 5] [--only rounds]

The engine and the play-out path play the very same rounds (same deals, same choices), and the
script checks that their results agree before timing anything.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

from hanafuda_referee.dealing import Deal, deal_from_deck, shuffled_deck
from hanafuda_referee.koikoi.events import RoundDealt, RoundEnded
from hanafuda_referee.koikoi.game import (
    FIELD_SIZE,
    HAND_SIZE,
    KoiKoiState,
    apply,
    legal_moves,
    new_game,
)
from hanafuda_referee.koikoi.rollout import Playout, play_out, random_chooser, random_rounds
from hanafuda_referee.koikoi.rules import PRESETS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import points_function, score_stop

#: Work per timed run, sized for a fraction of a second each on a slow core.
ENGINE_ROUNDS = 300
ROLLOUT_ROUNDS = 3_000
CAPTURE_SETS = 20_000
BREAKDOWNS = 3_000
SHUFFLES = 10_000

#: The figures the issue asks for, per second on one core.
TARGETS = {"rounds": 20_000, "scorings": 1_000_000}


def engine_rounds(rules: KoiKoiRules, n: int, seed: int) -> list[Playout]:
    """The rounds of :func:`rollout.random_rounds`, played through the full engine: one random
    source; each round is the first of a new game given the decks shuffled from it (one more
    when the engine's deal checks redeal), then driven by a random chooser on the same source."""
    rng = random.Random(seed)
    choose = random_chooser(rng)
    out: list[Playout] = []
    for _ in range(n):
        deals: list[Deal] = []
        while True:
            deals.append(deal_from_deck(shuffled_deck(rng), 2, HAND_SIZE, FIELD_SIZE))
            state, events = new_game(rules, seed, deals, first_dealer=0)
            # Past the prepared deals the engine shuffles its own: give it one more, start over.
            if sum(1 for e in events if isinstance(e, RoundDealt) and e.round == 1) <= len(deals):
                break
        while True:
            ended = [e for e in events if isinstance(e, RoundEnded)]
            if ended:
                out.append(Playout(ended[0].result, ended[0].scores))
                break
            moves = legal_moves(state)
            state, events = apply(state, state.turn, moves[choose(len(moves))])
    return out


def dealt_states(rules: KoiKoiRules, n: int, seed: int) -> list[KoiKoiState]:
    """``n`` games waiting for the first play of round 1 (deal checks off, so every deal plays)."""
    quiet = rules.with_overrides(
        {
            "field_four": "ignore",
            "field_pairs": "ignore",
            "hand_four": "ignore",
            "hand_pairs": "ignore",
        }
    )
    return [new_game(quiet, seed + i, first_dealer=0)[0] for i in range(n)]


def capture_sets(n: int, seed: int) -> list[int]:
    """``n`` random capture piles of 0 to 24 cards (a pile at a round's end holds about 16)."""
    rng = random.Random(seed)
    return [sum(1 << c for c in rng.sample(range(1, 49), rng.randint(0, 24))) for _ in range(n)]


def rate(work: Callable[[], int], runs: int) -> tuple[float, float]:
    """The medians over ``runs`` of items per second, ``work`` returning how many it did: by the
    wall clock, and by this process's CPU time."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        done = work()
        wall.append(done / (time.perf_counter() - start))
        cpu.append(done / (time.process_time() - start_cpu))
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--preset", default="fudawiki", choices=sorted(PRESETS))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--only",
        action="append",
        choices=["engine", "rounds", "play-outs", "scorings", "breakdowns"],
        help="time only this figure (repeatable); default: all",
    )
    args = parser.parse_args()
    runs, seed = args.runs, args.seed
    rules = KoiKoiRules.from_preset(args.preset)

    # One core: the figures are per core, and a second core would only add noise.
    core = None
    if hasattr(os, "sched_setaffinity"):
        core = max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})

    # The two paths must agree on what they time.
    if engine_rounds(rules, 200, seed) != random_rounds(rules, 200, seed):
        sys.exit("the engine and the play-out path disagree: not benchmarking")

    def shuffles() -> int:
        rng = random.Random(seed)
        deck = list(range(1, 49))
        for _ in range(SHUFFLES):
            rng.shuffle(deck)
        return SHUFFLES

    def engine() -> int:
        return len(engine_rounds(rules, ENGINE_ROUNDS, seed))

    def rollout() -> int:
        return len(random_rounds(rules, ROLLOUT_ROUNDS, seed))

    # Inputs are built when their figure is timed, not up front: thousands of live states on the
    # heap make every full garbage collection slower, which cost the other figures up to a third.
    @functools.cache
    def states() -> list[KoiKoiState]:
        return dealt_states(rules, ROLLOUT_ROUNDS, seed)

    def play_outs() -> int:
        choose = random_chooser(random.Random(seed))
        for state in states():
            play_out(state, choose)
        return len(states())

    @functools.cache
    def captures() -> list[int]:
        return capture_sets(CAPTURE_SETS, seed)

    points = points_function(rules)

    def scorings() -> int:
        for captured in captures():
            points(captured, 1, 0)
        return len(captures())

    def breakdowns() -> int:
        for captured in captures()[:BREAKDOWNS]:
            score_stop(rules, captured, 1, 1, 1, 7)
        return BREAKDOWNS

    figures = {
        "engine": ("full rounds/s, engine (new_game + legal_moves + apply)", engine),
        "rounds": ("full rounds/s, rollout.random_rounds (deal + checks + play)", rollout),
        "play-outs": ("play-outs/s, rollout.play_out from dealt states", play_outs),
        "scorings": ("yaku-point scorings/s, points_function", scorings),
        "breakdowns": ("full breakdowns/s, score_stop", breakdowns),
    }
    inputs: dict[str, Callable[[], object]] = {
        "play-outs": states,
        "scorings": captures,
        "breakdowns": captures,
    }
    chosen = args.only or list(figures)
    base_command = (
        f"{sys.executable} {sys.argv[0]} --preset {args.preset} --runs {runs} --seed {seed}"
    )
    print(f"command: {sys.executable} {' '.join(sys.argv)}")
    print(f"python:  {platform.python_implementation()} {sys.version.split()[0]} ({sys.platform})")
    print(f"preset:  {args.preset}; median of {runs} runs; pinned to core {core}")
    baseline, baseline_cpu = rate(shuffles, runs)
    print(f"{'':62} {'wall clock':>12}   {'CPU time':>12}   ratio to the baseline (CPU)")
    print(
        f"{'baseline: shuffles/s (random.Random.shuffle, 48 cards)':62} "
        f"{baseline:12,.0f}   {baseline_cpu:12,.0f}"
    )
    for key in chosen:
        label, work = figures[key]
        if key in inputs:
            inputs[key]()  # built untimed
        gc.collect()
        wall, cpu = rate(work, runs)
        states.cache_clear()
        verdict = ""
        if key in TARGETS:
            met = "met" if cpu >= TARGETS[key] else "NOT met"
            verdict = f"; target {TARGETS[key]:,}/s (CPU time): {met}"
        print(f"{label:62} {wall:12,.0f}   {cpu:12,.0f}   x{cpu / baseline_cpu:8.4f}")
        print(f"    reproduce: {base_command} --only {key}{verdict}")


if __name__ == "__main__":
    main()
