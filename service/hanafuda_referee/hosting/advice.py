"""Hints and reviews: the expert's advice to a seat, worked out by the bot workers (``GetHint``,
``ReviewGame``; TABLE.md, "A hint", "After a game, a review").

Nothing here searches: the process that answers requests must never spend a search's CPU
(PLAY.md, "Bots think off the request path"). A request is answered from the store, and the
search is a job on the store's bot queue, beside the bot seats' turns:

1. The request authenticates the seat as a read does, checks that there is something to advise
   on (a pending decision of the seat; a finished game), and looks for the answer under its key
   (:func:`answer_key`: the game, its version, the seat, the kind) among the values the store
   remembers (:meth:`~hanafuda_referee.store.GameStore.remember`, kept for the answer
   time-to-live, 10 minutes by default).
2. None there: unless the job was queued in the last :data:`QUEUED_PERIOD_MS` (a marker key
   says so), it takes a token from the client's bucket (``RATE_LIMITED`` with the wait otherwise)
   and pushes the job, ``hint:<seat>`` or ``review:<seat>``, with the game and version
   (:meth:`~hanafuda_referee.store.GameStore.push_bot_turn`). Asking again for the same advice
   costs no token and pushes nothing.
3. It answers ``ADVICE_STATUS_PENDING`` at once, or waits up to ``wait_seconds`` for the answer
   (reading the key every few tens of milliseconds; a wait holds one of the client's wait
   slots, :class:`~.waiting.WaitSlots`).

A bot worker takes the job (:meth:`Advisor.serve`), loads the game, rebuilds the seat's engine
view (the hint: the view now, if the game is still at the job's version; the review: the view at
each of the seat's decisions, replayed from the log), has the search run where the bots' searches
run (an ``Adviser``: a pool process, or a worker's thread) and stores the answer under its key.
A job whose game moved on, ended or is gone is dropped: its answer would be stale.

What the advice may know: the seat's view only, exactly what a bot of that seat decides from
(the bots' own hidden-information guarantee). A review judges each decision from the view the
seat had then, rebuilt from the log: what the log reveals once the game is over (the other hands,
the stock order, the seed) never goes in. The seed of each search comes from public facts (the
game id, the version, the seat: :func:`advice_seed`), not from the game's secret seed, so the
same view always gets the same advice.

>>> job_name("hint", 2), parse_job("review:0"), parse_job("nonsense")
('hint:2', ('review', 0), None)
>>> answer_key("hint", "g1", 5, 1)
'advice:hint:g1:5:1'
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from hanafuda.v1 import play_pb2, rules_pb2, service_pb2

from hanafuda_referee.bots.advice import Advice, Candidate
from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import RETRY_AFTER, ApiError
from hanafuda_referee.hosting.convert import engine_refusals, move_to_proto
from hanafuda_referee.hosting.games import HostedGames, store_failures
from hanafuda_referee.hosting.loaded import LoadedGame
from hanafuda_referee.hosting.stored import LogHeader
from hanafuda_referee.hosting.turns import Cause
from hanafuda_referee.hosting.waiting import wait_seconds
from hanafuda_referee.moves import Move
from hanafuda_referee.observability.logs import logger
from hanafuda_referee.store import GameStore, StoreError

__all__ = [
    "HINT_CANDIDATES",
    "QUEUED_PERIOD_MS",
    "REVIEW_CPU_SECONDS",
    "AdviceLimit",
    "AdviceWork",
    "Adviser",
    "Advisor",
    "advice_seed",
    "answer_key",
    "job_name",
    "parse_job",
]

Kind = Literal["hint", "review"]

#: The moves a hint gives an estimate of (the expert's first).
HINT_CANDIDATES = 5
#: A job is pushed at most once per this many milliseconds for the same advice: the marker that
#: says it is queued lasts that long (a job lost with a worker's store failure is pushed again
#: by the next request after it).
QUEUED_PERIOD_MS = 30_000
#: The CPU time a review's searches may take in all, spread evenly over its decisions (each
#: also bounded by the expert's own cap): well under the bot queue's reclaim time, so that
#: another worker seldom takes a review that is merely long.
REVIEW_CPU_SECONDS = 2.5
#: Waits between two reads of an answer's key, seconds (the last one repeats).
_POLL_WAITS = (0.02, 0.03, 0.05, 0.1)
#: Log entries read per store read when a review replays a game.
_LOG_PAGE = 512
_KINDS: tuple[Kind, ...] = ("hint", "review")


def job_name(kind: Kind, seat: int) -> str:
    """The bot queue job of ``kind`` advice for ``seat``."""
    return f"{kind}:{seat}"


def parse_job(job: str) -> tuple[Kind, int] | None:
    """The kind and seat of a job :func:`job_name` made; None for anything else."""
    kind, _, seat = job.partition(":")
    for known in _KINDS:
        if kind == known and seat.isdigit() and len(seat) < 3:
            return known, int(seat)
    return None


def answer_key(kind: Kind, game_id: str, version: int, seat: int) -> str:
    """The key the store remembers an answer under (store ``version``: the hint's decision;
    the review's, the finished game's last)."""
    return f"advice:{kind}:{game_id}:{version}:{seat}"


def advice_seed(game_id: str, version: int, seat: int) -> int:
    """The seed of one search, from what the seat knows (the game id, the store version, the
    seat), never from the game's secret seed."""
    digest = hashlib.sha256(f"advice|{game_id}|{version}|{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class AdviceWork(NamedTuple):
    """What a search process gets (picklable): the positions, each a seat's engine view and a
    seed, and the CPU seconds all of them may take (None: each its expert's own budget, as a
    bot's decision)."""

    positions: tuple[tuple[Any, int], ...]
    total_seconds: float | None
    game: Literal["koikoi", "hachihachi"]


#: A bot worker's search: the advice on each position of the work, in order.
Adviser = Callable[[AdviceWork], Awaitable[list[Advice]]]


@dataclass(frozen=True, slots=True)
class AdviceLimit:
    """At most ``burst`` hints and reviews at once, then ``per_minute`` a minute, per client."""

    per_minute: float
    burst: int

    def __post_init__(self) -> None:
        if not self.per_minute > 0 or self.burst < 1:
            raise ValueError("an advice limit needs a positive rate and a burst of at least 1")

    async def check(self, store: GameStore, client: str) -> None:
        """Take one from ``client``'s bucket, or refuse with ``RATE_LIMITED`` and the whole
        seconds to wait (at least 1), taking nothing."""
        wait = await store.take_token("advice:" + client, self.per_minute / 60, self.burst)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            raise ApiError(
                "RATE_LIMITED",
                f"too many hints and reviews asked by this client: retry in {seconds} s",
                {RETRY_AFTER: str(seconds)},
            )


def _estimate(candidate: Candidate) -> play_pb2.MoveEstimate:
    return play_pb2.MoveEstimate(
        move=move_to_proto(candidate.move),
        mean_points=round(candidate.mean_points, 3),
        samples=candidate.samples,
    )


def _game_of(game: LoadedGame) -> Literal["koikoi", "hachihachi"]:
    return "koikoi" if game.adapter.kind == rules_pb2.GAME_KIND_KOI_KOI else "hachihachi"


class _Decision(NamedTuple):
    """One of the seat's own decisions, as a review replays it."""

    version: int
    view: Any
    played: Move


class Advisor:
    """The hint and review use cases (see the module docstring) over ``games``' store."""

    def __init__(
        self,
        games: HostedGames,
        limit: AdviceLimit | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._games = games
        self._store = games.store
        self._limit = limit
        self._clock = clock

    # -- requests ------------------------------------------------------------------------------

    async def hint(
        self, request: service_pb2.GetHintRequest, caller: Caller
    ) -> service_pb2.GetHintResponse:
        """``GetHint``: see the module docstring."""
        seconds = wait_seconds(request.wait_seconds)
        game = await self._games.current(request.game)
        seat = self._games.seat_of(caller, game.meta)
        if game.adapter.is_over(game.state):
            raise ApiError("GAME_OVER", "the game is over: there is no decision to hint")
        if not game.adapter.legal_moves(game.state, seat):
            raise ApiError("NOT_YOUR_TURN", f"seat {seat} has no decision pending")
        key = answer_key("hint", game.game_id, game.version, seat)
        kept = await self._answer(key, game, "hint", seat, seconds, caller)
        if kept is None:
            return service_pb2.GetHintResponse(
                status=play_pb2.ADVICE_STATUS_PENDING, version=game.api_version
            )
        return service_pb2.GetHintResponse.FromString(kept)

    async def review(
        self, request: service_pb2.ReviewGameRequest, caller: Caller
    ) -> service_pb2.ReviewGameResponse:
        """``ReviewGame``: see the module docstring."""
        seconds = wait_seconds(request.wait_seconds)
        game = await self._games.current(request.game)
        seat = self._games.seat_of(caller, game.meta)
        if not game.adapter.is_over(game.state):
            raise ApiError("GAME_NOT_OVER", "the game is in progress: a game is reviewed once over")
        key = answer_key("review", game.game_id, game.version, seat)
        kept = await self._answer(key, game, "review", seat, seconds, caller)
        if kept is None:
            return service_pb2.ReviewGameResponse(status=play_pb2.ADVICE_STATUS_PENDING)
        return service_pb2.ReviewGameResponse.FromString(kept)

    async def _answer(
        self, key: str, game: LoadedGame, kind: Kind, seat: int, seconds: int, caller: Caller
    ) -> bytes | None:
        """The answer kept under ``key``; else queue its job (once per period, a token from
        the client's bucket) and wait for it up to ``seconds``; None if it is not in by then."""
        with store_failures(game.game_id):
            kept = await self._store.recall(key)
            if kept is not None:
                return kept
            client = self._games.identity.client_of(caller)
            marker = f"{key}:queued:{int(self._clock() * 1000) // QUEUED_PERIOD_MS}"
            if await self._store.recall(marker) is None:
                if self._limit is not None:
                    await self._limit.check(self._store, client)
                if await self._store.remember(marker, b"1") is None:
                    await self._store.push_bot_turn(
                        game.game_id, game.version, job_name(kind, seat)
                    )
        if not seconds:
            return None
        with self._games.wait_slots.slot(client):
            return await self._poll(key, seconds)

    async def _poll(self, key: str, seconds: float) -> bytes | None:
        """Read ``key`` until it holds an answer, ``seconds`` have passed or the server shuts
        down. A store failure meanwhile ends the wait as the time limit would."""
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + seconds
        closing = self._games.closing
        reads = 0
        while not closing.is_set():
            pause = _POLL_WAITS[min(reads, len(_POLL_WAITS) - 1)]
            left = give_up_at - loop.time()
            if left <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(closing.wait(), min(pause, left))
            reads += 1
            try:
                kept = await self._store.recall(key)
            except StoreError:
                logger.warning("wait for advice ended by the store")
                return None
            if kept is not None:
                return kept
        return None

    # -- jobs (bot workers) --------------------------------------------------------------------

    async def serve(self, game_id: str, version: int, job: str, advise: Adviser) -> bool:
        """Work out the advice of one job taken from the bot queue and store it: True when it
        was stored, False when the job was dropped (an unknown job; the game gone, moved on, or
        not in a state to advise on). Raises ``ApiError`` (``UNAVAILABLE``) when the store
        fails: the job stays on the queue and is taken again."""
        parsed = parse_job(job)
        if parsed is None:
            logger.warning("bot queue job unknown: dropped", game=game_id, job=job)
            return False
        kind, seat = parsed
        try:
            game = await self._games.load(game_id)
        except ApiError as error:
            if error.reason == "UNKNOWN_GAME":
                return False
            raise
        if game.version != version or seat >= game.adapter.seat_count(game.state):
            return False
        if kind == "hint":
            answer = await self._hint(game, seat, advise)
        else:
            answer = await self._review(game, seat, advise)
        if answer is None:
            return False
        with store_failures(game_id):
            await self._store.remember(answer_key(kind, game_id, version, seat), answer)
        return True

    async def _hint(self, game: LoadedGame, seat: int, advise: Adviser) -> bytes | None:
        if game.adapter.is_over(game.state) or not game.adapter.legal_moves(game.state, seat):
            return None
        view = game.adapter.engine_view(game.state, seat)
        seed = advice_seed(game.game_id, game.version, seat)
        (advice,) = await advise(AdviceWork(((view, seed),), None, _game_of(game)))
        return service_pb2.GetHintResponse(
            status=play_pb2.ADVICE_STATUS_READY,
            version=game.api_version,
            move=move_to_proto(advice.move),
            candidates=[_estimate(c) for c in advice.candidates[:HINT_CANDIDATES]],
        ).SerializeToString()

    async def _review(self, game: LoadedGame, seat: int, advise: Adviser) -> bytes | None:
        if not game.adapter.is_over(game.state):
            return None
        decisions = await self._decisions(game, seat)
        positions = tuple(
            (d.view, advice_seed(game.game_id, d.version - 1, seat)) for d in decisions
        )
        advices = (
            await advise(AdviceWork(positions, REVIEW_CPU_SECONDS, _game_of(game)))
            if positions
            else []
        )
        response = service_pb2.ReviewGameResponse(
            status=play_pb2.ADVICE_STATUS_READY, decisions=len(decisions)
        )
        for decision, advice in zip(decisions, advices, strict=True):
            played = advice.candidate(decision.played)
            if advice.move == decision.played or played is None:
                continue
            expert = advice.candidates[0]
            response.differences.append(
                play_pb2.ReviewedDecision(
                    version=decision.version,
                    round=decision.view.round,
                    played=_estimate(played),
                    expert=_estimate(expert),
                    cost_points=round(expert.mean_points - played.mean_points, 3),
                )
            )
        return response.SerializeToString()

    async def _decisions(self, game: LoadedGame, seat: int) -> list[_Decision]:
        """The seat's own decisions of the game, replayed from its log: each with the game's
        (API) version when it was pending, the seat's view then and the move it made. Only
        decisions the seat made itself (not a timeout's), among more than one legal move."""
        adapter = game.adapter
        decisions: list[_Decision] = []
        state: Any = None
        after = -1
        while after < game.version:
            with store_failures(game.game_id):
                entries = await self._store.events(game.game_id, after, _LOG_PAGE)
            if not entries:
                break
            for entry in entries:
                header = LogHeader.decode(entry.events[0])
                with engine_refusals():
                    if header.initial_state:
                        state = adapter.decode_state(header.initial_state)
                    for step in header.steps:
                        if step.seat == seat and step.cause is Cause.PLAYED:
                            legal = adapter.legal_moves(state, seat)
                            if len(legal) > 1 and step.move in legal:
                                # Pending at store version ``entry.version - 1``: API version
                                # ``entry.version``.
                                view = adapter.engine_view(state, seat)
                                decisions.append(_Decision(entry.version, view, step.move))
                        state = adapter.advance(state, step.seat, step.move)
                after = entry.version
            # A long game is replayed in slices: the worker's event loop goes on in between.
            await asyncio.sleep(0)
        return decisions
