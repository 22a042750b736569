"""What a hosted game keeps in the store besides the engine's bytes: the header of each
version's log entry (:class:`LogHeader`: who moved, what, why and when; a snapshot of the state
every :data:`SNAPSHOT_EVERY` versions), the stored state wrapped with its event count and clocks,
and the replay of a log entry onto a state. Append-only formats: old logs must keep replaying.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from hanafuda_referee.errors import Reason, RulesError
from hanafuda_referee.hosting.adapter import GameAdapter
from hanafuda_referee.hosting.bot_turns import (
    BOT_STALL_MS,
)
from hanafuda_referee.hosting.convert import (
    engine_refusals,
)
from hanafuda_referee.hosting.turns import (
    Cause,
    ClockState,
    Seats,
    Step,
    bot_to_act,
    pending_deadline,
)
from hanafuda_referee.moves import Move, MoveKind
from hanafuda_referee.varint import Reader, Writer, pack

#: Every this many versions, a log entry carries the game's state, where replays (a resumed
#: watch, a retry's answer) start: a replay costs at most this many moves, whatever the game's
#: length, for a few hundred bytes of log every this many moves.
SNAPSHOT_EVERY = 32
_STATE_FORMAT = 1
#: The state with the game's clocks (PLAY.md) before the engine's.
_STATE_FORMAT_CLOCK = 2
_HEADER_FORMAT = 1
#: A header listing the commit's steps and the clocks after them (see :class:`LogHeader`).
_HEADER_FORMAT_STEPS = 2


# --- stored layouts --------------------------------------------------------------------------


class LogHeader:
    """The first blob of a version's log entry.

    Format 1 (a game without bots or clocks): one move, or the creation. Format 2: the moves of
    the commit as :class:`~.turns.Step` values (a seat's move, the bot moves after it, the
    timeouts), and the clocks after them. ``seat`` and ``move`` are the seat's own move of the
    commit, None when it has none (the creation, or timeouts applied with nobody moving).

    This and the other values made on every move (:class:`LoadedGame`, :class:`MoveReply`) are
    plain classes with ``Final`` attributes rather than frozen dataclasses, whose generated
    ``__init__`` sets each field through ``object.__setattr__`` (about a microsecond per
    object)."""

    __slots__ = ("clock", "initial_state", "move", "seat", "sequence", "steps", "time_ms")

    def __init__(
        self,
        time_ms: int,
        sequence: int,
        seat: int | None,
        move: Move | None,
        initial_state: bytes = b"",
        steps: tuple[Step, ...] | None = None,
        clock: ClockState | None = None,
    ) -> None:
        self.time_ms: Final = time_ms
        #: The ``sequence`` of the version's first event.
        self.sequence: Final = sequence
        #: The seat that moved; None for the creation.
        self.seat: Final = seat
        self.move: Final = move
        #: The creation only: the engine state the game started from (the replay's start).
        self.initial_state: Final = initial_state
        #: Every move of the commit, in order (format 1: the one move, if any).
        self.steps: Final[tuple[Step, ...]] = (
            steps
            if steps is not None
            else ()
            if move is None or seat is None
            else (Step(seat, move, Cause.PLAYED, time_ms),)
        )
        #: The clocks after the commit (None: the game has none).
        self.clock: Final = clock

    @classmethod
    def of_steps(
        cls,
        time_ms: int,
        sequence: int,
        steps: Sequence[Step],
        clock: ClockState | None,
        initial_state: bytes = b"",
    ) -> LogHeader:
        """The header of a commit made of ``steps``."""
        own = next((s for s in steps if s.cause is Cause.PLAYED), None)
        return cls(
            time_ms,
            sequence,
            None if own is None else own.seat,
            None if own is None else own.move,
            initial_state,
            tuple(steps),
            clock,
        )

    def encode(self) -> bytes:
        move = self.move
        steps = self.steps
        if self.clock is None and (
            (not steps and move is None)
            or (
                len(steps) == 1
                and steps[0].cause is Cause.PLAYED
                and steps[0].time_ms == self.time_ms
            )
        ):
            # As a Writer would write it (uints, then the initial state as small ints), packed
            # in one call: every move encodes a header.
            return (
                pack(
                    _HEADER_FORMAT,
                    self.time_ms,
                    self.sequence,
                    0 if self.seat is None else self.seat + 1,
                    *((0,) if move is None else (move.kind, move.card, move.target)),
                    len(self.initial_state),
                )
                + self.initial_state
            )
        w = Writer()
        w.uint(_HEADER_FORMAT_STEPS)
        w.uint(self.time_ms)
        w.uint(self.sequence)
        w.uint(len(steps))
        for step in steps:
            w.uint(step.seat)
            w.uint(step.move.kind)
            w.uint(step.move.card)
            w.uint(step.move.target)
            w.uint(step.cause)
            # Timeouts happen at their deadlines, before the commit's time.
            w.uint(self.time_ms - step.time_ms)
        w.small_ints(list(self.initial_state))
        w.small_ints(list(b"" if self.clock is None else self.clock.encode()))
        return w.getvalue()

    @classmethod
    def decode(cls, blob: bytes) -> LogHeader:
        r = Reader(blob)
        header_format = r.uint()
        if header_format == _HEADER_FORMAT_STEPS:
            time_ms, sequence = r.uint(), r.uint()
            steps = []
            for _ in range(r.uint()):
                seat, kind, card, target, cause, before = (r.uint() for _ in range(6))
                steps.append(
                    Step(seat, Move(MoveKind(kind), card, target), Cause(cause), time_ms - before)
                )
            initial = bytes(r.small_ints())
            clock_bytes = bytes(r.small_ints())
            r.done()
            clock = ClockState.decode(clock_bytes) if clock_bytes else None
            return cls.of_steps(time_ms, sequence, steps, clock, initial)
        if header_format != _HEADER_FORMAT:
            raise RulesError(Reason.BAD_ENCODING, "unknown log entry format")
        time_ms, sequence, seat = r.uint(), r.uint(), r.uint()
        kind = r.uint()
        move = Move(MoveKind(kind), r.uint(), r.uint()) if kind else None
        initial = bytes(r.small_ints())
        r.done()
        return cls(time_ms, sequence, seat - 1 if seat else None, move, initial)


def state_after(adapter: GameAdapter[Any], state: Any, header: LogHeader) -> Any:
    """The state after the log entry whose header is ``header``, from the state before it
    (None before the creation's entry, which carries the initial state)."""
    with engine_refusals():
        if header.initial_state:
            state = adapter.decode_state(header.initial_state)
        for step in header.steps:
            state = adapter.advance(state, step.seat, step.move)
        return state


def next_check(
    adapter: GameAdapter[Any], seats: Seats, state: Any, clock: ClockState | None, now_ms: int
) -> int | None:
    """When the sweeper must look at a game next (its entry in the store's index of
    deadlines): the pending decision's timeout; for a bot's turn, when the bot would have waited
    too long (see :mod:`.bot_turns`); None: never."""
    if bot_to_act(adapter, seats, state) is not None:
        return now_ms + BOT_STALL_MS
    return pending_deadline(adapter, seats, state, clock)


def _read_uint(data: bytes, pos: int) -> tuple[int, int]:
    """One unsigned varint of ``data`` at ``pos``: its value and the position after it."""
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise RulesError(Reason.BAD_ENCODING, "truncated game state")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def wrap_state(event_count: int, engine_state: bytes, clock: ClockState | None = None) -> bytes:
    if clock is None:
        return pack(_STATE_FORMAT, event_count) + engine_state
    clock_bytes = clock.encode()
    return pack(_STATE_FORMAT_CLOCK, event_count, len(clock_bytes)) + clock_bytes + engine_state


def unwrap_state(data: bytes) -> tuple[int, ClockState | None, bytes]:
    fmt, pos = _read_uint(data, 0)
    if fmt not in (_STATE_FORMAT, _STATE_FORMAT_CLOCK):
        raise RulesError(Reason.BAD_ENCODING, "unknown game state format")
    count, pos = _read_uint(data, pos)
    if fmt == _STATE_FORMAT:
        return count, None, data[pos:]
    size, pos = _read_uint(data, pos)
    return count, ClockState.decode(data[pos : pos + size]), data[pos + size :]
