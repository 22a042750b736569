"""The expert's search, the same for both games: flat Monte Carlo over sampled worlds, with
sequential halving.

Every candidate move still in the running is played in each world (common random numbers: the
same deal and random stream for all, so that their difference is the moves' and not the luck's).
The budget is spread over ``ceil(log2(n))`` phases; after each, the worse half of the candidates
is dropped, so that most play-outs go to telling the best moves apart rather than to confirming
that a poor one is poor. Some candidates have an outcome known without sampling (a stop, a
shōbu, a drop): they take part in the final comparison only. Ties go to the first candidate.

>>> import random
>>> rng = random.Random(1)
>>> # Three moves worth 0, 1 and 2 on average, the known fourth worth 1.5.
>>> best_move(4, {3: 1.5}, rng.random, lambda world, i: i + world - 0.5, Budget(playouts=90))
2
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from hanafuda_referee.bots.budget import Budget

__all__ = ["CLOCK_EVERY", "best_move"]

World = TypeVar("World")

#: Worlds between two readings of the clock.
CLOCK_EVERY = 4


def best_move(
    count: int,
    known: Mapping[int, float],
    new_world: Callable[[], World],
    outcome: Callable[[World, int], float],
    budget: Budget,
    limit: int | None = None,
) -> int:
    """The index (in ``range(count)``) of the candidate with the best mean outcome.

    ``known`` gives the outcome of the candidates that need no sampling; ``new_world()`` samples
    a world and ``outcome(world, i)`` plays candidate ``i`` out in it. At most ``limit`` (default:
    the budget's) play-outs, and no longer than the budget's clock allows.
    """
    remaining = [i for i in range(count) if i not in known]
    if not remaining:
        return min(known, key=lambda i: (-known[i], i))
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
    return min(means, key=lambda i: (-means[i], i))
