"""The built-in bots' strength and speed: a script, not a test (pytest does not collect it).

Plays complete games between bot levels through the engines (PLAY.md, "Built-in bots"):

- Koi-Koi, ``greedy`` against ``random`` and ``expert`` against ``greedy``: the games of a pairing
  are spread over the presets, 40% on the default one (``fudawiki``) and 12% on each of the five
  others (exactly so in every 25 games, 400 of 1,000), the first dealer alternating; each game is
  played to its end (12 rounds, 8 under ``koikoi-japan``, or until a transfer game runs out).
  Prints the stronger level's win rate per preset and over all, with a 95% interval (Wilson's),
  draws apart.
- Hachi-Hachi (3 participants), ``greedy`` against two ``random`` seats and ``expert`` against two
  ``greedy`` seats: the stronger level's seat and the first dealer go round the table. Prints its
  mean balance per 12-round game in points, with a 95% interval.
- Each level's time per decision (median and 95th percentile), by the wall clock and by the
  process's CPU time (the steadier on a shared machine), over every decision of the games played.

The expert plays on its default budget (:class:`hanafuda_referee.bots.Budget`), unless
``--playouts`` says otherwise. Each finished game is appended to the JSON-lines file ``--out`` as
it ends; a run with an existing file skips the games recorded there, so the script can run in the
background, be stopped, and resume. ``--report`` prints the figures of the file without playing.
Run from the repository root::

    .venv/bin/python -m tests.benchmarks.bots --out bots.jsonl [--games 1000] [--jobs 2]
    .venv/bin/python -m tests.benchmarks.bots --out bots.jsonl --report
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hanafuda_referee.bots import Budget, Level, decide
from hanafuda_referee.hachihachi import game as hachihachi
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.view import view as hachihachi_view
from hanafuda_referee.koikoi import game as koikoi
from hanafuda_referee.koikoi.rules import DEFAULT_PRESET, PRESETS, KoiKoiRules
from hanafuda_referee.koikoi.view import view as koikoi_view

#: The pairings: (game, stronger level, weaker level).
PAIRINGS: tuple[tuple[str, Level, Level], ...] = (
    ("koikoi", Level.GREEDY, Level.RANDOM),
    ("koikoi", Level.EXPERT, Level.GREEDY),
    ("hachihachi", Level.GREEDY, Level.RANDOM),
    ("hachihachi", Level.EXPERT, Level.GREEDY),
)
_OTHER_PRESETS = tuple(name for name in PRESETS if name != DEFAULT_PRESET)
_HACHIHACHI_SEATS = 3


@dataclass(frozen=True)
class Game:
    """One game to play: its pairing, its number in the pairing, and how it is set."""

    game: str
    strong: Level
    weak: Level
    index: int
    preset: str
    first_dealer: int
    #: The stronger level's seat.
    seat: int

    @property
    def pairing(self) -> str:
        return f"{self.game}:{self.strong}-{self.weak}"

    @property
    def seed(self) -> int:
        return 1_000_003 * (PAIRINGS.index((self.game, self.strong, self.weak)) + 1) + self.index


def _preset_cycle() -> tuple[str, ...]:
    """25 games: 10 on the default preset (40%), 3 on each other one, each preset's games spread
    evenly over the cycle, so that any stretch of games covers every preset."""
    counts = {DEFAULT_PRESET: 10, **dict.fromkeys(_OTHER_PRESETS, 3)}
    spots = [((j + 0.5) / n, name) for name, n in counts.items() for j in range(n)]
    return tuple(name for _, name in sorted(spots))


_CYCLE = _preset_cycle()


def koikoi_preset(index: int) -> str:
    """The preset of a Koi-Koi pairing's game ``index``: 40% of the games on the default preset,
    12% on each other one (exactly so in every 25 games)."""
    return _CYCLE[index % len(_CYCLE)]


def schedule(games: int) -> Iterator[Game]:
    """Every game of every pairing, ``games`` per pairing, interleaved so that a partial run
    covers every pairing."""
    for index in range(games):
        for game, strong, weak in PAIRINGS:
            if game == "koikoi":
                yield Game(game, strong, weak, index, koikoi_preset(index), index % 2, 0)
            else:
                # The stronger seat and the first dealer go round the table, separately.
                seat = index % _HACHIHACHI_SEATS
                first = (index // _HACHIHACHI_SEATS) % _HACHIHACHI_SEATS
                yield Game(game, strong, weak, index, "fudawiki", first, seat)


def play(game: Game, budget: Budget) -> dict[str, Any]:
    """Play one game to its end; its record (the outcome and each level's decision times)."""
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    if game.game == "koikoi":
        rules = KoiKoiRules.from_preset(game.preset)
        state, _ = koikoi.new_game(rules, seed=game.seed, first_dealer=game.first_dealer)
        levels = [game.weak, game.weak]
        levels[game.seat] = game.strong
        while state.phase is not koikoi.Phase.OVER:
            seat = state.turn
            seen = koikoi_view(state, seat)
            move = _timed(times[levels[seat]], seen, levels[seat], game.seed + seat, budget)
            state, _ = koikoi.apply(state, seat, move)
        scores = state.scores
        mine, theirs = scores[game.seat], scores[1 - game.seat]
        outcome = "win" if mine > theirs else "draw" if mine == theirs else "loss"
        result: dict[str, Any] = {"scores": list(scores), "outcome": outcome}
    else:
        rules_hh = HachiHachiRules.from_preset(game.preset)
        hh, _ = hachihachi.new_game(
            rules_hh, seed=game.seed, participants=_HACHIHACHI_SEATS, first_dealer=game.first_dealer
        )
        levels = [game.weak] * _HACHIHACHI_SEATS
        levels[game.seat] = game.strong
        while hh.phase is not hachihachi.Phase.OVER:
            seat = hh.turn
            seen_hh = hachihachi_view(hh, seat)
            move = _timed(times[levels[seat]], seen_hh, levels[seat], game.seed + seat, budget)
            hh, _ = hachihachi.apply(hh, seat, move)
        result = {"balances_halves": list(hh.balances), "balance": hh.balances[game.seat] / 2}
    return {
        "pairing": game.pairing,
        "index": game.index,
        "preset": game.preset,
        "first_dealer": game.first_dealer,
        "seat": game.seat,
        "seed": game.seed,
        **result,
        # Wall and CPU milliseconds of each decision, by level.
        "times": {
            level: [[round(w, 3), round(c, 3)] for w, c in pairs] for level, pairs in times.items()
        },
    }


def _timed(
    into: list[tuple[float, float]],
    seen: Any,
    level: Level,
    seed: int,
    budget: Budget,
) -> Any:
    wall, cpu = time.perf_counter(), time.thread_time()
    move = decide(seen, level, seed, budget=budget)
    into.append((1000 * (time.perf_counter() - wall), 1000 * (time.thread_time() - cpu)))
    return move


def _play_one(args: tuple[Game, Budget]) -> dict[str, Any]:
    return play(*args)


def recorded(path: Path) -> list[dict[str, Any]]:
    """The records of a results file (none when it does not exist)."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        if line.strip():
            records.append(json.loads(line))
    return records


def wilson(wins: int, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a rate of ``wins`` in ``games``."""
    if not games:
        return (0.0, 1.0)
    z = 1.959964
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (centre - half, centre + half)


def mean_interval(values: list[float]) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its 95% interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.inf
    return mean, 1.959964 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def report(records: Iterable[dict[str, Any]]) -> list[str]:
    """The figures of ``records``, as lines to print."""
    by_pairing: dict[str, list[dict[str, Any]]] = defaultdict(list)
    times: dict[tuple[str, str], list[list[float]]] = defaultdict(list)
    for record in records:
        by_pairing[record["pairing"]].append(record)
        game = record["pairing"].split(":")[0]
        for level, pairs in record["times"].items():
            times[game, level].extend(pairs)
    lines = []
    for game, strong, weak in PAIRINGS:
        pairing = f"{game}:{strong}-{weak}"
        games = by_pairing.get(pairing, [])
        if not games:
            continue
        if game == "koikoi":
            lines.append(f"Koi-Koi, {strong} against {weak}: {strong}'s wins")
            presets = [DEFAULT_PRESET, *_OTHER_PRESETS, "all presets"]
            for preset in presets:
                chosen = [g for g in games if preset in ("all presets", g["preset"])]
                if not chosen:
                    continue
                wins = sum(g["outcome"] == "win" for g in chosen)
                draws = sum(g["outcome"] == "draw" for g in chosen)
                low, high = wilson(wins, len(chosen))
                lines.append(
                    f"  {preset:17} {wins:5} of {len(chosen):5} = {100 * wins / len(chosen):5.1f}%"
                    f"  (95%: {100 * low:5.1f}% to {100 * high:5.1f}%)  draws {draws}"
                )
        else:
            balances = [g["balance"] for g in games]
            mean, half = mean_interval(balances)
            lines.append(
                f"Hachi-Hachi, {strong} against two {weak}: {strong}'s balance per game "
                f"{mean:+.1f} points (95%: {mean - half:+.1f} to {mean + half:+.1f}) "
                f"over {len(games)} games"
            )
    lines.append("Time per decision, ms: median and 95th percentile, wall clock / CPU")
    for game in ("koikoi", "hachihachi"):
        for level in Level:
            pairs = times.get((game, level), [])
            if not pairs:
                continue
            wall = [p[0] for p in pairs]
            cpu = [p[1] for p in pairs]
            lines.append(
                f"  {game:10} {level:7} {len(pairs):7} decisions  median "
                f"{statistics.median(wall):7.2f} / {statistics.median(cpu):7.2f}  p95 "
                f"{percentile(wall, 0.95):7.2f} / {percentile(cpu, 0.95):7.2f}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, required=True, help="the JSON-lines results file")
    parser.add_argument("--games", type=int, default=1000, help="games per pairing (1000)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once (1)")
    parser.add_argument("--playouts", type=int, help="the expert's play-outs (its default)")
    parser.add_argument("--report", action="store_true", help="print the file's figures only")
    args = parser.parse_args()
    print(
        "command: python -m tests.benchmarks.bots " + " ".join(sys.argv[1:]),
        f"\nPython {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores",
        flush=True,
    )
    if not args.report:
        done = {(r["pairing"], r["index"]) for r in recorded(args.out)}
        todo = [g for g in schedule(args.games) if (g.pairing, g.index) not in done]
        print(f"{len(done)} games recorded, {len(todo)} to play", flush=True)
        budget = Budget(playouts=args.playouts)
        work = [(game, budget) for game in todo]
        with args.out.open("a") as out:
            if args.jobs > 1:
                with multiprocessing.Pool(args.jobs) as pool:
                    for record in pool.imap_unordered(_play_one, work):
                        out.write(json.dumps(record) + "\n")
                        out.flush()
            else:
                for item in work:
                    out.write(json.dumps(_play_one(item)) + "\n")
                    out.flush()
    for line in report(recorded(args.out)):
        print(line)


if __name__ == "__main__":
    main()
