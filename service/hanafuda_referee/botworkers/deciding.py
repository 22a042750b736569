"""One bot decision, as a worker takes it: the bot library's search from the seat's view, with
the expert's work bounded by CPU time.

The expert's search stops at its play-out count (about 50 ms on the reference machine, see
:mod:`hanafuda_referee.bots.budget`) or at :data:`EXPERT_CPU_SECONDS` of the deciding thread's CPU
time, whichever comes first: on a machine like the reference one the count decides, so a decision
is a function of the view and the seed (reproducible, as the log's seed promises); on a slow or
throttled one the CPU time bounds it. CPU time, not wall time: a worker that the kernel puts
aside for the serving processes (it runs at a lower priority) does not play worse for it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

from hanafuda_referee.bots import Budget, decide
from hanafuda_referee.bots.advice import Advice, advise
from hanafuda_referee.hosting.advice import AdviceWork
from hanafuda_referee.hosting.bot_turns import BotDecision
from hanafuda_referee.moves import Move

__all__ = [
    "EXPERT_CPU_SECONDS",
    "NICENESS",
    "advise_work",
    "decide_turn",
    "die_with",
    "lower_priority",
    "start_worker_process",
]

#: The most CPU time one expert decision may take (seconds).
EXPERT_CPU_SECONDS = 0.15
#: How much lower a worker's CPU priority is than a serving process's (``os.nice``).
NICENESS = 10
#: Linux's prctl option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1


def decide_turn(decision: BotDecision) -> tuple[Move, float]:
    """The bot's move for ``decision`` and the CPU seconds it took (of the calling thread).

    >>> from hanafuda_referee.bots import Level
    >>> from hanafuda_referee.koikoi.game import new_game
    >>> from hanafuda_referee.koikoi.rules import KoiKoiRules
    >>> from hanafuda_referee.koikoi.view import view
    >>> state, _ = new_game(KoiKoiRules(), seed=7, first_dealer=0)
    >>> seat_view = view(state, 0)
    >>> move, seconds = decide_turn(BotDecision("g", 0, 0, Level.GREEDY, seat_view, 1, "koikoi"))
    >>> move in seat_view.legal_moves and seconds >= 0
    True
    """
    start = time.thread_time()
    budget = Budget(clock=time.thread_time, seconds=EXPERT_CPU_SECONDS)
    move = decide(decision.view, decision.level, decision.seed, budget=budget)
    return move, time.thread_time() - start


def advise_work(work: AdviceWork) -> tuple[list[Advice], float]:
    """The expert's advice on each position of ``work`` (a hint's one, a review's many) and the
    CPU seconds it took. Each search has the expert's own budget, as a bot's decision
    (:func:`decide_turn`), so a hint is the move an expert seat would make; a review's share
    its ``total_seconds`` evenly, each within the same cap.

    >>> from hanafuda_referee.koikoi.game import new_game
    >>> from hanafuda_referee.koikoi.rules import KoiKoiRules
    >>> from hanafuda_referee.koikoi.view import view
    >>> state, _ = new_game(KoiKoiRules(), seed=7, first_dealer=0)
    >>> (advice,), seconds = advise_work(AdviceWork(((view(state, 0), 1),), 0.01, "koikoi"))
    >>> advice.move in view(state, 0).legal_moves and seconds >= 0
    True
    """
    start = time.thread_time()
    each = EXPERT_CPU_SECONDS
    if work.total_seconds is not None and work.positions:
        each = min(each, work.total_seconds / len(work.positions))
    advices = [
        advise(view, seed, budget=Budget(clock=time.thread_time, seconds=each))
        for view, seed in work.positions
    ]
    return advices, time.thread_time() - start


def lower_priority() -> None:
    """Lower this process's CPU priority by :data:`NICENESS` (before it starts threads: Linux
    keeps a niceness per thread, and new threads inherit their creator's)."""
    with contextlib.suppress(OSError, AttributeError):  # not permitted, or not a Unix
        os.nice(NICENESS)


def die_with(parent: int) -> None:
    """Have the kernel send this process SIGTERM when ``parent`` dies (Linux), so that no worker
    outlives the process that started it, even one killed with SIGKILL; exit now if it is gone
    already."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:
        os._exit(1)


def start_worker_process(parent: int) -> None:
    """What a bot worker process does first: follow ``parent`` in death, lower its priority."""
    die_with(parent)
    lower_priority()
