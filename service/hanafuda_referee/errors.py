"""Stable reason codes for every rejection, and the exceptions that carry them.

A reason is part of the API: clients branch on it, both transports map it to the same status, and
its spelling never changes once released.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["MoveRejected", "Reason", "RulesError"]


class Reason(StrEnum):
    """Why a request was refused. The value is the wire spelling."""

    # A move that the rules refuse.
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    UNKNOWN_SEAT = "UNKNOWN_SEAT"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    TARGET_REQUIRED = "TARGET_REQUIRED"
    TARGET_DOES_NOT_MATCH = "TARGET_DOES_NOT_MATCH"
    #: The move is not the kind of move the game waits for (e.g. a card while a decision is due).
    WRONG_MOVE = "WRONG_MOVE"
    #: A koi-koi/stop or sage/shōbu answer when no such decision is pending.
    NO_DECISION_PENDING = "NO_DECISION_PENDING"
    #: The move carries a card or target its kind does not take (e.g. a card with ``koikoi``).
    MALFORMED_MOVE = "MALFORMED_MOVE"
    #: The move exists, but this game kind has no such move (e.g. ``sage`` in Koi-Koi).
    MOVE_NOT_IN_GAME = "MOVE_NOT_IN_GAME"
    #: Reserved, never raised: where koi-koi may not be called (empty hand, call limit) the
    #: engine stops for the player without asking (see ``hanafuda.v1.Reason``).
    KOIKOI_NOT_ALLOWED = "KOIKOI_NOT_ALLOWED"
    GAME_OVER = "GAME_OVER"
    # Rule sets.
    UNKNOWN_PRESET = "UNKNOWN_PRESET"
    UNKNOWN_OPTION = "UNKNOWN_OPTION"
    BAD_OPTION_VALUE = "BAD_OPTION_VALUE"
    # Inputs to games and stateless methods.
    BAD_DEAL = "BAD_DEAL"
    BAD_CARDS = "BAD_CARDS"
    BAD_ENCODING = "BAD_ENCODING"
    # Hosted games (the service's, not the engine's).
    #: A move's request id was already used by the same seat for a different move.
    REQUEST_ID_REUSED = "REQUEST_ID_REUSED"


class MoveRejected(Exception):
    """A move the rules refuse. The state it was applied to is unchanged (states are values).

    >>> try:
    ...     raise MoveRejected(Reason.NOT_YOUR_TURN, "seat 1 is to play")
    ... except MoveRejected as rejection:
    ...     rejection.reason
    <Reason.NOT_YOUR_TURN: 'NOT_YOUR_TURN'>
    """

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"MoveRejected({self.reason.value}, {self.message!r})"


class RulesError(ValueError):
    """A rule set that cannot be built: unknown preset, unknown option or bad value.

    The message names the option and the values it allows.
    """

    def __init__(self, reason: Reason, message: str, option: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.option = option
