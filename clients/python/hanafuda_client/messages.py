"""The requests the clients send, built the same way by the sync and the async one."""

from __future__ import annotations

import uuid

from hanafuda.v1 import moves_pb2, service_pb2

__all__ = [
    "Metadata",
    "WatchCursor",
    "call_metadata",
    "creation",
    "new_request_id",
    "submission",
    "waited",
]

#: gRPC call metadata.
Metadata = tuple[tuple[str, str], ...]


def new_request_id() -> str:
    """A fresh request id: a random UUID, unguessable as a creation's id must be."""
    return str(uuid.uuid4())


def call_metadata(token: str | None, api_key: str | None = None) -> Metadata:
    """The metadata that makes a call a seat's (its token) and carries the API key, if any.

    >>> call_metadata("t0k3n")
    (('authorization', 'Bearer t0k3n'),)
    """
    pairs = []
    if token is not None:
        pairs.append(("authorization", f"Bearer {token}"))
    if api_key is not None:
        pairs.append(("x-api-key", api_key))
    return tuple(pairs)


def creation(
    request: service_pb2.CreateGameRequest, request_id: str | None
) -> service_pb2.CreateGameRequest:
    """``request`` with a request id: ``request_id``, else the request's own, else a new one (the
    caller's message is left as it is)."""
    sent = service_pb2.CreateGameRequest()
    sent.CopyFrom(request)
    sent.request_id = request_id or request.request_id or new_request_id()
    return sent


def submission(
    game: str,
    move: moves_pb2.Move,
    *,
    expected_version: int | None,
    request_id: str | None,
) -> service_pb2.SubmitMoveRequest:
    """A ``SubmitMoveRequest`` with a request id (a new one unless given)."""
    request = service_pb2.SubmitMoveRequest(game=game, request_id=request_id or new_request_id())
    request.move.CopyFrom(move)
    if expected_version is not None:
        request.expected_version = expected_version
    return request


def waited(timeout: float | None, wait_seconds: int) -> float | None:
    """A call's deadline when it may wait ``wait_seconds`` for the caller's turn: the client's
    own timeout on top of the wait (None: no deadline).

    >>> waited(10.0, 30), waited(None, 30), waited(10.0, 0)
    (40.0, None, 10.0)
    """
    return None if timeout is None else timeout + wait_seconds


class WatchCursor:
    """Where a watch stands: the last version received, the request that resumes after it, and
    which items are new (a resumed stream starts after that version: nothing is missed, and an
    item at or before it is never handed out twice).

    >>> cursor = WatchCursor("g", None)
    >>> cursor.request().HasField("from_version")
    False
    >>> cursor.accept(service_pb2.WatchGameResponse(version=4))
    True
    >>> cursor.request().from_version
    4
    >>> cursor.accept(service_pb2.WatchGameResponse(version=4))
    False
    """

    def __init__(self, game: str, from_version: int | None) -> None:
        self.game = game
        self.last = from_version

    def request(self) -> service_pb2.WatchGameRequest:
        """The request that (re)opens the stream after the last version received."""
        request = service_pb2.WatchGameRequest(game=self.game)
        if self.last is not None:
            request.from_version = self.last
        return request

    def accept(self, item: service_pb2.WatchGameResponse) -> bool:
        """Whether ``item`` is new; if so it becomes the last received."""
        if self.last is not None and item.version <= self.last:
            return False
        self.last = item.version
        return True
