"""Byte layouts of what the Redis store writes: the game record, a move's packed events and the
hash field of a request id.

Record: one string ``<version>:<meta length>:<meta><state>`` (decimal ASCII header, raw bytes
after), element 0 of the game's list. The commit script rewrites it whole while reading the version
with one pattern match. Meta comes first because its length is fixed at creation; the state is
simply the rest.

Events of one move: one list element, the events each prefixed by its length as an unsigned LEB128
varint. One element per version whatever the number of events (zero included), with no field names
or entry ids beside it: the element's index is the version.

Request ids: a retry is recognised by the 16-byte BLAKE2b digest of its request id, not the id
itself. Every field of the answers hash then has the same small size whatever ids clients choose,
which keeps the hash in Redis's compact listpack encoding (fields up to 64 bytes); two ids of one
game colliding within an answer's lifetime has a probability of about 2^-128 per pair.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from .contract import GameRecord

__all__ = [
    "decode_record",
    "encode_record",
    "pack_events",
    "request_digest",
    "unpack_events",
]

#: Bytes of a request id digest.
REQUEST_DIGEST_BYTES = 16


def encode_record(version: int, meta: bytes, state: bytes) -> bytes:
    """The record string of a game (the commit script builds the same layout in Lua)."""
    return b"%d:%d:" % (version, len(meta)) + meta + state


def decode_record(record: bytes) -> GameRecord:
    """Parse a record string; raises :class:`ValueError` if it is not one."""
    version_end = record.index(b":")
    meta_len_end = record.index(b":", version_end + 1)
    version = int(record[:version_end])
    meta_len = int(record[version_end + 1 : meta_len_end])
    meta_start = meta_len_end + 1
    meta_end = meta_start + meta_len
    if version < 0 or meta_len < 0 or meta_end > len(record):
        raise ValueError("not a game record")
    return GameRecord(version=version, state=record[meta_end:], meta=record[meta_start:meta_end])


def pack_events(events: Sequence[bytes]) -> bytes:
    """Concatenate events, each preceded by its length as a varint."""
    out = bytearray()
    for event in events:
        size = len(event)
        while size >= 0x80:
            out.append((size & 0x7F) | 0x80)
            size >>= 7
        out.append(size)
        out += event
    return bytes(out)


def unpack_events(packed: bytes) -> list[bytes]:
    """Split what :func:`pack_events` produced; raises :class:`ValueError` if truncated."""
    events: list[bytes] = []
    pos = 0
    end = len(packed)
    while pos < end:
        size = 0
        shift = 0
        while True:
            if pos >= end:
                raise ValueError("truncated event length")
            byte = packed[pos]
            pos += 1
            size |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        if pos + size > end:
            raise ValueError("truncated event")
        events.append(packed[pos : pos + size])
        pos += size
    return events


def request_digest(request_id: str) -> bytes:
    """The answers-hash field of ``request_id``: its 16-byte BLAKE2b digest."""
    return hashlib.blake2b(request_id.encode(), digest_size=REQUEST_DIGEST_BYTES).digest()
