"""The asyncio client: :class:`AsyncRefereeClient`, the same calls as
:class:`~hanafuda_client.sync.RefereeClient` awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from types import TracebackType
from typing import Self, TypeVar

import grpc
from hanafuda.v1 import game_pb2, moves_pb2, service_pb2, service_pb2_grpc

from .errors import RefereeError, error_of
from .messages import Metadata, WatchCursor, call_metadata, creation, submission, waited
from .retries import RetryPolicy

__all__ = ["AsyncRefereeClient"]

_Answer = TypeVar("_Answer")


class AsyncRefereeClient:
    """The referee's hosted games over gRPC with ``grpc.aio``; the arguments, request ids,
    retries and errors are :class:`~hanafuda_client.sync.RefereeClient`'s. Open and close it in
    one event loop (``async with``)."""

    def __init__(
        self,
        target: str = "localhost:50051",
        *,
        credentials: grpc.ChannelCredentials | None = None,
        api_key: str | None = None,
        timeout: float | None = 30.0,
        retry: RetryPolicy | None = None,
        channel: grpc.aio.Channel | None = None,
    ) -> None:
        self._owned = channel is None
        if channel is None:
            channel = (
                grpc.aio.insecure_channel(target)
                if credentials is None
                else grpc.aio.secure_channel(target, credentials)
            )
        self.channel = channel
        self.stub = service_pb2_grpc.RefereeServiceStub(channel)
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry or RetryPolicy()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel (unless it was given)."""
        if self._owned:
            await self.channel.close()

    async def _call(self, call: Callable[[], Awaitable[_Answer]]) -> _Answer:
        backoffs = self.retry.backoffs()
        while True:
            try:
                return await call()
            except grpc.RpcError as failure:
                error = error_of(failure)
            wait = next(backoffs, None) if self.retry.retryable(error.code) else None
            if wait is None:
                raise error
            await asyncio.sleep(wait)

    async def create_game(
        self, request: service_pb2.CreateGameRequest, *, request_id: str | None = None
    ) -> service_pb2.CreateGameResponse:
        """``CreateGame``, as :meth:`RefereeClient.create_game`."""
        sent = creation(request, request_id)
        metadata = call_metadata(None, self.api_key)
        return await self._call(
            lambda: self.stub.CreateGame(sent, metadata=metadata, timeout=self.timeout)
        )

    async def get_game(
        self, game: str, token: str | None = None, *, wait_seconds: int = 0
    ) -> game_pb2.GameView:
        """``GetGame``, as :meth:`RefereeClient.get_game`."""
        request = service_pb2.GetGameRequest(game=game, wait_seconds=wait_seconds)
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        answer = await self._call(
            lambda: self.stub.GetGame(request, metadata=metadata, timeout=timeout)
        )
        return answer.view

    async def submit_move(
        self,
        game: str,
        move: moves_pb2.Move,
        token: str,
        *,
        expected_version: int | None = None,
        request_id: str | None = None,
        wait_seconds: int = 0,
    ) -> service_pb2.SubmitMoveResponse:
        """``SubmitMove``, as :meth:`RefereeClient.submit_move`."""
        request = submission(game, move, expected_version=expected_version, request_id=request_id)
        request.wait_seconds = wait_seconds
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        return await self._call(
            lambda: self.stub.SubmitMove(request, metadata=metadata, timeout=timeout)
        )

    async def get_hint(
        self, game: str, token: str, *, wait_seconds: int = 0
    ) -> service_pb2.GetHintResponse:
        """``GetHint``, as :meth:`RefereeClient.get_hint`."""
        request = service_pb2.GetHintRequest(game=game, wait_seconds=wait_seconds)
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        return await self._call(
            lambda: self.stub.GetHint(request, metadata=metadata, timeout=timeout)
        )

    async def review_game(
        self, game: str, token: str, *, wait_seconds: int = 0
    ) -> service_pb2.ReviewGameResponse:
        """``ReviewGame``, as :meth:`RefereeClient.review_game`."""
        request = service_pb2.ReviewGameRequest(game=game, wait_seconds=wait_seconds)
        metadata = call_metadata(token)
        timeout = waited(self.timeout, wait_seconds)
        return await self._call(
            lambda: self.stub.ReviewGame(request, metadata=metadata, timeout=timeout)
        )

    async def resign(
        self, game: str, token: str, *, request_id: str | None = None
    ) -> service_pb2.SubmitMoveResponse:
        """``token``'s seat resigns, as :meth:`RefereeClient.resign`."""
        move = moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN)
        return await self.submit_move(game, move, token, request_id=request_id)

    async def watch_game(
        self, game: str, token: str | None = None, *, from_version: int | None = None
    ) -> AsyncIterator[service_pb2.WatchGameResponse]:
        """``WatchGame`` with resume, as :meth:`RefereeClient.watch_game`. Close the iterator
        (``contextlib.aclosing``) to stop before the game ends."""
        cursor = WatchCursor(game, from_version)
        metadata: Metadata = call_metadata(token)
        backoffs = self.retry.backoffs()
        while True:
            stream = self.stub.WatchGame(cursor.request(), metadata=metadata)
            try:
                async for item in stream:
                    if cursor.accept(item):
                        backoffs = self.retry.backoffs()
                        yield item
                return
            except grpc.RpcError as failure:
                error: RefereeError = error_of(failure)
            finally:
                stream.cancel()
            wait = next(backoffs, None) if self.retry.retryable(error.code) else None
            if wait is None:
                raise error
            await asyncio.sleep(wait)
