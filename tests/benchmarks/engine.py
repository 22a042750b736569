"""Koi-Koi engine throughput on one core: a script, not a test (pytest does not collect it).

Prints, each the median of several runs: full random rounds per second through the engine
(``new_game`` + ``legal_moves`` + ``apply``) and through the fast play-out path
(``rollout.random_rounds``, deal included; and ``rollout.play_out`` alone from ready dealt
states), yaku-point scorings per second (``points_function``) and full breakdowns per second
(``score_stop``). A baseline measured in the same run (``random.Random.shuffle`` of a 48-card list)
gives machine-independent ratios. Run from the repository root::

    .venv/bin/python tests/benchmarks/engine.py [--preset fudawiki] [--runs 5]

The engine and the play-out path play the very same rounds (same deals, same choices), and the
script checks that their results agree before timing anything.
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

from hanafuda_referee.koikoi.events import RoundEnded
from hanafuda_referee.koikoi.game import KoiKoiState, apply, legal_moves, new_game
from hanafuda_referee.koikoi.rollout import Playout, play_out, random_chooser, random_rounds
from hanafuda_referee.koikoi.rules import PRESETS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import points_function, score_stop

#: Work per timed run, sized for a fraction of a second each on a slow core.
ENGINE_ROUNDS = 300
ROLLOUT_ROUNDS = 3_000
CAPTURE_SETS = 20_000
BREAKDOWNS = 3_000
SHUFFLES = 10_000


def engine_rounds(rules: KoiKoiRules, n: int, seed: int) -> list[Playout]:
    """The rounds of :func:`rollout.random_rounds`, played through the full engine: round ``i`` is
    the first of ``new_game(rules, seed + i, first_dealer=0)``, driven by the same chooser."""
    choose = random_chooser(random.Random(seed))
    # A one-round game: the engine would otherwise deal round 2 as it ends round 1, and the
    # round's result does not depend on the number of rounds.
    one_round = rules.with_overrides({"rounds": 1})
    out: list[Playout] = []
    for i in range(n):
        state, events = new_game(one_round, seed + i, first_dealer=0)
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


def rate(work: Callable[[], int], runs: int) -> float:
    """The median over ``runs`` of items per second, ``work`` returning how many it did."""
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        done = work()
        rates.append(done / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--preset", default="fudawiki", choices=sorted(PRESETS))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
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

    states = dealt_states(rules, ROLLOUT_ROUNDS, seed)

    def play_outs() -> int:
        choose = random_chooser(random.Random(seed))
        for state in states:
            play_out(state, choose)
        return len(states)

    captures = capture_sets(CAPTURE_SETS, seed)
    points = points_function(rules)

    def scorings() -> int:
        for captured in captures:
            points(captured, 1, 0)
        return len(captures)

    def breakdowns() -> int:
        for captured in captures[:BREAKDOWNS]:
            score_stop(rules, captured, 1, 1, 1, 7)
        return BREAKDOWNS

    baseline = rate(shuffles, runs)
    figures = [
        ("(a) full rounds/s, engine (new_game + legal_moves + apply)", rate(engine, runs)),
        (
            "(b) full rounds/s, rollout.random_rounds (deal + checks + play-out)",
            rate(rollout, runs),
        ),
        ("(b') play-outs/s, rollout.play_out from dealt states", rate(play_outs, runs)),
        ("(c) yaku-point scorings/s, points_function", rate(scorings, runs)),
        ("(d) full breakdowns/s, score_stop", rate(breakdowns, runs)),
    ]
    print(f"command: {sys.executable} {' '.join(sys.argv)}")
    print(f"python:  {platform.python_implementation()} {sys.version.split()[0]} ({sys.platform})")
    print(f"preset:  {args.preset}; median of {runs} runs; pinned to core {core}")
    print(f"baseline: {baseline:12,.0f} shuffles/s (random.Random.shuffle, 48-card list)")
    for label, value in figures:
        print(f"{label:70} {value:12,.0f}   x{value / baseline:7.3f} shuffles")


if __name__ == "__main__":
    main()
