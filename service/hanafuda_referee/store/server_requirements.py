"""What the referee requires of a Redis server, checked against the server's ``INFO``.

Each requirement unmet is a sentence for the operator. None stops the service: a server that
refuses ``INFO`` (an ACL, a managed offering) is simply not checked, and the store's own errors
still come as they come. But each is a fault the service would otherwise show only as failed
requests, or as games that vanish:

* a version before 7.0: the commit script publishes with ``SPUBLISH`` (sharded pub/sub), so no
  move would be accepted;
* a replica: it is read-only, so no game could be created or moved;
* an eviction policy other than ``noeviction`` with a memory limit: every key the referee writes
  has a time to live, so Redis would drop games in progress when memory runs short (managed
  Redis offerings often ship ``volatile-lru``).

>>> unmet({"redis_version": "7.0.15", "role": "master", "maxmemory": 0,
...        "maxmemory_policy": "allkeys-lru"})
[]
>>> for sentence in unmet({"redis_version": "6.2.14", "role": "slave", "maxmemory": 1 << 30,
...                        "maxmemory_policy": "volatile-lru"}):
...     print(sentence)
Redis 6.2.14 is older than 7.0, which the referee needs (sharded pub/sub): moves will fail
this server is a replica, read-only: games can be neither created nor moved
maxmemory-policy volatile-lru under a memory limit may evict games in progress: use noeviction
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["MINIMUM_VERSION", "unmet"]

#: The oldest Redis version the store works with.
MINIMUM_VERSION = (7, 0)


def unmet(info: Mapping[str, Any]) -> list[str]:
    """The requirements that ``info`` (a parsed ``INFO server replication memory``) shows
    unmet, as sentences; a field missing from it is not checked."""
    found: list[str] = []
    version = str(info.get("redis_version", ""))
    if version and _version(version) < MINIMUM_VERSION:
        found.append(
            f"Redis {version} is older than {'.'.join(map(str, MINIMUM_VERSION))}, which the "
            "referee needs (sharded pub/sub): moves will fail"
        )
    if info.get("role", "master") != "master":
        found.append("this server is a replica, read-only: games can be neither created nor moved")
    policy = info.get("maxmemory_policy", "noeviction")
    if policy != "noeviction" and int(info.get("maxmemory", 0) or 0) > 0:
        found.append(
            f"maxmemory-policy {policy} under a memory limit may evict games in progress: "
            "use noeviction"
        )
    return found


def _version(text: str) -> tuple[int, ...]:
    """``"7.0.15"`` as ``(7, 0, 15)``; parts that are not numbers end it."""
    numbers: list[int] = []
    for part in text.split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)
