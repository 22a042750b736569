"""Hanafuda Referee: a rules referee for Koi-Koi and Hachi-Hachi.

The rules engines (:mod:`hanafuda_referee.koikoi`, :mod:`hanafuda_referee.hachihachi`) are
pure: a state plus a move gives a new state plus events, or a
:class:`~hanafuda_referee.errors.MoveRejected` with a stable reason.
Transports and the store are thin layers over them.
"""

__version__ = "0.1.0"
