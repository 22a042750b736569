"""The game kinds a referee hosts: each ``GameKind`` of the contract and its adapter."""

from __future__ import annotations

from typing import Any

from hanafuda.v1 import rules_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.adapter import GameAdapter
from hanafuda_referee.hosting.hachihachi import HACHI_HACHI
from hanafuda_referee.hosting.koikoi import KOI_KOI

__all__ = ["adapter_for"]


def adapter_for(kind: int) -> GameAdapter[Any]:
    """The adapter of a ``GameKind`` number; refuses an unspecified or unknown kind."""
    if kind == rules_pb2.GAME_KIND_KOI_KOI:
        return KOI_KOI
    if kind == rules_pb2.GAME_KIND_HACHI_HACHI:
        return HACHI_HACHI
    if kind == rules_pb2.GAME_KIND_UNSPECIFIED:
        raise ApiError("INVALID_ARGUMENT", "the game kind is required")
    raise ApiError("INVALID_ARGUMENT", f"unknown game kind {kind}")
