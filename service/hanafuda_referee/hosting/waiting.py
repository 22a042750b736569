"""Waiting for one's turn: what a read or a move that asks to wait may hold, and for how long
(PLAY.md, "Built-in bots": a simple client plays against bots with one call per own move).

A ``GetGame`` or ``SubmitMove`` with ``wait_seconds`` answers once the caller's seat is to act
again or the game is over (a spectator: once the game moves on), or when the time is up, or
when the server shuts down: whichever comes first. The wait follows the store's log as a watch
does, so it costs no CPU while nothing happens; it holds a request open, so each client may hold
only so many at once (:class:`WaitSlots`), counted by the client :mod:`.identity` names.

>>> wait_seconds(0), wait_seconds(30)
(0, 30)
>>> wait_seconds(31)
Traceback (most recent call last):
...
hanafuda_referee.calls.errors.ApiError: wait_seconds is 0 to 30, not 31
>>> slots = WaitSlots(per_client=1)
>>> with slots.slot("addr:192.0.2.7"):
...     slots.held("addr:192.0.2.7")
1
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from hanafuda_referee.calls.errors import ApiError

__all__ = ["MAX_WAIT_SECONDS", "WaitSlots", "wait_seconds"]

#: The longest a request may wait (PLAY.md: "bounded (at most 30 s)").
MAX_WAIT_SECONDS = 30

#: Waits one client may hold at once by default: a player's own move or read, a few tabs.
DEFAULT_WAITS_PER_CLIENT = 16


def wait_seconds(value: int) -> int:
    """``value`` checked: 0 (answer at once) to :data:`MAX_WAIT_SECONDS`, else refused with
    ``INVALID_ARGUMENT`` (a longer wait is a watch's job: ``WatchGame``)."""
    if not 0 <= value <= MAX_WAIT_SECONDS:
        raise ApiError(
            "INVALID_ARGUMENT",
            f"wait_seconds is 0 to {MAX_WAIT_SECONDS}, not {value}",
            {"field": "wait_seconds"},
        )
    return value


class WaitSlots:
    """The waits each client holds now, in this process, and the cap on them (0: none)."""

    __slots__ = ("_by_client", "per_client")

    def __init__(self, per_client: int = DEFAULT_WAITS_PER_CLIENT) -> None:
        if per_client < 0:
            raise ValueError("waits per client must not be negative")
        self.per_client = per_client
        self._by_client: dict[str, int] = {}

    def held(self, client: str) -> int:
        """How many waits ``client`` holds now."""
        return self._by_client.get(client, 0)

    def check(self, client: str) -> None:
        """Refuse now, before anything is done for the request, if ``client`` holds its
        cap of waits: ``UNAVAILABLE`` with the limit's name, as the watcher caps refuse."""
        if self.per_client and self.held(client) >= self.per_client:
            raise ApiError(
                "UNAVAILABLE",
                "too many waiting requests from this client on this server; retry later",
                {"limit": "waits_per_client"},
            )

    @contextlib.contextmanager
    def slot(self, client: str) -> Iterator[None]:
        """Hold one of ``client``'s waits for the ``with`` block (or refuse, see
        :meth:`check`)."""
        self.check(client)
        self._by_client[client] = self.held(client) + 1
        try:
            yield
        finally:
            left = self._by_client[client] - 1
            if left:
                self._by_client[client] = left
            else:
                del self._by_client[client]
