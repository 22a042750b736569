"""The sweeper's ticks: a tick that spends its budget with timeouts still due is followed by the
next one at once (after a short pause), so that a sweeper behind uses the time the process
would otherwise spend idle; a tick that finished what was due waits the whole period."""

from __future__ import annotations

import asyncio
import itertools
import time
from types import SimpleNamespace

from hanafuda_referee import serving


class _Games:
    """A stand-in for the hosted games' sweep: each call works until the budget's end when
    ``behind`` (as a sweep does when more is due than it can apply), else finds nothing due."""

    def __init__(self, behind: bool) -> None:
        self.behind = behind
        self.calls: list[float] = []

    async def sweep(self, limit: int, until: float | None = None) -> int:
        self.calls.append(time.monotonic())
        if not self.behind:
            return 0
        assert until is not None
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        return limit

    async def sweep_lag(self) -> float:
        return 5.0 if self.behind else 0.0


async def _ticks(behind: bool, seconds: float) -> list[float]:
    games = _Games(behind)
    referee = SimpleNamespace(games=games)
    sweeper = asyncio.create_task(
        serving._sweep_deadlines(referee, period=30.0, budget=0.02)  # type: ignore[arg-type]
    )
    await asyncio.sleep(seconds)
    sweeper.cancel()
    return games.calls


async def test_a_sweeper_behind_sweeps_again_without_waiting_the_period() -> None:
    calls = await _ticks(behind=True, seconds=0.6)
    # Each tick: 0.02 s of budget and the short pause; the period (30 s) never elapses.
    assert len(calls) >= 4
    gaps = [later - earlier for earlier, later in itertools.pairwise(calls)]
    assert max(gaps) < 1.0


async def test_a_sweeper_that_caught_up_waits_the_period() -> None:
    calls = await _ticks(behind=False, seconds=0.3)
    assert len(calls) == 1
