"""A fake referee for the HTTP transport's tests: a few methods with observable behaviour, so the
tests see what the transport hands over (request message, caller) and what it makes of the
answers and errors. It knows nothing of the real referee. :class:`RecordingReferee` answers every
RPC of the contract, empty, and records the calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import message_factory
from hanafuda.v1 import game_pb2, rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError


@dataclass
class Call:
    """One call the transport made: the method, its request message and the caller."""

    method: str
    request: object
    caller: Caller


@dataclass
class FakeReferee:
    """Implements ListPresets, ScoreKoiKoi, GetGame, SubmitMove and WatchGame only.

    ``GetGame`` of the game ``missing`` raises ``UNKNOWN_GAME``; ``SubmitMove`` raises the
    reason named by the request's ``request_id`` when it is one of ``errors.STATUS``'s keys.
    ``WatchGame`` serves the versions of ``versions`` after the resume point, then waits for
    :meth:`publish` until ``over``.
    """

    calls: list[Call] = field(default_factory=list)
    versions: int = 3
    over: bool = False
    watchers_closed: int = 0
    ready_answer: bool = True
    _changed: asyncio.Event | None = None

    def ready(self) -> bool:
        return self.ready_answer

    async def ListPresets(  # noqa: N802 - named as the RPC
        self, request: service_pb2.ListPresetsRequest, caller: Caller
    ) -> service_pb2.ListPresetsResponse:
        self.calls.append(Call("ListPresets", request, caller))
        kinds = [request.kind] if request.kind else [rules_pb2.GAME_KIND_KOI_KOI]
        return service_pb2.ListPresetsResponse(
            presets=[
                rules_pb2.Preset(name="fudawiki", kind=kind, is_default=True) for kind in kinds
            ]
        )

    async def ScoreKoiKoi(  # noqa: N802 - named as the RPC
        self, request: service_pb2.ScoreKoiKoiRequest, caller: Caller
    ) -> service_pb2.ScoreKoiKoiResponse:
        self.calls.append(Call("ScoreKoiKoi", request, caller))
        return service_pb2.ScoreKoiKoiResponse()

    async def GetGame(  # noqa: N802 - named as the RPC
        self, request: service_pb2.GetGameRequest, caller: Caller
    ) -> service_pb2.GetGameResponse:
        self.calls.append(Call("GetGame", request, caller))
        if request.game == "missing":
            raise ApiError("UNKNOWN_GAME", f"no game {request.game!r}")
        if request.game == "crash":
            raise RuntimeError("secret internal detail")
        return service_pb2.GetGameResponse(view=self.view(request.game, self.versions))

    async def SubmitMove(  # noqa: N802 - named as the RPC
        self, request: service_pb2.SubmitMoveRequest, caller: Caller
    ) -> service_pb2.SubmitMoveResponse:
        self.calls.append(Call("SubmitMove", request, caller))
        if request.request_id == "STALE_VERSION":
            raise ApiError(
                "STALE_VERSION", "the game moved on", {"current_version": str(self.versions)}
            )
        if request.request_id:
            raise ApiError(request.request_id, f"refused: {request.request_id}")
        self.publish()
        return service_pb2.SubmitMoveResponse(
            view=self.view(request.game, self.versions), version=self.versions
        )

    async def WatchGame(  # noqa: N802 - named as the RPC
        self, request: service_pb2.WatchGameRequest, caller: Caller
    ) -> AsyncIterator[service_pb2.WatchGameResponse]:
        self.calls.append(Call("WatchGame", request, caller))
        if request.game == "missing":
            raise ApiError("UNKNOWN_GAME", f"no game {request.game!r}")
        if self._changed is None:
            self._changed = asyncio.Event()
        try:
            sent = request.from_version if request.HasField("from_version") else self.versions - 1
            while True:
                while sent < self.versions:
                    sent += 1
                    yield service_pb2.WatchGameResponse(
                        view=self.view(request.game, sent), version=sent
                    )
                if self.over:
                    return
                self._changed.clear()
                await self._changed.wait()
        finally:
            self.watchers_closed += 1

    def publish(self, *, over: bool = False) -> None:
        """One more version (and, with ``over``, the game's end) for the watchers."""
        self.versions += 1
        self.over = over
        if self._changed is not None:
            self._changed.set()

    @staticmethod
    def view(game: str, version: int) -> game_pb2.GameView:
        return game_pb2.GameView(
            game=game,
            kind=rules_pb2.GAME_KIND_KOI_KOI,
            version=version,
            status=game_pb2.GAME_STATUS_IN_PROGRESS,
        )


_SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]


class RecordingReferee:
    """Answers every RPC with an empty response, recording which method was called."""

    def __init__(self) -> None:
        self.called: list[tuple[str, Any, Caller]] = []

    def __getattr__(self, name: str) -> Any:
        method = _SERVICE.methods_by_name.get(name)
        if method is None:
            raise AttributeError(name)
        response_class = message_factory.GetMessageClass(method.output_type)

        async def unary(request: Any, caller: Caller) -> Any:
            self.called.append((name, request, caller))
            return response_class()

        async def streaming(request: Any, caller: Caller) -> AsyncIterator[Any]:
            self.called.append((name, request, caller))
            yield response_class()

        return streaming if method.server_streaming else unary
