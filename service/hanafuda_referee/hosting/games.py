"""Hosted games: create, read, move, watch and audit games kept in a :class:`GameStore`.

This module holds the use cases (:class:`HostedGames`); what they work with lives beside it:
:mod:`.stored` (the log entry's header and the stored state's layout), :mod:`.loaded` (a game
as this process read it, and the cache of them), :mod:`.replies` (the answers, written per
transport) and :mod:`.watch_cursor` (where a stream stands in a game's log).

This layer knows versions, tokens, the store, a small cache and streaming, and nothing of any
game's rules: a :class:`~.adapter.GameAdapter` per game kind does the rest.

Versions: the store counts from 0 at creation, the contract from 1; ``api = store + 1``.

What is stored per game:

* meta (:class:`~.tokens.GameMeta`): kind, player names, token hashes; fixed at creation;
* state (:func:`~.stored.wrap_state`): ``<format><events so far>`` as varints, then the
  adapter's engine state bytes. The event count gives the next event its ``sequence`` without
  reading the log;
* one log entry per version: a header blob (time, first sequence, the move and its seat, and for
  the creation the initial engine state) then the adapter's event blobs, the full truth. The log
  alone replays the game, which is how a watcher rebuilds the view of past versions and follows
  new ones without reloading the state.

Moving in one round trip: each process keeps the last (version, state) it saw of a game; a move is
validated against it and committed with that version as the expected one. If another replica
moved first, the store answers with the current state, and the move is validated again against
it (a few times at most). A move the rules refuse is only refused once the store confirms that
the state it was judged on is current and that its request id was never answered: a commit that
cannot succeed (expected version -1) asks exactly that and changes nothing.

Answering: ``submit`` and ``get`` return a reply (:class:`MoveReply`, :class:`ViewReply`) rather
than the message. A transport takes it written in its form (:mod:`hanafuda_referee.writers.forms`:
JSON text for HTTP, the message for gRPC), which the reply composes from parts the adapter keeps
written between moves (the rules, seat lines, moves, recurring events) without building the message:
building the message and then writing it was most of a move's cost. The composed answer is what
writing the message would give, byte for byte (``tests/service/test_replies.py``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from hanafuda.v1 import rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError, ErrorTranslation
from hanafuda_referee.errors import RulesError
from hanafuda_referee.hosting.adapter import GameAdapter
from hanafuda_referee.hosting.bot_turns import (
    BOT_STALL_MS,
    BotDecision,
    BotTurnResult,
    bot_request_id,
)
from hanafuda_referee.hosting.closing import Closing
from hanafuda_referee.hosting.convert import (
    MAX_DEALS,
    deal_from_proto,
    engine_refusals,
    move_from_proto,
)
from hanafuda_referee.hosting.creations import creation_key, fingerprint, seal, unseal
from hanafuda_referee.hosting.identity import ClientIdentity
from hanafuda_referee.hosting.kinds import adapter_for
from hanafuda_referee.hosting.limits import Admission, ClientLimits, CreationLimit
from hanafuda_referee.hosting.loaded import GameCache, LoadedGame, snapshot
from hanafuda_referee.hosting.replies import MoveReply, ViewReply, event_messages
from hanafuda_referee.hosting.stored import (
    SNAPSHOT_EVERY,
    LogHeader,
    next_check,
    state_after,
    unwrap_state,
    wrap_state,
)
from hanafuda_referee.hosting.tokens import (
    GameMeta,
    hash_token,
    new_game_id,
    new_token,
    seat_of_token,
)
from hanafuda_referee.hosting.turns import (
    LEVELS,
    Cause,
    ClockSettings,
    ClockState,
    Outcome,
    Seats,
    Step,
    bot_move,
    bot_seed,
    bot_to_act,
    catch_up,
    pending_deadline,
    play,
)
from hanafuda_referee.hosting.waiting import DEFAULT_WAITS_PER_CLIENT, WaitSlots, wait_seconds
from hanafuda_referee.hosting.watch_cursor import WatchCursor, WatchSteps
from hanafuda_referee.moves import Move, MoveKind
from hanafuda_referee.observability.logs import annotate, logger
from hanafuda_referee.store import (
    Committed,
    Conflict,
    Duplicate,
    GameExists,
    GameNotFound,
    GameStore,
    StoreFull,
    StoreUnavailable,
    VersionedEvents,
)
from hanafuda_referee.store.validation import check_game_id
from hanafuda_referee.varint import Reader, pack
from hanafuda_referee.writers.forms import MESSAGE

__all__ = ["HostedGames", "MoveReply", "ViewReply", "WatchCursor", "store_failures"]

W = TypeVar("W")

#: Longest display name, in characters.
MAX_NAME_LENGTH = 64
#: Most seats any game has (Hachi-Hachi with the drop phase).
MAX_PLAYERS = 6
#: Longest client request id, in characters (the contract's limit).
MAX_REQUEST_ID_LENGTH = 64
#: Validations of one move against states newer than the cached one before giving up.
MAX_ATTEMPTS = 8
#: Games a sweep works on at once (see :meth:`HostedGames.sweep`).
_SWEEP_TOGETHER = 16
#: Log entries fetched per store read when building a game log.
_LOG_PAGE = 512
#: Events per log page: by default, and at most (PLAY.md: a read costs what a page costs).
LOG_PAGE_DEFAULT = 200
LOG_PAGE_MAX = 1000
#: Events a log page writes between two yields to the event loop (about a millisecond).
_LOG_SLICE = 64
#: Versions read past a log page's end for its last deal's record (Hachi-Hachi's drops follow
#: their deal by one version per participant at most).
_DEAL_LOOKAHEAD = MAX_PLAYERS + 2
_PAGE_TOKEN_FORMAT = 1
#: Watch steps a process keeps for the other watchers of a game (:class:`WatchSteps`): a
#: commit's watchers all read it within a round trip or so, so a thousand is ample, and
#: a watcher that comes too late simply works its step out again.
_WATCH_STEPS = 1024
#: Log entries a ``STALE_VERSION`` refusal reads for a timeout that took the seat's decision.
_STALE_LOOKBACK = 8


class _StoreFailures(ErrorTranslation):
    """The translation of :func:`store_failures`."""

    __slots__ = ("_game_id",)

    def __init__(self, game_id: str = "") -> None:
        self._game_id = game_id

    def translate(self, error: BaseException) -> ApiError | None:
        if isinstance(error, StoreFull):
            return ApiError("STORE_FULL", "the game store is full: no new game until games end")
        if isinstance(error, StoreUnavailable):
            return ApiError("UNAVAILABLE", "the game store is unavailable; retry later")
        if isinstance(error, GameNotFound):
            return ApiError("UNKNOWN_GAME", f"no game {self._game_id!r}")
        return None


def store_failures(game_id: str = "") -> AbstractContextManager[None]:
    """Turns store exceptions into API errors: unavailable, or ``UNKNOWN_GAME`` naming
    ``game_id``."""
    return _StoreFailures(game_id)


def _check_retry(answered: LogHeader, seat: int, move: Move, request_id: str | None) -> None:
    """Refuse a retry whose request id answered another move (or, in principle, another seat:
    ids are stored per seat), like an idempotency key reused with another payload: replaying
    the first answer would tell the client that the move it sent now was made."""
    if answered.seat != seat or answered.move != move:
        raise ApiError(
            "REQUEST_ID_REUSED",
            f"request id {request_id!r} was already used for another move; "
            "a retry must repeat its move, a new move needs a new id",
        )


def _page_token(after: int, deals: int) -> str:
    """A log page token: where the next page starts (the store version the page ended at) and
    the number of deals before it. Opaque to clients; not a secret (it reveals nothing a
    client could not count in the pages it read)."""
    return base64.urlsafe_b64encode(pack(_PAGE_TOKEN_FORMAT, after + 1, deals)).decode()


def _read_page_token(token: str, version: int) -> tuple[int, int]:
    """The start of the page a token names: (store version after which it starts, deals
    before it); the log's start for an empty token."""
    if not token:
        return -1, 0
    try:
        r = Reader(base64.urlsafe_b64decode(token.encode("ascii")))
        token_format, start, deals = r.uint(), r.uint(), r.uint()
        r.done()
    except (ValueError, RulesError):
        token_format = start = deals = -1
    if token_format != _PAGE_TOKEN_FORMAT or not 0 <= start - 1 <= version or len(token) > 64:
        raise ApiError("INVALID_ARGUMENT", "page_token is not a page token of this game's log")
    return start - 1, deals


def _game_id(game_id: str) -> str:
    try:
        check_game_id(game_id)
    except ValueError:
        raise ApiError("INVALID_ARGUMENT", "not a game id") from None
    annotate(game=game_id)
    return game_id


class HostedGames:
    """The store-backed methods of the referee (see the module docstring)."""

    def __init__(
        self,
        store: GameStore,
        *,
        allow_testing: bool = False,
        api_key: str | None = None,
        cache_size: int = 4096,
        clock: Callable[[], float] = time.time,
        creation_limit: CreationLimit | None = None,
        identity: ClientIdentity | None = None,
        client_limits: ClientLimits | None = None,
        memory_ceiling: float = 1.0,
        waits_per_client: int = DEFAULT_WAITS_PER_CLIENT,
    ) -> None:
        self._store = store
        self._allow_testing = allow_testing
        self._cache = GameCache(cache_size)
        self._steps = WatchSteps(_WATCH_STEPS)
        self._clock = clock
        #: The requests waiting for their turn (``wait_seconds``), per client.
        self.wait_slots = WaitSlots(waits_per_client)
        #: Set when the server shuts down: every wait (a turn's, a hint's) answers at once,
        #: every stream ends.
        self.closing = Closing()
        #: Who may create games, and how many (PLAY.md, "Limits": hosting/limits.py).
        self.admission = Admission(
            store,
            identity=identity or ClientIdentity.of([api_key] if api_key else []),
            rate=creation_limit,
            limits=client_limits or ClientLimits(0, 0, 0),
            memory_ceiling=memory_ceiling,
            is_over=self._over,
        )

    @property
    def identity(self) -> ClientIdentity:
        """How the per-client limits name clients."""
        return self.admission.identity

    async def _over(self, game_id: str) -> bool:
        """Whether the game is over or gone, read from the store (for the per-client limits)."""
        try:
            game = await self._load(game_id)
        except ApiError as error:
            if error.reason == "UNKNOWN_GAME":
                return True
            raise
        return game.adapter.is_over(game.state)

    @property
    def store(self) -> GameStore:
        """The game store."""
        return self._store

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    # -- loading and authenticating ------------------------------------------------------------

    def _decode(self, game_id: str, version: int, state: bytes, meta: GameMeta) -> LoadedGame:
        adapter = adapter_for(meta.kind)
        count, clock, engine_state = unwrap_state(state)
        with engine_refusals():
            decoded = adapter.decode_state(engine_state)
        return LoadedGame(game_id, version, decoded, count, meta, adapter, clock=clock)

    async def _load(self, game_id: str) -> LoadedGame:
        with store_failures(game_id):
            record = await self._store.load(game_id)
        if record is None:
            self._cache.drop(game_id)
            raise ApiError("UNKNOWN_GAME", f"no game {game_id!r}")
        game = self._decode(game_id, record.version, record.state, GameMeta.decode(record.meta))
        self._cache.put(game)
        return game

    def _seat(self, caller: Caller, meta: GameMeta, *, required: bool) -> int | None:
        """The caller's seat from its token; None for a spectator (no token, not required)."""
        if not caller.token:
            if required:
                raise ApiError("MISSING_TOKEN", "this method needs a player token")
            return None
        seat = seat_of_token(caller.token, meta.token_hashes)
        if seat is None:
            raise ApiError("BAD_TOKEN", "the player token is not a token of this game")
        annotate(seat=seat)
        return seat

    # -- for the use cases beside this class (hints and reviews: :mod:`.advice`) -------------

    async def load(self, game_id: str) -> LoadedGame:
        """The game as stored now (``UNKNOWN_GAME``, ``UNAVAILABLE`` as any read)."""
        return await self._load(_game_id(game_id))

    async def current(self, game_id: str) -> LoadedGame:
        """The game as stored now, with the timeouts due now applied (as a read applies them)."""
        return await self._current(await self._load(_game_id(game_id)))

    def seat_of(self, caller: Caller, meta: GameMeta) -> int:
        """The seat of the caller's token (``MISSING_TOKEN``, ``BAD_TOKEN``)."""
        seat = self._seat(caller, meta, required=True)
        assert seat is not None
        return seat

    # -- create --------------------------------------------------------------------------------

    async def create(
        self, request: service_pb2.CreateGameRequest, caller: Caller
    ) -> service_pb2.CreateGameResponse:
        """``CreateGame``: see the contract."""
        self.admission.check_key(caller)
        request_id = request.request_id or None
        if request_id is not None:
            if len(request_id) > MAX_REQUEST_ID_LENGTH:
                raise ApiError(
                    "INVALID_ARGUMENT", f"a request id has 1 to {MAX_REQUEST_ID_LENGTH} characters"
                )
            # A retry answers the first outcome, and takes nothing from the creation limit.
            with store_failures():
                kept = await self._store.recall(creation_key(caller, request_id))
            if kept is not None:
                return await self._created_before(request, caller, request_id, kept)
        # Before any other work: a refused creation must cost the server next to nothing.
        with store_failures():
            admitted = await self.admission.admit(request, caller)
        adapter = adapter_for(request.kind)
        if len(request.players) > MAX_PLAYERS:
            raise ApiError("REQUEST_TOO_LARGE", f"at most {MAX_PLAYERS} players")
        for name in request.players:
            if not 0 < len(name) <= MAX_NAME_LENGTH or not name.isprintable():
                raise ApiError(
                    "INVALID_ARGUMENT",
                    f"a player name has 1 to {MAX_NAME_LENGTH} printable characters",
                )
        testing = request.HasField("seed") or len(request.prepared_deals) > 0
        if testing and not self._allow_testing:
            raise ApiError(
                "TESTING_FEATURE_DISABLED",
                "seeds and prepared deals are for tests: this server does not allow them",
            )
        if len(request.prepared_deals) > MAX_DEALS:
            raise ApiError("REQUEST_TOO_LARGE", f"at most {MAX_DEALS} prepared deals")
        seed = request.seed if request.HasField("seed") else secrets.randbits(63)
        deals = [deal_from_proto(d, i) for i, d in enumerate(request.prepared_deals)]
        with engine_refusals():
            state, blobs = adapter.new_game(request, seed, deals)
            engine_state = adapter.encode_state(state)
        count = adapter.seat_count(state)
        seats = self._seats_of(request, count)
        tokens = [new_token() for _ in range(count)]
        now = self._now_ms()
        meta = GameMeta(
            kind=adapter.kind,
            players=tuple(request.players),
            token_hashes=tuple(hash_token(t) for t in tokens),
            created_ms=now,
            seats=seats,
        )
        if seats.plain:
            header = LogHeader(now, 0, None, None, engine_state)
            clock = None
        else:
            # The clocks start now; a bot to act first is pushed on the queue once created.
            clock = None if seats.clock is None else ClockState.start(seats.clock, count, now)
            header = LogHeader.of_steps(now, 0, (), clock, engine_state)
        deadline = next_check(adapter, seats, state, clock, now)
        stored_state = wrap_state(len(blobs), adapter.encode_state(state), clock)
        for _ in range(3):
            game_id = new_game_id()
            try:
                with store_failures(game_id):
                    if deadline is not None:
                        await self._store.propose_deadline(game_id, deadline)
                    await self._store.create(
                        game_id,
                        stored_state,
                        meta.encode(),
                        [header.encode(), *blobs],
                        finished=adapter.is_over(state),
                    )
                break
            except GameExists:  # 128 random bits colliding: draw another id
                continue
        else:
            raise ApiError("UNAVAILABLE", "could not allocate a game id; retry")
        annotate(game=game_id)
        with store_failures(game_id):
            await admitted.hold(game_id)
        if request_id is not None:
            record = seal(caller, request_id, fingerprint(request), game_id, tokens)
            with store_failures(game_id):
                earlier = await self._store.remember(creation_key(caller, request_id), record)
            if earlier is not None:
                # The same creation raced this one and was kept first: it answers, and this
                # game, which nobody will ever hear of, goes.
                with store_failures(game_id):
                    await self._store.delete(game_id)
                return await self._created_before(request, caller, request_id, earlier)
        game = LoadedGame(game_id, 0, state, len(blobs), meta, adapter, clock=clock)
        self._cache.put(game)
        await self._push_bot_turn(game)
        return service_pb2.CreateGameResponse(
            game=game_id,
            player_tokens=tokens,
            view=adapter.view(state, None, game.info, game.api_version, game.extra(MESSAGE)),
        )

    async def _created_before(
        self,
        request: service_pb2.CreateGameRequest,
        caller: Caller,
        request_id: str,
        kept: bytes,
    ) -> service_pb2.CreateGameResponse:
        """The answer to a creation retried with its request id: the first game and tokens,
        with the game's current view; ``REQUEST_ID_REUSED`` when the retry asks for another
        game than the first request did."""
        with engine_refusals():
            digest, game_id, tokens = unseal(caller, request_id, kept)
        if digest != fingerprint(request):
            raise ApiError(
                "REQUEST_ID_REUSED",
                f"request id {request_id!r} was already used for another creation; "
                "a retry must repeat its request, a new game needs a new id",
            )
        annotate(game=game_id)
        game = await self._current(await self._load(game_id))
        return service_pb2.CreateGameResponse(
            game=game_id,
            player_tokens=tokens,
            view=game.adapter.view(
                game.state, None, game.info, game.api_version, game.extra(MESSAGE)
            ),
        )

    def _seats_of(self, request: service_pb2.CreateGameRequest, count: int) -> Seats:
        """The bot seats and clocks a creation asks for, checked."""
        if len(request.bots) > count:
            raise ApiError("INVALID_ARGUMENT", f"{len(request.bots)} bots for {count} seats")
        for seat, level in enumerate(request.bots):
            if level and level not in LEVELS:
                # The reason of an unknown value of any option, the clock's timeout_bot included.
                raise ApiError(
                    "BAD_OPTION_VALUE",
                    f"option bots has no bot level {level} (seat {seat}): "
                    "BOT_LEVEL_RANDOM, BOT_LEVEL_GREEDY or BOT_LEVEL_EXPERT",
                    {"option": "bots"},
                )
        bots = tuple(int(b) for b in request.bots)
        if len(bots) == count and all(bots) and not self._allow_testing:
            raise ApiError(
                "TESTING_FEATURE_DISABLED",
                "a game with no person in it is for tests: this server does not allow it",
            )
        clock = ClockSettings.from_proto(request.clock) if request.HasField("clock") else None
        return Seats(bots if any(bots) else (), clock)

    # -- get -----------------------------------------------------------------------------------

    async def get(self, request: service_pb2.GetGameRequest, caller: Caller) -> ViewReply:
        """``GetGame``: a fresh read, as a seat or a spectator (built by the transport, see
        :class:`ViewReply`)."""
        seconds = wait_seconds(request.wait_seconds)
        game = await self._current(await self._load(_game_id(request.game)))
        seat = self._seat(caller, game.meta, required=False)
        if seconds and not self._ready(game.adapter, game.state, seat, moved=False):
            await self._wait(game, seat, seconds, caller)
            game = await self._current(await self._load(game.game_id))
        return ViewReply(game, seat)

    # -- waiting for one's turn ----------------------------------------------------------------

    def shut_down(self) -> None:
        """The server shuts down: every request waiting for its turn answers now, and every
        ``WatchGame`` stream ends (see :mod:`.closing`)."""
        self.closing.close()

    @staticmethod
    def _ready(adapter: GameAdapter[Any], state: Any, seat: int | None, *, moved: bool) -> bool:
        """Whether a wait is over: the game is over, or ``seat`` is to act, or (a spectator)
        the game ``moved`` on."""
        if adapter.is_over(state):
            return True
        return moved if seat is None else adapter.to_act(state) == seat

    async def _wait(
        self, game: LoadedGame, seat: int | None, seconds: int, caller: Caller
    ) -> list[service_pb2.WatchGameResponse]:
        """Follow the game's log from ``game`` on, as ``seat`` sees it, until the wait is over
        (:meth:`_ready`), ``seconds`` have passed or the server shuts down: what each version
        committed meanwhile showed the seat (empty: nothing happened)."""
        items: list[service_pb2.WatchGameResponse] = []
        cursor = WatchCursor(
            game, seat, game.state, game.version, game.version + 1, steps=self._steps
        )

        async def follow() -> None:
            async for entry in self._store.watch(game.game_id, cursor.after):
                item = cursor.advance(entry)
                if item is not None:
                    items.append(item)
                if cursor.over or self._ready(game.adapter, cursor.state, seat, moved=True):
                    return

        with self.wait_slots.slot(self.identity.client_of(caller)):
            following = asyncio.ensure_future(follow())
            closing = asyncio.ensure_future(self.closing.wait())
            try:
                await asyncio.wait(
                    (following, closing), timeout=seconds, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                for task in (following, closing):
                    task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await following
            if following.done() and not following.cancelled() and following.exception():
                # A store failure while following: answer what was seen, as at the time limit.
                logger.warning("wait for a turn ended by the store", game=game.game_id)
        return items

    # -- submit --------------------------------------------------------------------------------

    async def submit(self, request: service_pb2.SubmitMoveRequest, caller: Caller) -> MoveReply:
        """``SubmitMove``: see the module docstring for the round trips. The answer is built by
        the transport, in its own form (see :class:`MoveReply`)."""
        game_id = _game_id(request.game)
        seconds = wait_seconds(request.wait_seconds)
        if seconds:
            # Refused before the move, not after it: a refused request changes nothing.
            self.wait_slots.check(self.identity.client_of(caller))
        try:
            answer = await self._submit(game_id, request, caller)
        except ApiError as error:
            if error.reason == "UNKNOWN_GAME":
                self._cache.drop(game_id)  # it expired: forget what this process knew of it
            raise
        after = answer.game
        if not seconds or self._ready(after.adapter, after.state, answer.seat, moved=False):
            return answer
        later = await self._wait(after, answer.seat, seconds, caller)
        return MoveReply(after, answer.seat, answer.entry, answer.header, later)

    async def _submit(
        self, game_id: str, request: service_pb2.SubmitMoveRequest, caller: Caller
    ) -> MoveReply:
        if not request.HasField("move"):
            raise ApiError("INVALID_ARGUMENT", "the request needs a move")
        move = move_from_proto(request.move)
        request_id = request.request_id or None
        if request_id is not None and len(request_id) > MAX_REQUEST_ID_LENGTH:
            raise ApiError(
                "INVALID_ARGUMENT", f"a request id has 1 to {MAX_REQUEST_ID_LENGTH} characters"
            )
        if not caller.token:
            raise ApiError("MISSING_TOKEN", "submitting a move needs a player token")

        game = self._cache.get(game_id)
        # Whether `game` is known current (just read from the store), and whether the store has
        # also said that the request id was never answered.
        fresh = duplicates_checked = False
        if game is None:
            game = await self._load(game_id)
            fresh = True
        seat = self._seat(caller, game.meta, required=True)
        assert seat is not None
        seats = game.adapter.seat_count(game.state)
        if request.HasField("seat") and request.seat != seat:
            if request.seat >= seats:
                raise ApiError("UNKNOWN_SEAT", f"the game has seats 0 to {seats - 1}")
            raise ApiError("PERMISSION_DENIED", "the player token is not that seat's")
        # Request ids are per seat: another seat's id never answers for this one.
        store_request_id = None if request_id is None else f"{seat}:{request_id}"

        plain = game.meta.seats.plain
        # The timeouts this request applied to the seat's own decisions (PLAY.md): a move for
        # a decision a timeout took is refused TIMED_OUT, saying what the timeout did.
        taken: list[Step] = []
        for _ in range(MAX_ATTEMPTS):
            refusal: ApiError | None = None
            answer: MoveReply | None = None
            outcome: Outcome | None = None
            now = self._now_ms()
            if game.meta.seats.clock is not None:
                due = await self._apply_timeouts(game, now)
                if due is not None:
                    game, applied = due
                    taken += (s for s in applied if s.seat == seat)
                    fresh = True
            if taken and move.kind is not MoveKind.RESIGN:
                refusal = ApiError(
                    "TIMED_OUT",
                    f"seat {seat}'s clock ran out: the timeout took its decision "
                    f"({taken[-1].move}); the game is at version {game.api_version}",
                    {"taken": str(taken[-1].move), "current_version": str(game.api_version)},
                )
            elif request.HasField("expected_version") and (
                request.expected_version != game.api_version
            ):
                refusal = ApiError(
                    "STALE_VERSION",
                    f"the game is at version {game.api_version}, not {request.expected_version}",
                    {"current_version": str(game.api_version)},
                )
                if game.meta.seats.clock is not None:
                    refusal = await self._stale_after_timeout(
                        game, request.expected_version, seat, refusal
                    )
            else:
                try:
                    with engine_refusals():
                        if plain:
                            new_state, blobs = game.adapter.apply(game.state, seat, move)
                            outcome = Outcome(new_state, None, blobs=blobs)
                        else:
                            # No bot decides here: a bot seat's turn goes to the queue once
                            # the move is committed.
                            outcome = play(
                                game.adapter,
                                game.meta.seats,
                                game.state,
                                game.clock,
                                seat,
                                move,
                                now,
                                game.event_count,
                            )
                except ApiError as error:
                    refusal = error
            if refusal is not None:
                if fresh and (store_request_id is None or duplicates_checked):
                    raise refusal
                # Ask the store whether this is a retry, and for the current state: a commit
                # expecting version -1 never applies.
                with store_failures(game_id):
                    result = await self._store.commit(game_id, -1, b"", (), store_request_id, b"")
            else:
                assert outcome is not None
                blobs = outcome.blobs
                header = (
                    LogHeader(now, game.event_count, seat, move, snapshot(game))
                    if plain
                    else LogHeader.of_steps(
                        now, game.event_count, outcome.steps, outcome.clock, snapshot(game)
                    )
                )
                entry = [header.encode(), *blobs]
                after = game.at(
                    game.version + 1, outcome.state, game.event_count + len(blobs), outcome.clock
                )
                answer = MoveReply(after, seat, entry, header)
                stored = wrap_state(
                    after.event_count, game.adapter.encode_state(outcome.state), outcome.clock
                )
                with store_failures(game_id):
                    if not plain:
                        await self._propose_deadline(after)
                    result = await self._store.commit(
                        game_id,
                        game.version,
                        stored,
                        entry,
                        store_request_id,
                        # Nothing: a retry's answer is rebuilt from the log (_replayed_answer),
                        # which keeps a busy game small in the store.
                        b"",
                        # A finished game stays readable for its own retention time.
                        finished=game.adapter.is_over(outcome.state),
                    )
            match result:
                case Committed():
                    assert answer is not None
                    self._cache.put(after)
                    if not plain:
                        await self._push_bot_turn(after)
                    return answer
                case Duplicate(version=answered):
                    return await self._replayed_answer(game, seat, answered, move, request_id)
                case Conflict(version=version, state=state):
                    if refusal is not None and version == game.version:
                        raise refusal
                    game = self._decode(game_id, version, state, game.meta)
                    self._cache.put(game)
                    fresh = duplicates_checked = True
        raise ApiError("UNAVAILABLE", "the game changed too often to take the move; retry")

    async def _stale_after_timeout(
        self, game: LoadedGame, expected: int, seat: int, refusal: ApiError
    ) -> ApiError:
        """``refusal`` (``STALE_VERSION``), saying what was taken for ``seat`` when a timeout took
        the decision the move was for since version ``expected`` (PLAY.md: as ``TIMED_OUT``
        does). Reads the log from there, a few entries at most."""
        if not 0 < expected < game.api_version:
            return refusal
        with store_failures(game.game_id):
            entries = await self._store.events(
                game.game_id, expected - 1, min(game.api_version - expected, _STALE_LOOKBACK)
            )
        for entry in entries:
            for step in LogHeader.decode(entry.events[0]).steps:
                if step.seat == seat and step.cause in (Cause.AUTO, Cause.TIMEOUT_RESIGN):
                    return ApiError(
                        "STALE_VERSION",
                        f"{refusal.message}: seat {seat}'s clock ran out and the timeout took "
                        f"its decision ({step.move})",
                        {**refusal.metadata, "taken": str(step.move)},
                    )
        return refusal

    async def _propose_deadline(self, game: LoadedGame) -> None:
        """Enter the game's next timeout in the store's index, before the commit that makes it
        (see :meth:`~hanafuda_referee.store.GameStore.propose_deadline`); or, when the commit
        hands the turn to a bot, the time the sweeper checks that its turn was not lost (see
        :mod:`.bot_turns`)."""
        deadline = next_check(game.adapter, game.meta.seats, game.state, game.clock, self._now_ms())
        if deadline is not None:
            await self._store.propose_deadline(game.game_id, deadline)

    async def _push_bot_turn(self, game: LoadedGame) -> None:
        """Once ``game`` is committed: queue its bot seat's turn if a bot is to act. A push
        that fails is logged, not raised: the commit stands and was answered, and the sweeper
        pushes the turn again (see :mod:`.bot_turns`)."""
        if bot_to_act(game.adapter, game.meta.seats, game.state) is None:
            return
        try:
            await self._store.push_bot_turn(game.game_id, game.version)
        except StoreUnavailable:
            logger.warning(
                "bot turn not queued: the sweeper queues it again",
                game=game.game_id,
                version=game.api_version,
            )

    # -- bot turns -----------------------------------------------------------------------------

    async def play_bot_turn(
        self,
        game_id: str,
        version: int,
        decide: Callable[[BotDecision], Awaitable[Move]],
    ) -> BotTurnResult:
        """A bot seat's turn, taken from the bot queue (see :mod:`.bot_turns`): the game at store
        ``version`` waits for its bot. ``decide`` gives the bot's move from a
        :class:`~.bot_turns.BotDecision` (a bot worker's search, in whatever process it runs).
        The move is committed through the compare-and-set, as ``bot:<version>``; the next bot's
        turn, if a bot is to act again, is pushed. Raises ``ApiError`` (``UNAVAILABLE``) when the
        store fails: the turn stays on the queue and is taken again."""
        try:
            game = await self._load(game_id)
        except ApiError as error:
            if error.reason == "UNKNOWN_GAME":
                return BotTurnResult.DROPPED
            raise
        if game.version != version:
            return BotTurnResult.DROPPED
        acting = bot_to_act(game.adapter, game.meta.seats, game.state)
        if acting is None:
            return BotTurnResult.DROPPED
        seat, level = acting
        seed = bot_seed(game.adapter.seed(game.state), game.event_count, seat)
        decision = BotDecision(
            game_id,
            version,
            seat,
            level,
            game.adapter.engine_view(game.state, seat),
            seed,
            "koikoi" if game.adapter.kind == rules_pb2.GAME_KIND_KOI_KOI else "hachihachi",
        )
        move = await decide(decision)
        now = self._now_ms()
        with engine_refusals():
            outcome = bot_move(
                game.adapter, game.meta.seats, game.state, game.clock, seat, move, now
            )
        header = LogHeader.of_steps(
            now, game.event_count, outcome.steps, outcome.clock, snapshot(game)
        )
        entry = [header.encode(), *outcome.blobs]
        after = game.at(
            game.version + 1,
            outcome.state,
            game.event_count + len(outcome.blobs),
            outcome.clock,
        )
        stored = wrap_state(
            after.event_count, game.adapter.encode_state(outcome.state), outcome.clock
        )
        with store_failures(game_id):
            await self._propose_deadline(after)
            result = await self._store.commit(
                game_id,
                game.version,
                stored,
                entry,
                bot_request_id(game.version),
                b"",
                finished=game.adapter.is_over(outcome.state),
            )
        if not isinstance(result, Committed):
            # Another worker, or a retry of this one, applied the turn first.
            return BotTurnResult.DROPPED
        self._cache.put(after)
        await self._push_bot_turn(after)
        return BotTurnResult.PLAYED

    async def _turn_started(self, game: LoadedGame) -> int:
        """When the pending decision started (Unix milliseconds): its clock's start, else the
        time of the commit that produced the game's version."""
        if game.clock is not None:
            return game.clock.started_ms
        with store_failures(game.game_id):
            entries = await self._store.events(game.game_id, game.version - 1, 1)
        return LogHeader.decode(entries[0].events[0]).time_ms if entries else game.meta.created_ms

    async def _apply_timeouts(
        self, game: LoadedGame, now: int
    ) -> tuple[LoadedGame, list[Step]] | None:
        """Commit the timeouts due at ``now`` (PLAY.md), racing the other replicas through the
        same compare-and-set: the game as they left it and the timeouts this call applied
        (the others' are in the game already), or None when none was due. Every request that
        reads or changes a game with clocks comes here first, and so does the sweeper."""
        applied: list[Step] = []
        changed = False
        for _ in range(MAX_ATTEMPTS):
            seats = game.meta.seats
            deadline = pending_deadline(game.adapter, seats, game.state, game.clock)
            if deadline is None or deadline > now:
                # Nothing due: the common case, answered without leaving the event loop.
                return (game, applied) if changed else None
            with engine_refusals():
                # On the event loop: a timeout's decision is a random or greedy bot's, well
                # under a millisecond (PLAY.md, "Bounded work"), and a bot seat's reply to it
                # goes to the bot queue; a thread's hand-off would cost more than the work.
                due = catch_up(game.adapter, seats, game.state, game.clock, now, game.event_count)
            if not due.steps:
                return (game, applied) if changed else None
            header = LogHeader.of_steps(now, game.event_count, due.steps, due.clock, snapshot(game))
            entry = [header.encode(), *due.blobs]
            after = game.at(
                game.version + 1, due.state, game.event_count + len(due.blobs), due.clock
            )
            stored = wrap_state(after.event_count, game.adapter.encode_state(due.state), due.clock)
            with store_failures(game.game_id):
                await self._propose_deadline(after)
                result = await self._store.commit(
                    game.game_id,
                    game.version,
                    stored,
                    entry,
                    None,
                    b"",
                    finished=game.adapter.is_over(due.state),
                )
            changed = True
            match result:
                case Committed():
                    self._cache.put(after)
                    applied += due.timed_out
                    await self._push_bot_turn(after)
                    return after, applied
                case Conflict(version=version, state=state):
                    game = self._decode(game.game_id, version, state, game.meta)
                    self._cache.put(game)
                case Duplicate():  # pragma: no cover - no request id was sent
                    raise AssertionError("a commit without a request id answered as a retry")
        raise ApiError("UNAVAILABLE", "the game changed too often to apply its timeouts; retry")

    async def _current(self, game: LoadedGame) -> LoadedGame:
        """``game`` with the timeouts due now applied (a game without clocks as it is)."""
        if game.meta.seats.clock is None:
            return game
        due = await self._apply_timeouts(game, self._now_ms())
        return game if due is None else due[0]

    async def sweep(self, limit: int = 100, until: float | None = None) -> int:
        """Apply the timeouts due now of up to ``limit`` games of the store's index of
        deadlines, oldest deadline first, and settle their entries: how many games were looked
        at. Every replica runs this about once a second (``serving``), so that a timeout
        happens, and its watchers see it, when nobody calls; replicas race through the
        compare-and-set, so each timeout is applied once.

        ``until`` (a :func:`time.monotonic` instant) bounds the work: past it the sweep stops
        after the game in hand and leaves the rest, still due, to the next one."""
        now = self._now_ms()
        with store_failures():
            due = await self._store.due_deadlines(now, limit)
        looked = 0
        # A few games at a time: a game's sweep is mostly waiting on the store, so its round
        # trips overlap those of the others; the budget is checked between batches.
        for start in range(0, len(due), _SWEEP_TOGETHER):
            if until is not None and looked and time.monotonic() >= until:
                break
            batch = due[start : start + _SWEEP_TOGETHER]
            await asyncio.gather(*(self._sweep_one(game_id, seen, now) for game_id, seen in batch))
            looked += len(batch)
            # Requests that arrived meanwhile run before the next batch, even on a store that
            # answers without suspending (the in-process one).
            await asyncio.sleep(0)
        return looked

    async def _sweep_one(self, game_id: str, seen: int, now: int) -> None:
        """Apply the timeouts due of one game of the index (or push its waiting bot's turn
        again), and settle its entry."""
        try:
            game = await self._current(await self._load(game_id))
        except ApiError as error:
            if error.reason != "UNKNOWN_GAME":
                raise
            with store_failures():
                await self._store.settle_deadline(game_id, seen, None)
            return
        deadline = pending_deadline(game.adapter, game.meta.seats, game.state, game.clock)
        if bot_to_act(game.adapter, game.meta.seats, game.state) is not None:
            deadline = await self._check_bot_turn(game, now)
        with store_failures():
            await self._store.settle_deadline(game_id, seen, deadline)

    async def sweep_lag(self) -> float:
        """How far the sweeper is behind, in seconds: now less the oldest deadline of the
        index that is due (0.0 when none is). Right after a sweep that finished its work it is
        about 0; it grows while more is due than the sweeps' budget lets them apply."""
        now = self._now_ms()
        with store_failures():
            due = await self._store.due_deadlines(now, 1)
        return max(0, now - due[0][1]) / 1000 if due else 0.0

    async def _check_bot_turn(self, game: LoadedGame, now: int) -> int:
        """The sweeper's look at a game whose bot is to act: push its turn again when the bot
        has waited :data:`~.bot_turns.BOT_STALL_MS` (its push may have failed); the next time to
        look."""
        started = await self._turn_started(game)
        if now - started < BOT_STALL_MS:
            return started + BOT_STALL_MS
        logger.warning(
            "bot turn waiting long: queued again",
            game=game.game_id,
            version=game.api_version,
            waited_ms=now - started,
        )
        with store_failures(game.game_id):
            await self._store.push_bot_turn(game.game_id, game.version)
        return now + BOT_STALL_MS

    async def _replay_start(self, game: LoadedGame, version: int) -> int:
        """Where a replay up to store ``version`` starts reading the log (the store version it
        reads after): at the last snapshot at or before ``version`` (see :func:`snapshot`),
        so that a resume costs at most a snapshot's interval of moves whatever the game's
        length; at the creation for a game logged before snapshots were."""
        start = version // SNAPSHOT_EVERY * SNAPSHOT_EVERY
        if start == 0:
            return -1
        with store_failures(game.game_id):
            entries = await self._store.events(game.game_id, start - 1, 1)
        if entries and LogHeader.decode(entries[0].events[0]).initial_state:
            return start - 1
        return -1

    async def _replayed_answer(
        self, game: LoadedGame, seat: int, version: int, move: Move, request_id: str | None
    ) -> MoveReply:
        """The answer ``seat`` got for the move that produced (store) ``version``, rebuilt by
        replaying the log: the same events and view, byte for byte. Retries are rare; storing
        every answer instead would make each game several times larger in the store.

        Refused with ``REQUEST_ID_REUSED`` when that move is not ``move`` (see
        :func:`_check_retry`)."""
        state: Any = None
        blobs: Sequence[bytes] = ()
        header: LogHeader | None = None
        after = await self._replay_start(game, version)
        while after < version:
            with store_failures(game.game_id):
                page = await self._store.events(
                    game.game_id, after, min(_LOG_PAGE, version - after)
                )
            if not page:
                raise ApiError("UNAVAILABLE", "the game's log is incomplete; retry")
            for entry in page:
                header = LogHeader.decode(entry.events[0])
                state = state_after(game.adapter, state, header)
                blobs = entry.events
            after = page[-1].version
        assert header is not None  # the loop read at least the answered version's entry
        _check_retry(header, seat, move, request_id)
        # The game as the answered move left it: its events numbered on from the entry's first.
        answered = game.at(version, state, header.sequence + len(blobs) - 1, header.clock)
        return MoveReply(answered, seat, blobs, header)

    # -- watch ---------------------------------------------------------------------------------

    async def open_watch(
        self, request: service_pb2.WatchGameRequest, caller: Caller
    ) -> WatchCursor:
        """Where ``WatchGame`` starts (see :mod:`.watching`): the game read, the caller's seat
        checked, and, without ``from_version``, the current view as the stream's first item."""
        game_id = _game_id(request.game)
        game = await self._current(await self._load(game_id))
        seat = self._seat(caller, game.meta, required=False)
        if request.HasField("from_version"):
            if request.from_version > game.api_version:
                raise ApiError(
                    "INVALID_ARGUMENT",
                    f"from_version {request.from_version} is ahead of the game "
                    f"(version {game.api_version})",
                )
            # Replay the log from the creation, silently up to the resume point.
            after = await self._replay_start(game, request.from_version)
            return WatchCursor(game, seat, None, after, request.from_version, steps=self._steps)
        first = service_pb2.WatchGameResponse(
            view=game.adapter.view(
                game.state, seat, game.info, game.api_version, game.extra(MESSAGE)
            ),
            version=game.api_version,
        )
        over = game.adapter.is_over(game.state)
        return WatchCursor(
            game, seat, game.state, game.version, game.version + 1, first, over, self._steps
        )

    def watch_entries(self, cursor: WatchCursor) -> AsyncIterator[VersionedEvents]:
        """The store's log entries after the cursor's start, then each new one as it comes."""
        return self._store.watch(cursor.game.game_id, cursor.after)

    # -- log -----------------------------------------------------------------------------------

    async def log(
        self, request: service_pb2.GetGameLogRequest, caller: Caller
    ) -> service_pb2.GetGameLogResponse:
        """``GetGameLog``: one page of the events as the caller may see them; the seed and the
        page's deals too once the game is over. A page token holds the store version the page
        ended at and the number of deals before it, so a page reads only its own entries."""
        game_id = _game_id(request.game)
        game = await self._current(await self._load(game_id))
        seat = self._seat(caller, game.meta, required=False)
        size = min(request.page_size or LOG_PAGE_DEFAULT, LOG_PAGE_MAX)
        after, first_deal = _read_page_token(request.page_token, game.version)
        response = service_pb2.GetGameLogResponse()
        blobs: list[bytes] = []
        full = False
        while after < game.version and not full:
            with store_failures(game_id):
                # Every entry holds an event at least: no more entries than the page needs.
                wanted = min(_LOG_PAGE, game.version - after, size - len(response.events))
                entries = await self._store.events(game_id, after, wanted)
            if not entries:
                break
            written = len(response.events)
            for entry in entries:
                if entry.version > game.version:
                    break  # moved on since the load: stay consistent with the state read
                response.events.extend(
                    event_messages(game, game.state, entry.version, entry.events, seat)
                )
                blobs.extend(entry.events[1:])
                after = entry.version
                if len(response.events) >= size:
                    full = True
                    break
                if len(response.events) - written >= _LOG_SLICE:
                    # A long page is written in slices: other requests go on in between.
                    await asyncio.sleep(0)
                    written = len(response.events)
        deals = game.adapter.deals_in(blobs)
        if after < game.version:
            response.next_page_token = _page_token(after, first_deal + deals)
        if game.adapter.is_over(game.state):
            response.seed = game.adapter.seed(game.state)
            if deals:
                ahead: list[bytes] = []
                if after < game.version:
                    with store_failures(game_id):
                        for entry in await self._store.events(game_id, after, _DEAL_LOOKAHEAD):
                            ahead.extend(entry.events[1:])
                records = game.adapter.deal_records(game.state, blobs + ahead, first_deal)
                response.deals.extend(records[:deals])
        return response

    async def count_games(self) -> int:
        """How many games the store holds (for the active games gauge)."""
        with store_failures():
            return await self._store.count_games()
