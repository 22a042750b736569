"""Turns of a hosted game beyond the rules: bot seats and turn clocks (PLAY.md). Pure: time comes
in as an argument, randomness from the game's seed.

A commit of a hosted game is a list of :class:`Step`: a seat's own move; or the timeouts due at
an instant; or a bot seat's move (:func:`bot_move`). :func:`catch_up` gives the steps due at an
instant with no move of anyone; :func:`play` gives a seat's move. All return an
:class:`Outcome`: the new engine state, the new clock state, the steps (for the log header, so a
replay applies the same moves) and the encoded events, each timeout's own event first.

Bots think off the request path (PLAY.md): a commit that hands the turn to a bot seat stops
there, and the bot's move is a commit of its own, decided by a bot worker
(:mod:`hanafuda_referee.botworkers`) from :func:`bot_to_act`'s seat and :func:`bot_seed`'s seed.
Logs written before that hold commits with a seat's move and the bot moves after it
(``Cause.BOT`` steps): they replay as they are, step by step.

The clock of a decision starts when the committed state first asks for it: at the instant of
the step that led to it (a timeout happens at its deadline, whenever it is applied, so that a
timeout applied late, by a request or by another replica's sweeper, gives the very state it
would have given on time). Its deadline is that start, plus ``move_seconds``, plus the seat's
remaining reserve; a seat's move spends from its reserve the time it took past
``move_seconds``. Bots have no clock: the next person's clock starts when the bot's move is
committed.

>>> settings = ClockSettings(move_ms=30_000, reserve_ms=60_000)
>>> clock = ClockState.start(settings, seats=2, now_ms=1_000)
>>> settings.deadlines(clock, 0)
(31000, 91000)
>>> spent = settings.after_move(clock, 0, now_ms=41_000)  # 10 s past the move's own time
>>> spent.reserves
(50000, 60000)
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, NamedTuple

from google.protobuf.timestamp_pb2 import Timestamp
from hanafuda.v1 import play_pb2

from hanafuda_referee.bots import Level, decide
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.adapter import GameAdapter
from hanafuda_referee.moves import RESIGN, Move
from hanafuda_referee.varint import Reader, Writer

__all__ = [
    "TIMED_OUT_TAG",
    "Cause",
    "ClockSettings",
    "ClockState",
    "Outcome",
    "Seats",
    "Step",
    "bot_move",
    "bot_seed",
    "bot_to_act",
    "catch_up",
    "clock_view",
    "pending_deadline",
    "play",
    "read_timed_out",
]

#: The stored tag of the hosting layer's own event (a decision a timeout took): far above the
#: adapters' tags, one varint byte like theirs.
TIMED_OUT_TAG = 0x7F

#: Option ranges (PLAY.md).
MOVE_SECONDS = (1, 3_600)
RESERVE_SECONDS = (0, 86_400)
MAX_AUTO_DECISIONS = (0, 10)
DEFAULT_MAX_AUTO = 3

#: Bot levels by their ``BotLevel`` number.
LEVELS: dict[int, Level] = {
    play_pb2.BOT_LEVEL_RANDOM: Level.RANDOM,
    play_pb2.BOT_LEVEL_GREEDY: Level.GREEDY,
    play_pb2.BOT_LEVEL_EXPERT: Level.EXPERT,
}

#: The levels a timeout may decide with: cheap ones, so that applying a timeout costs well under
#: a millisecond wherever it runs (a request, the sweeper; PLAY.md, "Bounded work").
TIMEOUT_BOTS = frozenset({play_pb2.BOT_LEVEL_RANDOM, play_pb2.BOT_LEVEL_GREEDY})


class Cause(IntEnum):
    """Why a step was taken (stored in log headers: append only)."""

    #: The seat sent the move.
    PLAYED = 0
    #: The seat is a bot.
    BOT = 1
    #: The seat's clock ran out; the timeout bot took the decision.
    AUTO = 2
    #: The seat's clock ran out; the seat resigned.
    TIMEOUT_RESIGN = 3


class Step(NamedTuple):
    """One move of a commit: who, what, why and when (Unix milliseconds)."""

    seat: int
    move: Move
    cause: Cause
    time_ms: int


def _in(value: int, bounds: tuple[int, int], name: str) -> int:
    low, high = bounds
    if not low <= value <= high:
        raise _bad(name, f"must be {low} to {high}, not {value}")
    return value


def _bad(name: str, why: str) -> ApiError:
    return ApiError("BAD_OPTION_VALUE", f"clock option {name} {why}", {"option": name})


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """A game's turn clock options, fixed at creation (milliseconds)."""

    move_ms: int
    reserve_ms: int = 0
    #: ``on_timeout: resign`` (else ``auto``).
    resign: bool = False
    max_auto: int = DEFAULT_MAX_AUTO
    #: The ``BotLevel`` number of the bot that takes automatic decisions.
    timeout_bot: int = play_pb2.BOT_LEVEL_GREEDY

    @classmethod
    def from_proto(cls, options: play_pb2.ClockOptions) -> ClockSettings | None:
        """The settings a creation asks for; None without ``move_seconds`` (no clocks).
        Refuses a value out of range with ``BAD_OPTION_VALUE``."""
        if not options.HasField("move_seconds"):
            if options.ByteSize():
                raise _bad("move_seconds", "is needed by the other clock options")
            return None
        move = _in(options.move_seconds, MOVE_SECONDS, "move_seconds")
        reserve = _in(options.reserve_seconds, RESERVE_SECONDS, "reserve_seconds")
        max_auto = (
            _in(options.max_auto_decisions, MAX_AUTO_DECISIONS, "max_auto_decisions")
            if options.HasField("max_auto_decisions")
            else DEFAULT_MAX_AUTO
        )
        if options.on_timeout not in (0, play_pb2.ON_TIMEOUT_AUTO, play_pb2.ON_TIMEOUT_RESIGN):
            raise _bad("on_timeout", f"has no value {options.on_timeout}")
        bot = options.timeout_bot or play_pb2.BOT_LEVEL_GREEDY
        if bot not in TIMEOUT_BOTS:
            raise _bad("timeout_bot", f"must be random or greedy, not {options.timeout_bot}")
        return cls(
            move * 1000,
            reserve * 1000,
            options.on_timeout == play_pb2.ON_TIMEOUT_RESIGN,
            max_auto,
            bot,
        )

    def to_proto(self) -> play_pb2.ClockOptions:
        """The options, every default resolved."""
        return play_pb2.ClockOptions(
            move_seconds=self.move_ms // 1000,
            reserve_seconds=self.reserve_ms // 1000,
            on_timeout=play_pb2.ON_TIMEOUT_RESIGN if self.resign else play_pb2.ON_TIMEOUT_AUTO,
            max_auto_decisions=self.max_auto,
            timeout_bot=self.timeout_bot,  # type: ignore[arg-type]
        )

    def write(self, w: Writer) -> None:
        for value in (self.move_ms, self.reserve_ms, int(self.resign), self.max_auto):
            w.uint(value)
        w.uint(self.timeout_bot)

    @classmethod
    def read(cls, r: Reader, *, bounded: bool = True) -> ClockSettings:
        """The settings :meth:`write` wrote. ``bounded=False`` reads a game created before the
        clocks were bounded (PLAY.md, "Bounded work"), whose options may now be out of range:
        it plays on under the nearest bounded ones (docs/play.md). Its ``max_auto_decisions``
        0 meant "never" and counts as the most automatic decisions now allowed; a larger
        number counts as that most; an expert timeout bot decides as a greedy one.

        >>> w = Writer()
        >>> ClockSettings(1_000, 0, False, 0, play_pb2.BOT_LEVEL_EXPERT).write(w)
        >>> old = ClockSettings.read(Reader(w.getvalue()), bounded=False)
        >>> old.max_auto, old.timeout_bot == play_pb2.BOT_LEVEL_GREEDY
        (10, True)
        """
        move, reserve, resign, max_auto, bot = (r.uint() for _ in range(5))
        highest = MAX_AUTO_DECISIONS[1]
        if not bounded and (max_auto == 0 or max_auto > highest):
            max_auto = highest
        if bot not in TIMEOUT_BOTS:
            bot = play_pb2.BOT_LEVEL_GREEDY
        return cls(move, reserve, bool(resign), min(max_auto, highest), bot)

    def deadlines(self, clock: ClockState, seat: int) -> tuple[int, int]:
        """The pending decision's own deadline and its timeout (with the seat's reserve)."""
        own = clock.started_ms + self.move_ms
        return own, own + clock.reserves[seat]

    def after_move(self, clock: ClockState, seat: int, now_ms: int) -> ClockState:
        """The clocks once ``seat`` moved at ``now_ms`` (before its timeout): the time past its
        move's own time comes out of its reserve, and its automatic decisions start over."""
        over = max(0, now_ms - clock.started_ms - self.move_ms)
        reserves = list(clock.reserves)
        reserves[seat] = max(0, reserves[seat] - over)
        automatic = list(clock.automatic)
        automatic[seat] = 0
        return ClockState(now_ms, tuple(reserves), tuple(automatic))


@dataclass(frozen=True, slots=True)
class ClockState:
    """Where a game's clocks stand: when the pending decision started, and per seat the reserve
    left (milliseconds) and the automatic decisions in a row."""

    started_ms: int
    reserves: tuple[int, ...]
    automatic: tuple[int, ...]

    @classmethod
    def start(cls, settings: ClockSettings, seats: int, now_ms: int) -> ClockState:
        return cls(now_ms, (settings.reserve_ms,) * seats, (0,) * seats)

    def encode(self) -> bytes:
        w = Writer()
        w.uint(self.started_ms)
        w.uint(len(self.reserves))
        for reserve, automatic in zip(self.reserves, self.automatic, strict=True):
            w.uint(reserve)
            w.uint(automatic)
        return w.getvalue()

    @classmethod
    def decode(cls, data: bytes) -> ClockState:
        r = Reader(data)
        started = r.uint()
        pairs = [(r.uint(), r.uint()) for _ in range(r.uint())]
        r.done()
        return cls(started, tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))


@dataclass(frozen=True, slots=True)
class Seats:
    """What a game's turns depend on beside its state: the bot of each seat (``BotLevel``
    numbers, 0: a person) and the clock settings (None: no clocks)."""

    bots: tuple[int, ...] = ()
    clock: ClockSettings | None = None

    def bot(self, seat: int) -> int:
        return self.bots[seat] if seat < len(self.bots) else 0

    @property
    def plain(self) -> bool:
        """No bots and no clocks: a commit is one move, as before either existed."""
        return self.clock is None and not any(self.bots)


@dataclass(slots=True)
class Outcome:
    """What a commit does: see the module docstring."""

    state: Any
    clock: ClockState | None
    steps: list[Step] = field(default_factory=list)
    blobs: list[bytes] = field(default_factory=list)
    #: The seats whose decisions timeouts took, with the move each time.
    timed_out: list[Step] = field(default_factory=list)


def bot_seed(game_seed: int, events_before: int, seat: int) -> int:
    """The seed of one bot decision: from the game's seed (kept secret while the game runs; a
    hash of it tells nothing of the deal), the decision's place in the log and the seat."""
    digest = hashlib.sha256(f"bot|{game_seed}|{events_before}|{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _timed_out_blob(step: Step, automatic: int) -> bytes:
    w = Writer()
    w.uint(TIMED_OUT_TAG)
    w.uint(step.seat)
    w.uint(step.move.kind)
    w.uint(step.move.card)
    w.uint(step.move.target)
    w.uint(automatic)
    return w.getvalue()


def read_timed_out(blob: bytes) -> tuple[int, Move, int]:
    """A stored timeout event: the seat, the move taken for it and its automatic decisions in a
    row (0 when the timeout resigned it)."""
    from hanafuda_referee.moves import MoveKind

    r = Reader(blob)
    r.uint()
    seat, kind, card, target, automatic = (r.uint() for _ in range(5))
    r.done()
    return seat, Move(MoveKind(kind), card, target), automatic


Decide = Callable[[Any, Level, int], Move]


def _bot_decision(view: Any, level: Level, seed: int) -> Move:
    return decide(view, level, seed)


class _Run:
    """One commit's steps being worked out."""

    def __init__(
        self,
        adapter: GameAdapter[Any],
        seats: Seats,
        state: Any,
        clock: ClockState | None,
        events_before: int,
        decide_move: Decide,
    ) -> None:
        self.adapter = adapter
        self.seats = seats
        self.state = state
        self.clock = clock
        self.events_before = events_before
        self.decide = decide_move
        self.out = Outcome(state, clock)

    def _apply(self, step: Step, *, timed_out: bool = False) -> None:
        self.state, blobs = self.adapter.apply(
            self.state, step.seat, step.move, timed_out=timed_out
        )
        self.out.steps.append(step)
        self.out.blobs.extend(blobs)

    def _decision(self, seat: int, level: int) -> Move:
        view = self.adapter.engine_view(self.state, seat)
        seed = bot_seed(
            self.adapter.seed(self.state), self.events_before + len(self.out.blobs), seat
        )
        return self.decide(view, LEVELS[level], seed)

    def _restart(self, now_ms: int) -> None:
        if self.clock is not None:
            self.clock = ClockState(now_ms, self.clock.reserves, self.clock.automatic)

    def timeouts(self, now_ms: int) -> None:
        """Every timeout due at ``now_ms``, each at its own deadline, until a bot seat is to act
        (its turn goes to the bot queue)."""
        settings = self.seats.clock
        while settings is not None and self.clock is not None:
            seat = self.adapter.to_act(self.state)
            if seat is None or self.seats.bot(seat):
                return
            _, deadline = settings.deadlines(self.clock, seat)
            if deadline > now_ms:
                return
            reserves = list(self.clock.reserves)
            reserves[seat] = 0
            automatic = list(self.clock.automatic)
            # No "never": an abandoned seat always ends its game (0: at its first timeout).
            resign = settings.resign or automatic[seat] >= settings.max_auto
            if resign:
                # The engine's resignation event says the clock made it.
                step = Step(seat, RESIGN, Cause.TIMEOUT_RESIGN, deadline)
                self._apply(step, timed_out=True)
            else:
                automatic[seat] += 1
                step = Step(seat, self._decision(seat, settings.timeout_bot), Cause.AUTO, deadline)
                self.out.blobs.append(_timed_out_blob(step, automatic[seat]))
                self._apply(step)
            self.out.timed_out.append(step)
            self.clock = ClockState(deadline, tuple(reserves), tuple(automatic))

    def done(self) -> Outcome:
        self.out.state, self.out.clock = self.state, self.clock
        return self.out


def catch_up(
    adapter: GameAdapter[Any],
    seats: Seats,
    state: Any,
    clock: ClockState | None,
    now_ms: int,
    events_before: int,
    decide_move: Decide = _bot_decision,
) -> Outcome:
    """The steps due at ``now_ms`` with no move of anyone: the timeouts due, up to a bot seat's
    turn. No steps: nothing is due."""
    run = _Run(adapter, seats, state, clock, events_before, decide_move)
    run.timeouts(now_ms)
    return run.done()


def play(
    adapter: GameAdapter[Any],
    seats: Seats,
    state: Any,
    clock: ClockState | None,
    seat: int,
    move: Move,
    now_ms: int,
    events_before: int,
    decide_move: Decide = _bot_decision,
) -> Outcome:
    """``seat``'s own ``move`` at ``now_ms`` (no timeout may be due: :func:`catch_up` first).
    Raises the engine's refusal."""
    run = _Run(adapter, seats, state, clock, events_before, decide_move)
    pending = adapter.to_act(state)
    run._apply(Step(seat, move, Cause.PLAYED, now_ms))
    if run.clock is not None and seats.clock is not None and pending == seat:
        run.clock = seats.clock.after_move(run.clock, seat, now_ms)
    run._restart(now_ms)
    return run.done()


def bot_to_act(adapter: GameAdapter[Any], seats: Seats, state: Any) -> tuple[int, Level] | None:
    """The bot seat to act at ``state`` and its level; None when a person is to act or the
    game is over."""
    seat = adapter.to_act(state)
    if seat is None:
        return None
    level = seats.bot(seat)
    return (seat, LEVELS[level]) if level in LEVELS else None


def bot_move(
    adapter: GameAdapter[Any],
    seats: Seats,
    state: Any,
    clock: ClockState | None,
    seat: int,
    move: Move,
    now_ms: int,
) -> Outcome:
    """Bot ``seat``'s ``move``, decided by a bot worker, at ``now_ms``: a commit of its own,
    after which the next decision's clock starts. Raises the engine's refusal."""
    run = _Run(adapter, seats, state, clock, 0, _bot_decision)
    run._apply(Step(seat, move, Cause.BOT, now_ms))
    run._restart(now_ms)
    return run.done()


def _timestamp(time_ms: int) -> Timestamp:
    seconds, millis = divmod(time_ms, 1000)
    return Timestamp(seconds=seconds, nanos=millis * 1_000_000)


def clock_view(
    adapter: GameAdapter[Any], seats: Seats, state: Any, clock: ClockState
) -> play_pb2.ClockView:
    """The clocks as a view shows them."""
    assert seats.clock is not None
    message = play_pb2.ClockView(
        options=seats.clock.to_proto(),
        reserve_ms=list(clock.reserves),
        automatic_in_row=list(clock.automatic),
    )
    seat = adapter.to_act(state)
    if seat is not None and not seats.bot(seat):
        own, deadline = seats.clock.deadlines(clock, seat)
        message.seat = seat
        message.started.CopyFrom(_timestamp(clock.started_ms))
        message.move_deadline.CopyFrom(_timestamp(own))
        message.deadline.CopyFrom(_timestamp(deadline))
    return message


def pending_deadline(
    adapter: GameAdapter[Any], seats: Seats, state: Any, clock: ClockState | None
) -> int | None:
    """When the pending decision times out (Unix milliseconds); None when no clock runs."""
    if seats.clock is None or clock is None:
        return None
    seat = adapter.to_act(state)
    if seat is None or seats.bot(seat):
        return None
    return seats.clock.deadlines(clock, seat)[1]
