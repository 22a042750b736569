"""The Redis key names of a game.

Every key of one game carries the game id as its hash tag (``<prefix>{<game_id>}:<kind>``), so a
Redis Cluster stores all of them in one slot: the commit script may then touch them together, and a
game never spans two shards. A game id may therefore not contain braces (a ``}`` would end the tag
early and split a game over slots; :func:`.validation.check_game_id` refuses them).
"""

from __future__ import annotations

from dataclasses import dataclass

from .validation import check_game_id

__all__ = ["GameKeys", "KeySpace"]


@dataclass(frozen=True, slots=True)
class GameKeys:
    """The Redis keys of one game, all in the same cluster slot."""

    #: String: ``<version>:<meta length>:<meta><state>`` (see :mod:`.encoding`).
    record: str
    #: Stream: one entry per version, ID ``<version>-1``, one field ``e`` = the packed events.
    events: str
    #: Hash: request id -> ``<expiry unix ms>:<answer>``; absent while no answer is kept.
    answers: str

    def all(self) -> tuple[str, str, str]:
        """The keys in the order the Lua scripts expect them as KEYS[1..3]."""
        return (self.record, self.events, self.answers)


@dataclass(frozen=True, slots=True)
class KeySpace:
    """Derives key names from a prefix, so deployments and test runs can share a server."""

    prefix: str

    def __post_init__(self) -> None:
        if "{" in self.prefix or "}" in self.prefix:
            raise ValueError("a key prefix must not contain braces (they delimit the hash tag)")

    def game(self, game_id: str) -> GameKeys:
        """The keys of ``game_id`` (validated)."""
        base = f"{self.prefix}{{{check_game_id(game_id)}}}:"
        return GameKeys(record=base + "g", events=base + "e", answers=base + "a")

    def record_pattern(self) -> str:
        """A SCAN MATCH pattern for the record keys of this prefix (one per game)."""
        escaped = "".join("\\" + ch if ch in "*?[]\\" else ch for ch in self.prefix)
        return escaped + "{*}:g"
