"""The two written forms of a message, for answers assembled from parts kept between requests:
canonical proto3 JSON text (HTTP) and protobuf bytes (gRPC).

A :class:`Form` writes a message, composes a message from field values (its message fields'
values written already, in the same form, as ``str`` or ``bytes``) and makes a list of written
messages for a repeated field. Code that assembles an answer from parts (a game view from its
rules, seat lines, moves...) is written once against a form and gives, in either form, exactly
what writing the whole message would give (:meth:`.proto_json.JsonWriter.compose`,
:meth:`.proto_wire.WireWriter.compose`).

>>> from hanafuda.v1 import moves_pb2
>>> move = {"kind": moves_pb2.MOVE_KIND_STOP}
>>> JSON.compose(moves_pb2.Move.DESCRIPTOR, move)
'{"kind":"MOVE_KIND_STOP","card":"CARD_UNSPECIFIED","target":"CARD_UNSPECIFIED"}'
>>> WIRE.compose(moves_pb2.Move.DESCRIPTOR, move)
b'\\x08\\x04'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

from hanafuda_referee.api.proto_json import JsonWriter, list_text
from hanafuda_referee.api.proto_wire import WireWriter, wire_list

__all__ = ["JSON", "WIRE", "Form", "WrittenEvent"]

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


class _WireForm:
    """Protobuf bytes (``bytes``)."""

    def __init__(self) -> None:
        self._writer = WireWriter()

    def message(self, message: Message) -> bytes:
        return message.SerializeToString()

    def compose(self, descriptor: Descriptor, values: dict[str, Any]) -> bytes:
        return self._writer.compose(descriptor, values)

    def list(self, items: Iterable[bytes]) -> list[bytes]:
        return wire_list(items)


#: Canonical proto3 JSON, as the HTTP transport writes it.
JSON: Form[str] = _JsonForm()
#: Protobuf bytes, as ``SerializeToString`` writes them.
WIRE: Form[bytes] = _WireForm()


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
