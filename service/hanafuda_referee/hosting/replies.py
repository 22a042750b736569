"""The answers of ``SubmitMove`` and ``GetGame`` (:class:`MoveReply`, :class:`ViewReply`),
written by each transport in its own form, and a log entry's events as a seat may see them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeVar, cast

from hanafuda.v1 import events_pb2, service_pb2

from hanafuda_referee.hosting.convert import (
    engine_refusals,
    move_to_proto,
)
from hanafuda_referee.hosting.loaded import LoadedGame
from hanafuda_referee.hosting.stored import LogHeader
from hanafuda_referee.hosting.turns import (
    TIMED_OUT_TAG,
    read_timed_out,
)
from hanafuda_referee.writers.forms import MESSAGE, Form, WrittenEvent

W = TypeVar("W")

_EVENT = events_pb2.Event.DESCRIPTOR
_SUBMIT_MOVE_RESPONSE = service_pb2.SubmitMoveResponse.DESCRIPTOR
_GET_GAME_RESPONSE = service_pb2.GetGameResponse.DESCRIPTOR


#: The last event time written in each form, by the form's id: (milliseconds, written). The
#: moves committed in the same millisecond share it, and writing a Timestamp is not cheap.
_LAST_TIMES: dict[int, tuple[int, Any]] = {}


def _written_time(time_ms: int, form: Form[W]) -> W:
    """An event time (milliseconds since the epoch) as a ``Timestamp`` written in ``form``."""
    last = _LAST_TIMES.get(id(form))
    if last is not None and last[0] == time_ms:
        written: W = last[1]
        return written
    seconds, millis = divmod(time_ms, 1000)
    written = form.timestamp(seconds, millis * 1_000_000)
    _LAST_TIMES[id(form)] = (time_ms, written)
    return written


def written_events(
    game: LoadedGame,
    state: Any,
    version: int,
    blobs: Sequence[bytes],
    seat: int | None,
    form: Form[W],
    header: LogHeader | None = None,
) -> list[W]:
    """A log entry's events (header first) as ``seat`` may see them, written in ``form``;
    ``version`` is the store's. Each is composed from its written payload (see
    :meth:`.adapter.GameAdapter.written_event`). ``header``: the entry's header when the
    caller has it decoded already."""
    if header is None:
        header = LogHeader.decode(blobs[0])
    time = _written_time(header.time_ms, form)
    info = game.info
    written: list[W] = []
    with engine_refusals():
        for i, blob in enumerate(blobs[1:]):
            event: WrittenEvent[W] = (
                _timed_out_event(blob, form)
                if blob[0] == TIMED_OUT_TAG
                else game.adapter.written_event(state, blob, seat, info, form)
            )
            values: dict[str, object] = {
                "version": version + 1,
                "sequence": header.sequence + i,
                "actor": event.actor,
                "time": time,
            }
            if event.kind is not None:
                values[event.kind] = event.payload
            written.append(form.compose(_EVENT, values))
    return written


def _timed_out_event(blob: bytes, form: Form[W]) -> WrittenEvent[W]:
    """The hosting layer's own stored event: a decision a timeout took (no actor: the referee
    acted)."""
    seat, move, automatic = read_timed_out(blob)
    payload = events_pb2.DecisionTimedOut(
        seat=seat, move=move_to_proto(move), automatic_in_row=automatic
    )
    return WrittenEvent(None, "decision_timed_out", form.message(payload))


def event_messages(
    game: LoadedGame, state: Any, version: int, blobs: Sequence[bytes], seat: int | None
) -> list[events_pb2.Event]:
    """:func:`written_events` as messages."""
    return cast(list[events_pb2.Event], written_events(game, state, version, blobs, seat, MESSAGE))


class MoveReply:
    """``SubmitMove``'s answer, in the form a transport sends: :meth:`message`, or
    :meth:`written` in a form of :mod:`hanafuda_referee.writers.forms` (JSON for HTTP), which gives
    what writing the message would give without building it (the view and the events make up
    most of a move's cost). Immutable (see :class:`LogHeader`)."""

    __slots__ = ("entry", "game", "header", "later", "seat")

    def __init__(
        self,
        game: LoadedGame,
        seat: int,
        entry: Sequence[bytes],
        header: LogHeader,
        later: Sequence[service_pb2.WatchGameResponse] = (),
    ) -> None:
        #: The game as the move left it (for a retry, as the answered move left it).
        self.game: Final = game
        self.seat: Final = seat
        #: The move's log entry: its header blob, then its events.
        self.entry: Final = entry
        #: The entry's header, decoded.
        self.header: Final = header
        #: What the seat saw of each version committed while the move waited (``wait_seconds``):
        #: their events follow the move's, and the last one's view is the answer's.
        self.later: Final = later

    def message(self) -> service_pb2.SubmitMoveResponse:
        """The answer as a message."""
        return cast(service_pb2.SubmitMoveResponse, self.written(MESSAGE))

    def written(self, form: Form[W]) -> W:
        """The answer in ``form``, composed from kept parts: in JSON, without the
        message."""
        game, api_version = self.game, self.game.api_version
        events = written_events(
            game, game.state, game.version, self.entry, self.seat, form, self.header
        )
        if self.later:
            events += [form.message(event) for item in self.later for event in item.events]
            view, api_version = form.message(self.later[-1].view), self.later[-1].version
        else:
            view = game.adapter.written_view(
                game.state, self.seat, game.info, api_version, form, game.extra(form)
            )
        values = {"events": form.list(events), "view": view, "version": api_version}
        return form.compose(_SUBMIT_MOVE_RESPONSE, values)


class ViewReply:
    """``GetGame``'s answer, as :class:`MoveReply`: the game as ``seat`` sees it now."""

    __slots__ = ("game", "seat")

    def __init__(self, game: LoadedGame, seat: int | None) -> None:
        self.game: Final = game
        self.seat: Final = seat

    def message(self) -> service_pb2.GetGameResponse:
        """The answer as a message."""
        return cast(service_pb2.GetGameResponse, self.written(MESSAGE))

    def written(self, form: Form[W]) -> W:
        """The answer in ``form``, as :meth:`MoveReply.written`."""
        game = self.game
        view = game.adapter.written_view(
            game.state, self.seat, game.info, game.api_version, form, game.extra(form)
        )
        return form.compose(_GET_GAME_RESPONSE, {"view": view})
