"""Game ids, player tokens and the per-game meta data that holds their hashes.

A player token is a random secret handed out once, by ``CreateGame``; the store keeps only its
SHA-256, so a leaked store dump grants no seat. Tokens are checked by comparing digests in
constant time against every seat's hash (all of them, whatever matches first), so the time taken
says nothing about which seat, if any, a guess is close to.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from hanafuda_referee.errors import Reason, RulesError
from hanafuda_referee.hosting.turns import ClockSettings, Seats
from hanafuda_referee.varint import Reader, Writer

__all__ = ["GameMeta", "hash_token", "new_game_id", "new_token", "seat_of_token"]

_META_FORMAT = 1
#: What precedes the clock settings in the meta: none; settings written before the clocks were
#: bounded (``max_auto_decisions`` 0 meant "never", an expert could take timeouts); bounded ones.
_NO_CLOCK, _CLOCK, _BOUNDED_CLOCK = 0, 1, 2
#: Bytes of randomness in a game id (128 bits: unguessable, so ids need no secrecy of their own).
_GAME_ID_BYTES = 16
#: Bytes of randomness in a player token (256 bits).
_TOKEN_BYTES = 32


def new_game_id() -> str:
    """A fresh random game id: 22 URL-safe characters."""
    return secrets.token_urlsafe(_GAME_ID_BYTES)


def new_token() -> str:
    """A fresh random player token: 43 URL-safe characters."""
    return secrets.token_urlsafe(_TOKEN_BYTES)


def hash_token(token: str) -> bytes:
    """The SHA-256 of a token, as stored."""
    return hashlib.sha256(token.encode()).digest()


def seat_of_token(token: str, hashes: tuple[bytes, ...]) -> int | None:
    """The seat whose token this is, or None; compares against every seat in constant time."""
    digest = hash_token(token)
    found: int | None = None
    for seat, stored in enumerate(hashes):
        # No early exit: every seat's comparison runs whatever the outcome.
        if hmac.compare_digest(digest, stored):
            found = seat
    return found


@dataclass(frozen=True, slots=True)
class GameMeta:
    """What the hosted-games layer stores beside a game's engine state; fixed at creation."""

    #: The ``GameKind`` number.
    kind: int
    #: The players' display names, by seat.
    players: tuple[str, ...]
    #: The SHA-256 of each seat's token, by seat.
    token_hashes: tuple[bytes, ...]
    #: Creation time, Unix milliseconds.
    created_ms: int
    #: The bot seats and the turn clocks (PLAY.md); none of either by default.
    seats: Seats = field(default_factory=Seats)

    def encode(self) -> bytes:
        """The meta as compact bytes (bots and clocks as optional last fields, so that a game
        without them keeps the bytes it always had)."""
        w = Writer()
        w.uint(_META_FORMAT)
        w.uint(self.kind)
        w.uint(self.created_ms)
        w.uint(len(self.players))
        for name, digest in zip(self.players, self.token_hashes, strict=True):
            w.text(name)
            w.small_ints(list(digest))
        if not self.seats.plain:
            w.small_ints(self.seats.bots)
            clock = self.seats.clock
            w.uint(_NO_CLOCK if clock is None else _BOUNDED_CLOCK)
            if clock is not None:
                clock.write(w)
        return w.getvalue()

    @classmethod
    def decode(cls, data: bytes) -> GameMeta:
        """The meta :meth:`encode` wrote; raises ``RulesError`` (``BAD_ENCODING``) otherwise."""
        r = Reader(data)
        if r.uint() != _META_FORMAT:
            raise RulesError(Reason.BAD_ENCODING, "unknown game meta format")
        kind, created = r.uint(), r.uint()
        players: list[str] = []
        hashes: list[bytes] = []
        for _ in range(r.uint()):
            players.append(r.text())
            hashes.append(bytes(r.small_ints()))
        seats = Seats()
        if r.position < len(data):
            bots = r.small_ints()
            mark = r.uint()
            clock = None if mark == _NO_CLOCK else ClockSettings.read(r, bounded=mark != _CLOCK)
            seats = Seats(bots, clock)
        r.done()
        return cls(kind, tuple(players), tuple(hashes), created, seats)
