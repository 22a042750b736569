"""A compact byte encoding for game states: unsigned varints, zigzag for signed numbers.

Game states are mostly small numbers and 49-bit card masks; LEB128 varints keep a Koi-Koi round in
progress to a few hundred bytes, well under what a JSON or pickle encoding would take. A card
set that some seat may not see (a hand, the hands set aside) is written at a fixed width instead
(:meth:`Writer.mask`): a varint's length, and so the time to write and read it, would depend on
the highest card in the set, and every read of a game decodes every hand.

>>> w = Writer()
>>> w.uint(300); w.sint(-2); w.text("ok")
>>> r = Reader(w.getvalue())
>>> r.uint(), r.sint(), r.text()
(300, -2, 'ok')
>>> w = Writer()
>>> w.mask(0b110); w.mask(1 << 48)
>>> r = Reader(w.getvalue())
>>> len(w.getvalue()), r.mask(), r.mask() == 1 << 48
(16, 6, True)
"""

from __future__ import annotations

import struct

from hanafuda_referee.errors import Reason, RulesError

__all__ = ["MASK_BYTES", "Reader", "Writer", "mask_bytes", "pack", "zigzag"]

#: A card mask as :meth:`Writer.mask` writes it (cards 1 to 48 are bits below 2**49): eight
#: bytes, little-endian, which ``struct`` reads and writes in one call.
_MASK = struct.Struct("<Q")
#: The width of a card mask written by :meth:`Writer.mask`.
MASK_BYTES = _MASK.size


def mask_bytes(mask: int) -> bytes:
    """A card mask as :data:`MASK_BYTES` little-endian bytes, whatever cards it holds.

    >>> mask_bytes(1 << 48).hex(), mask_bytes(2).hex()
    ('0000000000000100', '0200000000000000')
    """
    return _MASK.pack(mask)


class Writer:
    """Appends numbers and strings to a growing buffer."""

    __slots__ = ("_buf",)

    def __init__(self) -> None:
        self._buf = bytearray()

    def uint(self, value: int) -> None:
        if value < 0:
            raise ValueError(f"negative value {value} in an unsigned field")
        buf = self._buf
        while value >= 0x80:
            buf.append((value & 0x7F) | 0x80)
            value >>= 7
        buf.append(value)

    def sint(self, value: int) -> None:
        self.uint(zigzag(value))

    def text(self, value: str) -> None:
        data = value.encode()
        self.uint(len(data))
        self._buf += data

    def mask(self, mask: int) -> None:
        """A card mask at a fixed width (:func:`mask_bytes`)."""
        self._buf += _MASK.pack(mask)

    def small_ints(self, values: tuple[int, ...] | list[int]) -> None:
        """A length-prefixed run of numbers below 256 (card numbers)."""
        self.uint(len(values))
        self._buf += bytes(values)

    def getvalue(self) -> bytes:
        return bytes(self._buf)


class Reader:
    """Reads back what a :class:`Writer` wrote; malformed input raises ``BAD_ENCODING``."""

    __slots__ = ("_data", "_pos")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def _fail(self) -> RulesError:
        return RulesError(Reason.BAD_ENCODING, "truncated or malformed game state")

    def uint(self) -> int:
        data, pos, shift, value = self._data, self._pos, 0, 0
        while True:
            if pos >= len(data) or shift > 70:
                raise self._fail()
            byte = data[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                self._pos = pos
                return value

    def sint(self) -> int:
        v = self.uint()
        return v >> 1 if not v & 1 else -((v + 1) >> 1)

    def text(self) -> str:
        n = self.uint()
        end = self._pos + n
        if end > len(self._data):
            raise self._fail()
        try:
            value = self._data[self._pos : end].decode()
        except UnicodeDecodeError:
            raise self._fail() from None
        self._pos = end
        return value

    @property
    def position(self) -> int:
        """How many bytes have been read."""
        return self._pos

    def mask(self) -> int:
        """A card mask :meth:`Writer.mask` wrote."""
        data, pos = self._data, self._pos
        if pos + MASK_BYTES > len(data):
            raise self._fail()
        self._pos = pos + MASK_BYTES
        # Byte by byte, with no call into struct and no loop.
        return (
            data[pos]
            | data[pos + 1] << 8
            | data[pos + 2] << 16
            | data[pos + 3] << 24
            | data[pos + 4] << 32
            | data[pos + 5] << 40
            | data[pos + 6] << 48
            | data[pos + 7] << 56
        )

    def small_ints(self) -> tuple[int, ...]:
        n = self.uint()
        end = self._pos + n
        if end > len(self._data):
            raise self._fail()
        values = tuple(self._data[self._pos : end])
        self._pos = end
        return values

    def take(self, n: int) -> bytes:
        """The next ``n`` bytes as they are."""
        end = self._pos + n
        if end > len(self._data):
            raise self._fail()
        value = self._data[self._pos : end]
        self._pos = end
        return bytes(value)

    def done(self) -> None:
        """Check that nothing is left over."""
        if self._pos != len(self._data):
            raise self._fail()


def pack(*values: int) -> bytes:
    """Unsigned numbers written one after the other (a tag and its fields, say), as
    :meth:`Writer.uint` writes each: one loop in one frame, for the hot paths that write many.

    >>> Reader(pack(3, 300)).uint()
    3
    >>> pack(1, 2) + pack(3) == pack(1, 2, 3)
    True
    """
    buf = bytearray()
    append = buf.append
    for value in values:
        if value < 0x80:
            if value < 0:
                raise ValueError(f"negative value {value} in an unsigned field")
            append(value)
            continue
        while value >= 0x80:
            append((value & 0x7F) | 0x80)
            value >>= 7
        append(value)
    return bytes(buf)


def zigzag(value: int) -> int:
    """A signed number as the unsigned one :meth:`Writer.sint` writes.

    >>> [zigzag(v) for v in (0, -1, 1, -2)]
    [0, 1, 2, 3]
    """
    return value * 2 if value >= 0 else -value * 2 - 1
