"""Game metas as the referee wrote them before the turn clocks were bounded (PLAY.md, "Turn
clocks"): the clock settings behind mark 1, under which ``max_auto_decisions`` 0 meant "never
resign" and any bot level, the expert included, could take a timeout's decision. The API no
longer accepts such settings; the tests write them to show that games stored with them still
load and play under the nearest bounded ones."""

from __future__ import annotations

from hanafuda_referee.hosting.tokens import GameMeta
from hanafuda_referee.hosting.turns import ClockSettings
from hanafuda_referee.varint import Writer

__all__ = ["LEGACY_CLOCK_MARK", "legacy_meta"]

#: The mark written before the clock settings in the earlier format.
LEGACY_CLOCK_MARK = 1
#: The meta format number (unchanged by the bounds: only the mark tells the formats apart).
_META_FORMAT = 1


def legacy_meta(meta: GameMeta, clock: ClockSettings, mark: int = LEGACY_CLOCK_MARK) -> bytes:
    """``meta``'s bytes with ``clock`` written after ``mark`` (by default the earlier format's)."""
    w = Writer()
    for value in (_META_FORMAT, meta.kind, meta.created_ms, len(meta.players)):
        w.uint(value)
    for name, digest in zip(meta.players, meta.token_hashes, strict=True):
        w.text(name)
        w.small_ints(list(digest))
    w.small_ints(meta.seats.bots)
    w.uint(mark)
    clock.write(w)
    return w.getvalue()
