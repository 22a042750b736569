"""The forms of a message, for answers assembled from parts kept between requests: canonical
proto3 JSON text (HTTP) and the message itself (gRPC, which serializes it, and everything else).

A :class:`Form` writes a message, composes a message from field values (its message fields'
values written already, in the same form, as ``str`` or ``bytes``) and makes a list of written
messages for a repeated field. Code that assembles an answer from parts (a game view from its
rules, seat lines, moves...) is written once against a form and gives, in each form, exactly
what writing the whole message would give (:meth:`.proto_json.JsonWriter.compose`).

>>> from hanafuda.v1 import moves_pb2
>>> move = {"kind": moves_pb2.MOVE_KIND_STOP}
>>> JSON.compose(moves_pb2.Move.DESCRIPTOR, move)
'{"kind":"MOVE_KIND_STOP","card":"CARD_UNSPECIFIED","target":"CARD_UNSPECIFIED"}'
>>> MESSAGE.compose(moves_pb2.Move.DESCRIPTOR, move)
kind: MOVE_KIND_STOP
<BLANKLINE>
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from hanafuda_referee.writers.proto_json import JsonWriter, list_text, timestamp_text

__all__ = ["JSON", "MESSAGE", "Form", "WrittenEvent", "written_event"]

W = TypeVar("W")


class Form(Protocol[W]):
    """A written form of messages (``W``: what a written message is)."""

    def message(self, message: Message) -> W:
        """``message``, written."""
        ...

    def compose(self, descriptor: Descriptor, values: dict[str, Any]) -> W:
        """The message of type ``descriptor`` whose fields hold ``values`` (Python values, or
        messages and lists of messages written in this form), written."""
        ...

    def list(self, items: Iterable[W]) -> Any:
        """Written messages as the value of a repeated message field, for :meth:`compose`."""
        ...

    def timestamp(self, seconds: int, nanos: int) -> W:
        """The ``Timestamp`` of ``seconds`` and ``nanos``, written (every event has one)."""
        ...


class _JsonForm:
    """JSON text (``str``)."""

    def __init__(self) -> None:
        self._writer = JsonWriter()

    def message(self, message: Message) -> str:
        return self._writer.message(message)

    def compose(self, descriptor: Descriptor, values: dict[str, Any]) -> str:
        return self._writer.compose(descriptor, values)

    def list(self, items: Iterable[str]) -> str:
        return list_text(items)

    def timestamp(self, seconds: int, nanos: int) -> str:
        return timestamp_text(seconds, nanos)


class _MessageForm:
    """Messages themselves: composing builds the message, whose constructor copies the parts
    given to it (kept parts are shared and never mutated)."""

    def __init__(self) -> None:
        self._classes: dict[str, Callable[..., Message]] = {}

    def message(self, message: Message) -> Message:
        return message

    def compose(self, descriptor: Descriptor, values: dict[str, Any]) -> Message:
        make = self._classes.get(descriptor.full_name)
        if make is None:
            make = self._classes[descriptor.full_name] = message_factory.GetMessageClass(descriptor)
        return make(**{name: value for name, value in values.items() if value is not None})

    def list(self, items: Iterable[Message]) -> list[Message]:
        return list(items)

    def timestamp(self, seconds: int, nanos: int) -> Message:
        return Timestamp(seconds=seconds, nanos=nanos)


#: Canonical proto3 JSON, as the HTTP transport writes it.
JSON: Form[str] = _JsonForm()
#: The message itself (gRPC's answers, which grpc serializes, and everything not written in JSON).
MESSAGE: Form[Message] = _MessageForm()


class WrittenEvent(NamedTuple, Generic[W]):
    """An ``Event`` without its version, sequence and time, in a written form: its actor
    (None when unset), the name of its ``kind`` field (None when unset) and that field's
    message, written."""

    actor: int | None
    kind: str | None
    payload: W | None


def written_event(event: Message, form: Form[W]) -> WrittenEvent[W]:
    """The :class:`WrittenEvent` of an ``Event`` message."""
    kind = event.WhichOneof("kind")
    return WrittenEvent(
        event.actor if event.HasField("actor") else None,  # type: ignore[attr-defined]
        kind,
        None if kind is None else form.message(getattr(event, kind)),
    )
