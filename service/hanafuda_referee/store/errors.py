"""The exceptions of the game store.

Callers branch on two things only: "the store cannot answer right now"
(:class:`StoreUnavailable`, which the API maps to *unavailable*) and "the game is not what you
assumed" (:class:`GameExists`, :class:`GameNotFound`). Anything else raised as
:class:`StoreError` is a defect, not a condition to handle.

The names state a condition, like the service's ``MoveRejected``, hence no ``Error`` suffix.
"""

from __future__ import annotations

__all__ = ["GameExists", "GameNotFound", "StoreError", "StoreFull", "StoreUnavailable"]


class StoreError(Exception):
    """Base class of every error raised by a game store."""


class StoreUnavailable(StoreError):
    """The backing server is down, unreachable, overloaded or too slow to answer in time.

    Raised fast (bounded by the configured timeouts), never after hanging. For a commit it means
    the outcome is unknown: the script may have run before the reply was lost. Retrying the commit
    with the same request id is safe and tells which it was (a duplicate answer, or a fresh
    commit); retrying without one could apply a move twice, which is why the store never retries
    a commit by itself.
    """


class StoreFull(StoreUnavailable):
    """The store holds as many games as it may: a new game is refused until games expire,
    while the games it holds go on. The in-process store raises it at its ``max_games``; a Redis
    at its memory limit refuses a creation as :class:`StoreUnavailable`."""


class GameExists(StoreError):
    """``create`` was given the id of a game that is still stored."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} already exists")
        self.game_id = game_id


class GameNotFound(StoreError):
    """The game does not exist: never created, deleted, or expired after its idle time."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id
