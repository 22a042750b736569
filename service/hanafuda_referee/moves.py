"""Moves: what a seat submits. One small value type serves both games.

>>> Move.play(Card.PINE_CRANE)
Move(kind=<MoveKind.PLAY: 1>, card=1, target=0)
>>> str(Move.play(Card.PINE_CRANE, Card.PINE_PLAIN_1))
'play pine-crane -> pine-plain-1'
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from hanafuda_referee.cards import Card

__all__ = ["DROP", "JOIN", "KOIKOI", "RESIGN", "SAGE", "SHOBU", "STOP", "Move", "MoveKind"]


class MoveKind(IntEnum):
    """The kinds of move; numbered as the protobuf ``MoveKind`` enum."""

    #: Play a hand card; ``target`` names the field card to take when two of its month lie there.
    PLAY = 1
    #: Name the field card the drawn card takes (two of its month lie there).
    CHOOSE_TARGET = 2
    #: Koi-Koi: go on after a new or improved yaku.
    KOIKOI = 3
    #: Koi-Koi: stop (shōbu / agari) and score.
    STOP = 4
    #: Hachi-Hachi: go on after a dekiyaku, hoping for another.
    SAGE = 5
    #: Hachi-Hachi: end the round after a dekiyaku.
    SHOBU = 6
    #: Hachi-Hachi drop phase: take part in the round.
    JOIN = 7
    #: Hachi-Hachi drop phase: sit the round out.
    DROP = 8
    #: Either game: give up the game (PLAY.md). Open to any seat at any time while the game is
    #: not over, so never listed among the legal moves of the seat to act.
    RESIGN = 9


class Move(NamedTuple):
    """A move. ``card`` and ``target`` are card numbers, 0 when the move has none."""

    kind: MoveKind
    card: int = 0
    target: int = 0

    @classmethod
    def play(cls, card: int, target: int = 0) -> Move:
        return cls(MoveKind.PLAY, int(card), int(target))

    @classmethod
    def choose(cls, target: int) -> Move:
        return cls(MoveKind.CHOOSE_TARGET, 0, int(target))

    def __str__(self) -> str:
        name = self.kind.name.lower().replace("_", "-")
        if self.kind is MoveKind.PLAY:
            text = f"{name} {Card(self.card).code}"
            return f"{text} -> {Card(self.target).code}" if self.target else text
        if self.kind is MoveKind.CHOOSE_TARGET:
            return f"{name} {Card(self.target).code}"
        return name


KOIKOI = Move(MoveKind.KOIKOI)
STOP = Move(MoveKind.STOP)
SAGE = Move(MoveKind.SAGE)
SHOBU = Move(MoveKind.SHOBU)
JOIN = Move(MoveKind.JOIN)
DROP = Move(MoveKind.DROP)
RESIGN = Move(MoveKind.RESIGN)
