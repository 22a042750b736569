"""How much work the ``expert`` bot may do for one decision.

A :class:`Budget` counts play-outs (one play-out: one sampled deal of the hidden cards, played to
the round's end after one candidate move). The library reads no clock of its own: a caller who
wants a wall-clock limit injects one (``clock``, e.g. ``time.perf_counter``, and ``seconds``),
and the search stops at whichever limit comes first. Without a clock, a decision is a function of
the view and the seed alone.

The default counts are the play-outs that take about 50 ms of CPU for a median decision on the
machine the project was measured on (2 shared cores, Python 3.11.7; ``python -m
tests.benchmarks.bots``, 2026-11-27: Koi-Koi 48 ms median and 71 ms at the 95th percentile,
Hachi-Hachi 50 ms and 77 ms; a decision early in a round plays longer rounds out than one near its
end). A faster machine decides in less time, never differently.

>>> Budget().playouts_for("koikoi") == KOIKOI_PLAYOUTS
True
>>> Budget(playouts=40).playouts_for("hachihachi")
40
>>> ticks = iter(range(100))
>>> budget = Budget.wall(lambda: next(ticks), seconds=3)
>>> deadline = budget.deadline()
>>> budget.expired(deadline), budget.expired(deadline), budget.expired(deadline)
(False, False, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["HACHIHACHI_PLAYOUTS", "KOIKOI_PLAYOUTS", "WALL_PLAYOUTS", "Budget"]

#: Koi-Koi play-outs of one decision by default: about 50 ms (median) on the reference machine.
KOIKOI_PLAYOUTS = 2800
#: Hachi-Hachi play-outs of one decision by default: about 50 ms (median) on the reference
#: machine.
HACHIHACHI_PLAYOUTS = 1800
#: The play-out cap of a wall-clock budget (:meth:`Budget.wall`): the clock decides first.
WALL_PLAYOUTS = 1_000_000

Game = Literal["koikoi", "hachihachi"]


@dataclass(frozen=True, slots=True)
class Budget:
    """The work of one decision: at most ``playouts`` play-outs (None: the game's default), and,
    when the caller gives a ``clock`` (seconds, any origin) and ``seconds``, no more than that
    time by that clock. The clock is read between batches of play-outs, so a decision may
    overrun it by one batch (a few milliseconds)."""

    playouts: int | None = None
    clock: Callable[[], float] | None = None
    seconds: float | None = None

    def __post_init__(self) -> None:
        if self.playouts is not None and self.playouts < 1:
            raise ValueError(f"a budget needs at least one play-out, not {self.playouts}")
        if (self.clock is None) != (self.seconds is None):
            raise ValueError("a wall-clock budget needs both a clock and seconds")

    @classmethod
    def wall(cls, clock: Callable[[], float], seconds: float) -> Budget:
        """A budget of ``seconds`` by ``clock``, whatever the play-outs."""
        return cls(WALL_PLAYOUTS, clock, seconds)

    def playouts_for(self, game: Game) -> int:
        """The play-out limit for a decision of ``game``."""
        if self.playouts is not None:
            return self.playouts
        return KOIKOI_PLAYOUTS if game == "koikoi" else HACHIHACHI_PLAYOUTS

    def deadline(self) -> float | None:
        """When the decision must end by the clock (None: no clock). Read once, at its start."""
        if self.clock is None or self.seconds is None:
            return None
        return self.clock() + self.seconds

    def expired(self, deadline: float | None) -> bool:
        """Whether the clock has passed ``deadline`` (never without a clock)."""
        return deadline is not None and self.clock is not None and self.clock() >= deadline
