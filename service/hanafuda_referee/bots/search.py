"""The expert's search, the same for both games: flat Monte Carlo over sampled worlds, with
sequential halving.

Every candidate move still in the running is played in each world (common random numbers: the
same deal and random stream for all, so that their difference is the moves' and not the luck's).
The budget is spread over ``ceil(log2(n))`` phases; after each, the worse half of the candidates
is dropped, so that most play-outs go to telling the best moves apart rather than to confirming
that a poor one is poor. Some candidates have an outcome known without sampling (a stop, a
shōbu, a drop): they take part in the final comparison only. Ties go to the first candidate.

:func:`search` gives the decision and what it was taken on: every candidate's mean outcome and
the worlds it was played in (a hint shows them, a review prices a move by them);
:func:`best_move` is its decision alone. Both are the one search, so a hint is the decision the
bot takes.

>>> import random
>>> rng = random.Random(1)
>>> # Three moves worth 0, 1 and 2 on average, the known fourth worth 1.5.
>>> best_move(4, {3: 1.5}, rng.random, lambda world, i: i + world - 0.5, Budget(playouts=90))
2
>>> found = search(4, {3: 1.5}, random.Random(1).random, lambda world, i: i + world - 0.5,
...     Budget(playouts=90))
>>> found.best, found.samples, found.ranked()[:2]
(2, (15, 37, 37, 0), [2, 3])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, TypeVar

from hanafuda_referee.bots.budget import Budget

__all__ = ["CLOCK_EVERY", "Estimates", "best_move", "search"]

World = TypeVar("World")

#: Worlds between two readings of the clock.
CLOCK_EVERY = 4


class Estimates(NamedTuple):
    """What one search found: the index of the chosen candidate, and for every candidate (by
    index) its mean outcome and the worlds it was played in (0: its outcome is known without
    sampling)."""

    best: int
    means: tuple[float, ...]
    samples: tuple[int, ...]

    def ranked(self) -> list[int]:
        """The candidates' indexes, the chosen one first, then by mean (ties: the first). A
        candidate dropped early has its mean over fewer worlds: see :attr:`samples`."""
        return sorted(
            range(len(self.means)),
            key=lambda i: (i != self.best, -self.means[i], i),
        )


def best_move(
    count: int,
    known: Mapping[int, float],
    new_world: Callable[[], World],
    outcome: Callable[[World, int], float],
    budget: Budget,
    limit: int | None = None,
) -> int:
    """The index (in ``range(count)``) of the candidate with the best mean outcome: the
    decision of :func:`search`."""
    return search(count, known, new_world, outcome, budget, limit).best


def search(
    count: int,
    known: Mapping[int, float],
    new_world: Callable[[], World],
    outcome: Callable[[World, int], float],
    budget: Budget,
    limit: int | None = None,
) -> Estimates:
    """Every candidate's estimate, and the one with the best mean outcome among those still in
    the running at the end (and the known ones).

    ``known`` gives the outcome of the candidates that need no sampling; ``new_world()`` samples
    a world and ``outcome(world, i)`` plays candidate ``i`` out in it. At most ``limit`` (default:
    the budget's) play-outs, and no longer than the budget's clock allows.
    """
    remaining = [i for i in range(count) if i not in known]
    if not remaining:
        best = min(known, key=lambda i: (-known[i], i))
        return Estimates(best, tuple(known[i] for i in range(count)), (0,) * count)
    playouts = limit if limit is not None else budget.playouts or 1
    deadline = budget.deadline()
    begun = deadline - budget.seconds if deadline is not None and budget.seconds else 0.0
    totals = [0.0] * count
    worlds = [0] * count
    played = 0
    phases = max(1, (len(remaining) - 1).bit_length())
    for phase in range(phases):
        share = (playouts - played) // (phases - phase)
        # With a clock, each phase also has its share of the time.
        ends = begun + (deadline - begun) * (phase + 1) / phases if deadline is not None else None
        for n in range(max(1, share // len(remaining))):
            if n and n % CLOCK_EVERY == 0 and budget.expired(ends):
                break
            world = new_world()
            for i in remaining:
                totals[i] += outcome(world, i)
                worlds[i] += 1
            played += len(remaining)
        if phase == phases - 1 or budget.expired(deadline):
            break
        # The survivors have all played the same worlds: their totals compare as means do.
        ranked = sorted(remaining, key=lambda i: (-totals[i], i))
        remaining = sorted(ranked[: (len(ranked) + 1) // 2])
    means = {i: totals[i] / worlds[i] for i in remaining}
    means.update(known)
    best = min(means, key=lambda i: (-means[i], i))
    # The candidates dropped on the way keep the mean of the worlds they were played in.
    every = [
        known[i] if i in known else totals[i] / worlds[i] if worlds[i] else 0.0
        for i in range(count)
    ]
    return Estimates(best, tuple(every), tuple(worlds))
