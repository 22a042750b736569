"""The blocking client: :class:`RefereeClient`."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Self, TypeVar

import grpc
from hanafuda.v1 import game_pb2, moves_pb2, service_pb2, service_pb2_grpc

from .errors import RefereeError, error_of
from .messages import Metadata, WatchCursor, call_metadata, creation, submission, waited
from .retries import RetryPolicy

__all__ = ["RefereeClient"]

_Answer = TypeVar("_Answer")


class RefereeClient:
    """The referee's hosted games over gRPC, one blocking call at a time.

    ``target`` is ``host:port``; ``credentials`` makes the channel TLS (plain text without);
    ``api_key`` is sent with each creation when the server needs one; ``timeout`` bounds each
    unary try (seconds, None: no bound); ``retry`` says how ``UNAVAILABLE`` is retried. A
    ``channel`` of your own replaces the one the client would open (and is not closed by it).

    Moves and creations carry a request id (a new UUID unless you give one), so a retry after
    ``UNAVAILABLE`` repeats the same request, which the referee answers once: a move is never
    played twice, nor a game created twice. Every refusal raises :class:`RefereeError`.
    """

    def __init__(
        self,
        target: str = "localhost:50051",
        *,
        credentials: grpc.ChannelCredentials | None = None,
        api_key: str | None = None,
        timeout: float | None = 30.0,
        retry: RetryPolicy | None = None,
        channel: grpc.Channel | None = None,
    ) -> None:
        self._owned = channel is None
        if channel is None:
            channel = (
                grpc.insecure_channel(target)
                if credentials is None
                else grpc.secure_channel(target, credentials)
            )
        self.channel = channel
        self.stub = service_pb2_grpc.RefereeServiceStub(channel)
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry or RetryPolicy()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel (unless it was given)."""
        if self._owned:
            self.channel.close()

    def _call(self, call: Callable[[], _Answer]) -> _Answer:
        """``call`` tried as :attr:`retry` says; a refusal (or the last failure) raised as a
        :class:`RefereeError`."""
        backoffs = self.retry.backoffs()
        while True:
            try:
                return call()
            except grpc.RpcError as failure:
                error = error_of(failure)
            wait = next(backoffs, None) if self.retry.retryable(error.code) else None
            if wait is None:
                raise error
            time.sleep(wait)

    def create_game(
        self, request: service_pb2.CreateGameRequest, *, request_id: str | None = None
    ) -> service_pb2.CreateGameResponse:
        """``CreateGame``: the new game's id, its seat tokens and a spectator's view.

        The request is sent with ``request_id`` (else its own, else a new one): a retry with the
        same id answers the first game and tokens and creates nothing more.
        """
        sent = creation(request, request_id)
        metadata = call_metadata(None, self.api_key)
        return self._call(
            lambda: self.stub.CreateGame(sent, metadata=metadata, timeout=self.timeout)
        )

    def get_game(
        self, game: str, token: str | None = None, *, wait_seconds: int = 0
    ) -> game_pb2.GameView:
        """``GetGame``: the game as ``token``'s seat sees it (a spectator's view without one).
        ``wait_seconds`` (0 to 30) waits first until the seat is to act or the game is over (a
        spectator: until the game moves on); the call's timeout is extended by the wait."""
        request = service_pb2.GetGameRequest(game=game, wait_seconds=wait_seconds)
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        answer = self._call(lambda: self.stub.GetGame(request, metadata=metadata, timeout=timeout))
        return answer.view

    def submit_move(
        self,
        game: str,
        move: moves_pb2.Move,
        token: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        wait_seconds: int = 0,
    ) -> service_pb2.SubmitMoveResponse:
        """``SubmitMove`` of ``move`` as ``token``'s seat, with ``request_id`` (a new one unless
        given); ``expected_version`` refuses it (``STALE_VERSION``) unless the game is there:
        always send the version you saw. ``wait_seconds`` (0 to 30) waits, once the move is
        committed, until the seat is to act again or the game is over; the answer's events then
        run on through the opponents' (and bots') moves, and its view is the latest."""
        request = submission(game, move, expected_version=expected_version, request_id=request_id)
        request.wait_seconds = wait_seconds
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        return self._call(lambda: self.stub.SubmitMove(request, metadata=metadata, timeout=timeout))

    def get_hint(
        self, game: str, token: str, *, wait_seconds: int = 0
    ) -> service_pb2.GetHintResponse:
        """``GetHint``: the expert's choice for ``token``'s seat's pending decision, from its own
        view, with the estimates of the leading moves. The referee's bot workers search it:
        the answer's ``status`` is ``ADVICE_STATUS_PENDING`` until it is in; ``wait_seconds``
        (0 to 30) waits for it (the call's timeout is extended by the wait). Asking again is
        free; a new hint is rate-limited per client (``RATE_LIMITED``)."""
        request = service_pb2.GetHintRequest(game=game, wait_seconds=wait_seconds)
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        return self._call(lambda: self.stub.GetHint(request, metadata=metadata, timeout=timeout))

    def review_game(
        self, game: str, token: str, *, wait_seconds: int = 0
    ) -> service_pb2.ReviewGameResponse:
        """``ReviewGame``: ``token``'s seat's decisions of a finished game where the expert
        would have chosen otherwise, each judged from the seat's view then, with its estimated
        cost. Pending and waiting as :meth:`get_hint` (a review takes a few seconds)."""
        request = service_pb2.ReviewGameRequest(game=game, wait_seconds=wait_seconds)
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        return self._call(lambda: self.stub.ReviewGame(request, metadata=metadata, timeout=timeout))

    def resign(
        self, game: str, token: str, *, request_id: str | None = None
    ) -> service_pb2.SubmitMoveResponse:
        """``token``'s seat resigns (``MOVE_KIND_RESIGN``, accepted at any time of a game not
        over)."""
        move = moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN)
        return self.submit_move(game, move, token, request_id=request_id)

    def watch_game(
        self, game: str, token: str | None = None, *, from_version: int | None = None
    ) -> Iterator[service_pb2.WatchGameResponse]:
        """``WatchGame``: each new version of the game (its events and the view after them) as
        ``token``'s seat (or a spectator) sees it, until the game ends; without
        ``from_version``, the current view first.

        A stream broken by ``UNAVAILABLE`` is opened again after the last version received, as
        :attr:`retry` says (its attempts count the failures in a row): nothing is missed and no
        version comes twice. Closing the iterator (``break``, or ``.close()``) cancels the call.
        """
        cursor = WatchCursor(game, from_version)
        metadata: Metadata = call_metadata(token)
        backoffs = self.retry.backoffs()
        while True:
            stream = self.stub.WatchGame(cursor.request(), metadata=metadata)
            try:
                for item in stream:
                    if cursor.accept(item):
                        backoffs = self.retry.backoffs()  # it answers again: a new budget
                        yield item
                return
            except grpc.RpcError as failure:
                error: RefereeError = error_of(failure)
            finally:
                stream.cancel()
            wait = next(backoffs, None) if self.retry.retryable(error.code) else None
            if wait is None:
                raise error
            time.sleep(wait)
