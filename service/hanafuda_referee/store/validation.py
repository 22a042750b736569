"""Argument checks shared by every store, so both refuse exactly the same inputs.

A store is the last line before bytes reach Redis: a wrong type there would not fail loudly but
be stored as something else (``bytes(5)`` is five zero bytes, an int ARGV becomes its digits).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "MAX_GAME_ID_LENGTH",
    "MAX_REQUEST_ID_LENGTH",
    "check_bucket",
    "check_bytes",
    "check_events",
    "check_game_id",
    "check_job",
    "check_queue_take",
    "check_range",
    "check_request_id",
    "check_version",
]

MAX_GAME_ID_LENGTH = 64
MAX_REQUEST_ID_LENGTH = 128
_FORBIDDEN_IN_GAME_ID = frozenset("{}*?[]\\")
#: What :func:`check_bytes` accepts.
_BINARY = (bytes, bytearray, memoryview)
_BINARY_OR_TEXT = (*_BINARY, str)


def check_game_id(game_id: str) -> str:
    """Return ``game_id`` if it can name a game, else raise :class:`ValueError`.

    Allowed: 1 to 64 printable ASCII characters other than space, braces (they delimit the Redis
    Cluster hash tag) and glob characters (so the pattern that counts games cannot be fooled).
    """
    if not isinstance(game_id, str) or not 0 < len(game_id) <= MAX_GAME_ID_LENGTH:
        raise ValueError(f"a game id has 1 to {MAX_GAME_ID_LENGTH} characters")
    if not game_id.isascii() or not game_id.isprintable() or " " in game_id:
        raise ValueError("a game id is printable ASCII without spaces")
    if not _FORBIDDEN_IN_GAME_ID.isdisjoint(game_id):
        raise ValueError("a game id may not contain braces or glob characters")
    return game_id


def check_request_id(request_id: str | None) -> str | None:
    """Return ``request_id`` if usable as an idempotency key (1 to 128 characters) or None."""
    if request_id is not None and not (
        isinstance(request_id, str) and 0 < len(request_id) <= MAX_REQUEST_ID_LENGTH
    ):
        raise ValueError(f"a request id has 1 to {MAX_REQUEST_ID_LENGTH} characters")
    return request_id


def check_bytes(name: str, value: object) -> bytes:
    """``value`` as immutable bytes, or :class:`TypeError`.

    >>> check_bytes("state", bytearray(b"ok"))
    b'ok'
    """
    if type(value) is bytes:
        return value  # already immutable: no copy (every caller on a move's path)
    if not isinstance(value, _BINARY):
        raise TypeError(f"{name} must be bytes, not {type(value).__name__}")
    return bytes(value)


def check_events(events: Sequence[object]) -> tuple[bytes, ...]:
    """The events of one move as a tuple of bytes; refuses a lone bytes value or non-bytes.

    Its items are typed ``object``, not ``bytes``: :func:`check_bytes` is what checks them.
    """
    if isinstance(events, _BINARY_OR_TEXT):
        raise TypeError("events is a sequence of bytes values, not one value")
    return tuple([check_bytes("event", event) for event in events])


def check_bucket(per_second: float, size: int) -> None:
    """Validate the arguments of ``take_token``."""
    if not per_second > 0 or size < 1:
        raise ValueError("a token bucket needs a positive rate and a size of at least 1")


def check_range(after_version: int, limit: int) -> None:
    """Validate the arguments of ``events``/``watch``."""
    if not isinstance(after_version, int) or after_version < -1:
        raise ValueError("after_version is -1 (from the start) or a version")
    if not isinstance(limit, int) or limit < 1:
        raise ValueError("limit must be positive")


#: Longest job name of a bot queue entry.
MAX_JOB_LENGTH = 32


def check_job(job: str) -> str:
    """Return ``job`` if it can name a bot queue entry's job ("" for a bot seat's turn: up to
    :data:`MAX_JOB_LENGTH` printable ASCII characters without space), else raise
    :class:`ValueError`.

    >>> check_job("hint:1")
    'hint:1'
    """
    if not isinstance(job, str) or len(job) > MAX_JOB_LENGTH:
        raise ValueError(f"a job has at most {MAX_JOB_LENGTH} characters")
    if job and (not job.isascii() or not job.isprintable() or " " in job):
        raise ValueError("a job is printable ASCII without spaces")
    return job


def check_version(version: int) -> int:
    """Return ``version`` if it is a game version (an int, 0 or more), else raise."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ValueError("a version is an int, 0 or more")
    return version


def check_queue_take(consumer: str, count: int, block_ms: int, reclaim_after_ms: int) -> None:
    """Validate the arguments of ``take_bot_turns``."""
    if not isinstance(consumer, str) or not 0 < len(consumer) <= MAX_REQUEST_ID_LENGTH:
        raise ValueError(f"a consumer name has 1 to {MAX_REQUEST_ID_LENGTH} characters")
    if not isinstance(count, int) or count < 1:
        raise ValueError("count must be positive")
    if not isinstance(block_ms, int) or block_ms < 0:
        raise ValueError("block_ms must not be negative")
    if not isinstance(reclaim_after_ms, int) or reclaim_after_ms < 0:
        raise ValueError("reclaim_after_ms must not be negative")
