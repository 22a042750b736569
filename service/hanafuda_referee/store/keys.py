"""The Redis key names of a game, and the name of its notification channel.

Every name of one game carries the game id as its hash tag (``<prefix>{<game_id>}:<kind>``), so a
Redis Cluster stores all of them in one slot: the Lua scripts may then touch them together, the
commit script may publish on the game's sharded channel, and a game never spans two shards. A game
id may therefore not contain braces (a ``}`` would end the tag early and split a game over slots;
:func:`.validation.check_game_id` refuses them).
"""

from __future__ import annotations

from dataclasses import dataclass

from .validation import check_game_id

__all__ = ["GameKeys", "KeySpace"]


@dataclass(frozen=True, slots=True)
class GameKeys:
    """The Redis keys of one game and its channel, all in the same cluster slot."""

    #: List: index 0 is the record ``<version>:<meta length>:<meta><state>`` (see
    #: :mod:`.encoding`); index ``v + 1`` is the log entry of version ``v`` (its packed events).
    game: str
    #: Hash: request id digest -> ``<expiry unix ms>:<version>:<answer>``; absent while no answer
    #: is kept.
    answers: str
    #: Sharded pub/sub channel (not a key): each commit publishes the new version on it, which
    #: wakes the game's watchers.
    channel: str

    def all(self) -> tuple[str, str]:
        """The keys (not the channel) in the order the Lua scripts expect them as KEYS[1..2]."""
        return (self.game, self.answers)


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
        return GameKeys(game=base + "g", answers=base + "a", channel=base + "w")

    def game_pattern(self) -> str:
        """A SCAN MATCH pattern for the game keys of this prefix (one per game)."""
        escaped = "".join("\\" + ch if ch in "*?[]\\" else ch for ch in self.prefix)
        return escaped + "{*}:g"

    def rate(self, bucket: str) -> str:
        """The key of a rate limit's token bucket (no hash tag: it belongs to no game, and the
        game pattern does not match it). ``bucket`` names the client; it is the caller's to
        keep it short and free of secrets (a digest)."""
        return f"{self.prefix}rate:{bucket}"

    def remembered(self, key: str) -> str:
        """The key of a value :meth:`~.contract.GameStore.remember` keeps (no hash tag)."""
        return f"{self.prefix}kept:{key}"

    def deadlines(self) -> str:
        """The key of the index of deadlines (a sorted set of game ids by deadline; no hash
        tag: it belongs to no game, and the game pattern does not match it)."""
        return f"{self.prefix}deadlines"

    def bot_turns(self, partition: int) -> str:
        """The stream of one partition of the bot queue. Its hash tag is its own
        (``{bot-turns-<n>}``), so on a Redis Cluster the partitions land in slots of their own,
        spread over the masters; the suffix ``:q`` is one no game key has, and the game pattern
        does not match it.

        >>> KeySpace("hanafuda:").bot_turns(3)
        'hanafuda:{bot-turns-3}:q'
        """
        return f"{self.prefix}{{bot-turns-{int(partition)}}}:q"

    def bot_turns_channel(self, partition: int) -> str:
        """The sharded channel (not a key) on which a push to that partition wakes a Redis
        Cluster's waiting workers: in the partition's slot, so the push script may publish it."""
        return f"{self.prefix}{{bot-turns-{int(partition)}}}:qw"

    def held(self, holder: str) -> str:
        """The key of the games ``holder`` holds (a sorted set, :mod:`.holdings`; no hash tag:
        it belongs to no game, and the game pattern does not match it)."""
        return f"{self.prefix}held:{holder}"

    def probe(self) -> str:
        """The key the benchmark's reference write sets (no hash tag: it belongs to no game, and
        the game pattern does not match it)."""
        return self.prefix + "probe"
