"""The game store: where hosted games live between requests, independent of the rules.

The referee is stateless: a request loads a game, the engine decides, and the store writes the
result back only if nobody else did in between (compare-and-set on the game's version). The store
holds opaque bytes -- the engine's compact state, the service's meta data and each move's events --
so it never changes when the rules do. Beside the games it keeps what the replicas share: token
buckets for rate limits, the index of turn-clock deadlines, and the bot queue, where a bot seat's
turn waits for a worker (PLAY.md, "Bots think off the request path").

Two implementations of one contract (:class:`GameStore`):

* :class:`MemoryStore`, in this process: the default without a Redis URL (one replica only);
* :class:`RedisStore`, on one Redis server or a Redis Cluster: any number of replicas.

Both are held to the same contract tests (``tests/store``). Use :func:`open_store` to pick one
from a URL.

May import: redis-py and the standard library. Nothing of the engines, the hosting layer or the
generated messages (the ``import-linter`` contracts in pyproject.toml).
"""

from .call_spans import CallSpan, CallSpans
from .contract import (
    BotTurn,
    CommitResult,
    Committed,
    Conflict,
    Duplicate,
    GameRecord,
    GameStore,
    QueueStats,
    VersionedEvents,
)
from .errors import GameExists, GameNotFound, StoreError, StoreFull, StoreUnavailable
from .factory import open_store, parse_store_url
from .memory_store import MemoryStore
from .redis_store import RedisStore
from .settings import StoreSettings

__all__ = [
    "BotTurn",
    "CallSpan",
    "CallSpans",
    "CommitResult",
    "Committed",
    "Conflict",
    "Duplicate",
    "GameExists",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "MemoryStore",
    "QueueStats",
    "RedisStore",
    "StoreError",
    "StoreFull",
    "StoreSettings",
    "StoreUnavailable",
    "VersionedEvents",
    "open_store",
    "parse_store_url",
]
