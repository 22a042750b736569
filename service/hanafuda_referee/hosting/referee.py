"""The referee: every RPC of ``hanafuda.v1.RefereeService`` as an async method, any transport.

Each method is named exactly like its RPC and has the shape ``async def Method(self, request:
<Request>, caller: Caller) -> <Response>`` (``WatchGame`` is an async generator of
``WatchGameResponse``), so a transport can call any of them generically by name (``getattr(referee,
rpc_name)``). Refusals are :class:`~hanafuda_referee.calls.errors.ApiError` with a reason of the
contract's ``Reason`` enum; a transport maps them to its status with
:data:`~hanafuda_referee.calls.errors.STATUS`.

Every call is observed (one canonical log line, request metrics, see
:mod:`hanafuda_referee.observability.logs`): a transport that opens
:func:`~hanafuda_referee.observability.logs.observe` itself (to include its own decoding in the
latency) gets the line from there; otherwise the method opens one.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from hanafuda.v1 import service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting import stateless
from hanafuda_referee.hosting.advice import AdviceLimit, Advisor
from hanafuda_referee.hosting.games import HostedGames, MoveReply, ViewReply
from hanafuda_referee.hosting.identity import DEFAULT_IPV6_PREFIX, ClientIdentity
from hanafuda_referee.hosting.limits import ClientLimits, CreationLimit
from hanafuda_referee.hosting.watching import WatcherSlots, watch_game
from hanafuda_referee.observability.logs import current, observe
from hanafuda_referee.store import GameStore

__all__ = ["RPC_NAMES", "Referee", "reply_method"]

_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")

#: The RPCs of ``hanafuda.v1.RefereeService``, in the contract's order.
RPC_NAMES: tuple[str, ...] = tuple(
    method.name for method in service_pb2.DESCRIPTOR.services_by_name["RefereeService"].methods
)


def reply_method(referee: object, rpc: str) -> Callable[..., Awaitable[Any]] | None:
    """The method of ``referee`` that answers the RPC ``rpc`` with a reply rather than its
    message (``<Rpc>Reply``, see :meth:`Referee.SubmitMoveReply`), or None when it has none."""
    method = getattr(referee, f"{rpc}Reply", None)
    return method if callable(method) else None


def _observed(
    method: Callable[[Referee, _Req, Caller], Awaitable[_Resp]],
) -> Callable[[Referee, _Req, Caller], Awaitable[_Resp]]:
    """Wrap a unary method in :func:`observe` unless the transport already opened one."""
    return _observed_as(method.__name__)(method)


def _observed_as(
    name: str,
) -> Callable[
    [Callable[[Referee, _Req, Caller], Awaitable[_Resp]]],
    Callable[[Referee, _Req, Caller], Awaitable[_Resp]],
]:
    """:func:`_observed`, the call logged and measured as the RPC ``name``."""

    def decorate(
        method: Callable[[Referee, _Req, Caller], Awaitable[_Resp]],
    ) -> Callable[[Referee, _Req, Caller], Awaitable[_Resp]]:
        @functools.wraps(method)
        async def wrapper(self: Referee, request: _Req, caller: Caller) -> _Resp:
            if current() is not None:
                return await method(self, request, caller)
            async with observe(name, caller):
                return await method(self, request, caller)

        return wrapper

    return decorate


def _observed_stream(
    method: Callable[[Referee, _Req, Caller], AsyncGenerator[_Resp, None]],
) -> Callable[[Referee, _Req, Caller], AsyncGenerator[_Resp, None]]:
    """As :func:`_observed`, for a server-streaming method (the line is written at its end)."""

    @functools.wraps(method)
    async def wrapper(self: Referee, request: _Req, caller: Caller) -> AsyncGenerator[_Resp, None]:
        # Closing this stream closes the method's at once (``aclosing``): an async generator
        # left by ``async for`` is otherwise closed only when collected, a loop turn or more
        # later, and the method's stream holds a watcher slot and a store subscription till then.
        async with contextlib.AsyncExitStack() as stack:
            if current() is None:
                await stack.enter_async_context(observe(method.__name__, caller))
            async with contextlib.aclosing(method(self, request, caller)) as items:
                async for item in items:
                    yield item

    return wrapper


class Referee:
    """The application layer of the service: stateless rules methods and hosted games.

    ``store``: where hosted games live. ``allow_testing``: accept seeds and prepared deals in
    ``CreateGame``. ``api_key``: when set, ``CreateGame`` needs it (``x-api-key``);
    ``api_keys``: several, any of which will do. ``ipv6_client_prefix``: the IPv6 network one
    client is counted by (see :mod:`.identity`). ``creation_limit``, ``client_limits``,
    ``memory_ceiling``: the creation rate and what one client may hold, and the share of the
    store's memory limit above which no game is created (see :mod:`.limits`).
    ``max_watchers``, ``watchers_per_game``, ``watchers_per_client``: the most spectators'
    ``WatchGame`` streams followed at once, in all, of one game, from one client;
    ``watchers_per_seat``: the most streams of one seat (0: no limit; see
    :class:`~.watching.WatcherSlots`). ``advice_limit``: the rate of hints and reviews one
    client may ask for (see :mod:`.advice`; None: no limit).
    """

    def __init__(
        self,
        store: GameStore,
        *,
        allow_testing: bool = False,
        api_key: str | None = None,
        cache_size: int = 4096,
        max_watchers: int = 0,
        watchers_per_game: int = 0,
        watchers_per_client: int = 0,
        watchers_per_seat: int = 0,
        creation_limit: CreationLimit | None = None,
        api_keys: Sequence[str] = (),
        ipv6_client_prefix: int = DEFAULT_IPV6_PREFIX,
        client_limits: ClientLimits | None = None,
        memory_ceiling: float = 1.0,
        advice_limit: AdviceLimit | None = None,
    ) -> None:
        keys = [*api_keys, *([api_key] if api_key else [])]
        self.identity = ClientIdentity.of(keys, ipv6_client_prefix)
        self.games = HostedGames(
            store,
            allow_testing=allow_testing,
            cache_size=cache_size,
            creation_limit=creation_limit,
            identity=self.identity,
            client_limits=client_limits,
            memory_ceiling=memory_ceiling,
        )
        self.advisor = Advisor(self.games, advice_limit)
        self.watchers = WatcherSlots(
            max_watchers,
            per_game=watchers_per_game,
            per_client=watchers_per_client,
            per_seat=watchers_per_seat,
        )

    @property
    def store(self) -> GameStore:
        """The game store (for readiness checks and shutdown)."""
        return self.games.store

    async def ready(self) -> bool:
        """Whether the service can serve hosted games now (the store answers); for readiness
        probes."""
        try:
            await self.games.store.ping()
        except Exception:
            return False
        return True

    # -- stateless rules methods -----------------------------------------------------------------

    @_observed
    async def ListPresets(  # noqa: N802 - named like the RPC
        self, request: service_pb2.ListPresetsRequest, caller: Caller
    ) -> service_pb2.ListPresetsResponse:
        """Lists the rule presets with every option resolved."""
        return stateless.list_presets(request)

    @_observed
    async def ScoreKoiKoi(  # noqa: N802
        self, request: service_pb2.ScoreKoiKoiRequest, caller: Caller
    ) -> service_pb2.ScoreKoiKoiResponse:
        """Scores captured Koi-Koi cards under a rule set, a month and a round context."""
        return stateless.score_koikoi(request)

    @_observed
    async def ClassifyKoiKoiHand(  # noqa: N802
        self, request: service_pb2.ClassifyKoiKoiHandRequest, caller: Caller
    ) -> service_pb2.ClassifyKoiKoiHandResponse:
        """Classifies a Koi-Koi starting hand (teshi, kuttsuki)."""
        return stateless.classify_koikoi_hand(request)

    @_observed
    async def ClassifyHachiHachiHand(  # noqa: N802
        self, request: service_pb2.ClassifyHachiHachiHandRequest, caller: Caller
    ) -> service_pb2.ClassifyHachiHachiHandResponse:
        """Classifies a 7-card Hachi-Hachi hand: its highest teyaku."""
        return stateless.classify_hachihachi_hand(request)

    @_observed
    async def ScoreHachiHachiCaptures(  # noqa: N802
        self, request: service_pb2.ScoreHachiHachiCapturesRequest, caller: Caller
    ) -> service_pb2.ScoreHachiHachiCapturesResponse:
        """Scores one player's Hachi-Hachi captures."""
        return stateless.score_hachihachi_captures(request)

    @_observed
    async def SettleHachiHachiRound(  # noqa: N802
        self, request: service_pb2.SettleHachiHachiRoundRequest, caller: Caller
    ) -> service_pb2.SettleHachiHachiRoundResponse:
        """Settles the end of a Hachi-Hachi round from the card counts."""
        return stateless.settle_hachihachi_round(request)

    @_observed
    async def ListCaptures(  # noqa: N802
        self, request: service_pb2.ListCapturesRequest, caller: Caller
    ) -> service_pb2.ListCapturesResponse:
        """Lists what a card would capture on a given field."""
        return stateless.list_captures(request)

    # -- hosted games ------------------------------------------------------------------------------

    @_observed
    async def CreateGame(  # noqa: N802
        self, request: service_pb2.CreateGameRequest, caller: Caller
    ) -> service_pb2.CreateGameResponse:
        """Creates a hosted game; returns its id and one secret token per seat."""
        return await self.games.create(request, caller)

    @_observed
    async def GetGame(  # noqa: N802
        self, request: service_pb2.GetGameRequest, caller: Caller
    ) -> service_pb2.GetGameResponse:
        """Reads a game as the token's seat, or as a spectator without a token."""
        return (await self.games.get(request, caller)).message()

    @_observed_as("GetGame")
    async def GetGameReply(  # noqa: N802
        self, request: service_pb2.GetGameRequest, caller: Caller
    ) -> ViewReply:
        """:meth:`GetGame` with its answer not yet built (see :meth:`SubmitMoveReply`)."""
        return await self.games.get(request, caller)

    @_observed
    async def SubmitMove(  # noqa: N802
        self, request: service_pb2.SubmitMoveRequest, caller: Caller
    ) -> service_pb2.SubmitMoveResponse:
        """Submits a move as the token's seat."""
        return (await self.games.submit(request, caller)).message()

    @_observed_as("SubmitMove")
    async def SubmitMoveReply(  # noqa: N802
        self, request: service_pb2.SubmitMoveRequest, caller: Caller
    ) -> MoveReply:
        """:meth:`SubmitMove` with its answer not yet built: a transport that can write it in
        its own form without the message (the HTTP transport writes JSON text, see
        :class:`~.games.MoveReply`) calls this (see :func:`reply_method`)."""
        return await self.games.submit(request, caller)

    @_observed_stream
    async def WatchGame(  # noqa: N802
        self, request: service_pb2.WatchGameRequest, caller: Caller
    ) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
        """Follows a game live (resumable from a version); refused with ``UNAVAILABLE`` while
        the process follows as many streams as it may (see :class:`~.watching.WatcherSlots`)."""
        if not caller.token:
            # A spectator over a bound is refused before the game is read.
            self.watchers.check_spectator(request.game, self.identity.client_of(caller))
        stream = watch_game(self.games, request, caller, self.watchers)
        async with contextlib.aclosing(stream) as items:
            async for item in items:
                yield item

    @_observed
    async def GetGameLog(  # noqa: N802
        self, request: service_pb2.GetGameLogRequest, caller: Caller
    ) -> service_pb2.GetGameLogResponse:
        """Returns the game's log as the caller may see it (deals and seed once over)."""
        return await self.games.log(request, caller)

    @_observed
    async def GetHint(  # noqa: N802
        self, request: service_pb2.GetHintRequest, caller: Caller
    ) -> service_pb2.GetHintResponse:
        """The expert's choice for the seat's pending decision, from its view (bot workers)."""
        return await self.advisor.hint(request, caller)

    @_observed
    async def ReviewGame(  # noqa: N802
        self, request: service_pb2.ReviewGameRequest, caller: Caller
    ) -> service_pb2.ReviewGameResponse:
        """The seat's decisions of a finished game where the expert would have chosen
        otherwise (bot workers)."""
        return await self.advisor.review(request, caller)
