"""The parts both game kinds compose their views and events from, kept written in one form.

A view is composed (:meth:`hanafuda_referee.writers.forms.Form.compose`) from parts written once and
kept between requests, per rule set and form: the rules, the legal moves, what the game waits for,
the last finished round and, for the events, the payload of each stored event blob. Each adapter
subclasses :class:`WrittenParts` with its own seat lines (Koi-Koi's yaku, Hachi-Hachi's teyaku and
dekiyaku) and gives it how its rule set, events and round results read as messages.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message
from hanafuda.v1 import game_pb2

from hanafuda_referee.hosting.adapter import GameInfo
from hanafuda_referee.hosting.convert import card_list, move_message
from hanafuda_referee.moves import Move
from hanafuda_referee.writers.forms import Form, WrittenEvent, written_event

__all__ = ["EventMessage", "WrittenParts"]

W = TypeVar("W")

#: A stored event blob as a seat (None: a spectator) of a game may see it, as a message.
EventMessage = Callable[[bytes, "int | None", GameInfo], Message]

_WAITING_TYPE = game_pb2.Waiting.DESCRIPTOR


class WrittenParts(Generic[W]):
    """The parts of views and the events of one rule set, written in ``form`` and kept.

    Every view carries the rules, the legal moves, what the game waits for and the last
    finished round; most of a move's events recur (a card played or drawn and what it took).
    Caches are bounded; parts are shared between answers and never mutated (the message form's
    constructors copy them).
    """

    def __init__(
        self,
        form: Form[W],
        rules: Message,
        event: EventMessage,
        round_result: Callable[[Any], Message],
        *,
        created_tag: int,
        dealt_tags: tuple[int, ...],
    ) -> None:
        self.form = form
        # The stored tags of the only events that show more than their blob: the creation
        # names the players, a deal shows the seat its own hand.
        self._created_tag = created_tag
        self._dealt_tags = dealt_tags
        #: The rule set, written.
        self.rules = form.message(rules)
        self._event_message = event
        self._round_result_message = round_result
        self.move = lru_cache(maxsize=4096)(self._move)
        self.waiting = lru_cache(maxsize=1024)(self._waiting)
        self._round_result = lru_cache(maxsize=4096)(self._round_result_uncached)
        # Larger: the plays and draws of a card with what they take number a few thousand.
        self._event_cached = lru_cache(maxsize=16384)(self._event)

    def last_result(self, result: Any) -> W:
        """A finished round's result, written once (a view carries the last one until the next
        round ends)."""
        return self._round_result(result)

    def event(self, blob: bytes, seat: int | None, players: tuple[str, ...]) -> WrittenEvent[W]:
        """A stored event as ``seat`` (None: a spectator) of a game with these players sees it,
        kept by the blob and what else the event shows, most often nothing."""
        tag = blob[0] if blob else 0  # every tag is one varint byte
        return self._event_cached(
            blob,
            seat if tag in self._dealt_tags else None,
            players if tag == self._created_tag else (),
        )

    def _event(self, blob: bytes, seat: int | None, players: tuple[str, ...]) -> WrittenEvent[W]:
        return written_event(self._event_message(blob, seat, GameInfo("", players)), self.form)

    def _round_result_uncached(self, result: Any) -> W:
        return self.form.message(self._round_result_message(result))

    def _move(self, move: Move) -> W:
        return self.form.message(move_message(move))

    def _waiting(self, kind: int, drawn: int, options: int) -> W:
        """What the game waits for, and a drawn card's targets."""
        values = {"kind": kind, "drawn_card": drawn, "targets": card_list(options)}
        return self.form.compose(_WAITING_TYPE, values)
