"""Byte layouts of what the Redis store writes: the game record and a move's packed events.

Record: one string ``<version>:<meta length>:<meta><state>`` (decimal ASCII header, raw bytes
after). One key per game instead of a hash keeps the per-key overhead single, a 600-byte state
would push a hash out of its compact listpack encoding anyway, and the commit script rewrites the
record whole while reading the version with one pattern match. Meta comes first because its
length is fixed at creation; the state is simply the rest.

Events of one move: one stream field ``e`` whose value is the events, each prefixed by its length
as an unsigned LEB128 varint. A single field with the same name in every entry lets the stream
store the field name once per node (its "same fields" compression) instead of once per event, and
keeps one entry per version whatever the number of events (zero included).
"""

from __future__ import annotations

from collections.abc import Sequence

from .contract import GameRecord

__all__ = ["decode_record", "encode_record", "pack_events", "unpack_events"]


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
