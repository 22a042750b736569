"""The one interface through which a game kind plugs into the hosted-games layer.

The hosted-games layer (:mod:`.games`) knows versions, tokens, the store, caching and streaming;
it knows nothing of any game's rules. Each game kind brings a :class:`GameAdapter`: how to start
a game from a ``CreateGameRequest``, apply a move, list legal moves, encode its state and its
events to bytes (the full truth, compactly) and project them into ``GameView`` and ``Event``
messages for one seat or a spectator. Adding a game kind is writing one adapter and registering
it in :func:`.kinds.adapter_for`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from hanafuda.v1 import events_pb2, game_pb2, rules_pb2, service_pb2

from hanafuda_referee.dealing import Deal
from hanafuda_referee.moves import Move
from hanafuda_referee.writers.forms import Form, WrittenEvent

__all__ = ["GameAdapter", "GameInfo"]

State = TypeVar("State")
W = TypeVar("W")


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What the hosted-games layer knows of a game besides its engine state."""

    #: The game id.
    game_id: str
    #: The players' display names, by seat.
    players: tuple[str, ...]


class GameAdapter(Protocol[State]):
    """One game kind, as the hosted-games layer drives it. ``State`` is the engine's state value.

    Every method is pure. Refusals are raised as :class:`ApiError` (or as the engine's own
    ``MoveRejected`` / ``RulesError``, which the caller maps to the same reasons).
    """

    #: The ``GameKind`` number this adapter plays.
    kind: int

    def new_game(
        self,
        request: service_pb2.CreateGameRequest,
        seed: int,
        deals: Sequence[Deal],
    ) -> tuple[State, list[bytes]]:
        """A new game from a creation request (rules, players, first dealer already in it), its
        seed and prepared deals: the dealt state and the encoded events of the creation."""
        ...

    def apply(
        self, state: State, seat: int, move: Move, *, timed_out: bool = False
    ) -> tuple[State, list[bytes]]:
        """The state after ``seat`` plays ``move`` and the encoded events it caused; raises the
        engine's refusal (the state is a value, so a refused move changes nothing).
        ``timed_out``: a resignation the seat's clock made (its event says so)."""
        ...

    def to_act(self, state: State) -> int | None:
        """The seat whose decision is pending; None once the game is over."""
        ...

    def engine_view(self, state: State, seat: int) -> Any:
        """The engine's own view of ``state`` for ``seat``: what a bot of that seat decides
        from (the same information as the seat's ``GameView``)."""
        ...

    def advance(self, state: State, seat: int, move: Move) -> State:
        """The state :meth:`apply` gives, without encoding the move's events: replaying a
        logged move (a retry's answer, a resumed watch) needs only the state, the log holding
        the events already."""
        ...

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """The moves ``seat`` may make now (empty when it is not the seat to act)."""
        ...

    def seat_count(self, state: State) -> int:
        """The number of seats of the game."""
        ...

    def is_over(self, state: State) -> bool:
        """Whether the game has ended."""
        ...

    def view(
        self,
        state: State,
        seat: int | None,
        game: GameInfo,
        version: int,
        extra: Mapping[str, object] | None = None,
    ) -> game_pb2.GameView:
        """The game as ``seat`` (None: a spectator) may see it, legal moves included;
        ``extra``: fields of the view the hosting layer adds (clocks, bots), written in the
        message form."""
        ...

    def written_view(
        self,
        state: State,
        seat: int | None,
        game: GameInfo,
        version: int,
        form: Form[W],
        extra: Mapping[str, object] | None = None,
    ) -> W:
        """:meth:`view` written in ``form``, byte for byte what ``form.message`` of it gives;
        an adapter may write it without building the message. ``extra``: fields the hosting
        layer adds, already written in ``form``."""
        ...

    def event(
        self, state: State, blob: bytes, seat: int | None, game: GameInfo
    ) -> events_pb2.Event:
        """One encoded event as ``seat`` may see it, without its version, sequence or time
        (``state`` is the game's current state: it supplies the rules)."""
        ...

    def written_event(
        self, state: State, blob: bytes, seat: int | None, game: GameInfo, form: Form[W]
    ) -> WrittenEvent[W]:
        """:meth:`event` written in ``form`` (as
        :func:`hanafuda_referee.writers.forms.written_event` of it); an adapter may keep the written
        events that recur."""
        ...

    def encode_state(self, state: State) -> bytes:
        """The state as compact bytes."""
        ...

    def decode_state(self, data: bytes) -> State:
        """The state :meth:`encode_state` wrote."""
        ...

    def seed(self, state: State) -> int:
        """The seed of the game's random number generator."""
        ...

    def deal_records(
        self, state: State, blobs: Sequence[bytes], first: int = 0
    ) -> list[game_pb2.DealRecord]:
        """The deal of each deal event among ``blobs`` (encoded events, in log order, redeals
        included), with its round and dealer, from the game's state; ``first`` is the number of
        deals the log made before ``blobs``. The blobs may run past the last deal wanted: what a
        deal record needs from the events after its deal (Hachi-Hachi's drops) is read there."""
        ...

    def deals_in(self, blobs: Sequence[bytes]) -> int:
        """How many deal events ``blobs`` hold."""
        ...

    def presets(self) -> list[rules_pb2.Preset]:
        """The game's presets, its default first, every option resolved."""
        ...
