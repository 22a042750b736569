"""Choosing a store from configuration: one URL, or none for the in-memory default.

URL forms:

* no URL (``None`` or empty) -> :class:`~.memory_store.MemoryStore` (one process only);
* ``redis://[user:password@]host:port[/db]``, ``rediss://...`` (TLS), ``unix:///path.sock``
  -> :class:`~.redis_store.RedisStore` on one server;
* ``redis+cluster://host:port`` or ``rediss+cluster://host:port`` -> RedisStore on a Redis
  Cluster, discovered from that node; equivalently ``redis://host:port?cluster=true`` (the flag
  also accepts 1/yes/on and is removed before the URL reaches redis-py, whose own query options
  still work).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .contract import GameStore
from .memory_store import MemoryStore
from .redis_store import RedisStore
from .settings import StoreSettings

__all__ = ["open_store", "parse_store_url"]

_CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
_SINGLE_SCHEMES = {"redis", "rediss", "unix"}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_store_url(url: str) -> tuple[str, bool]:
    """Split a store URL into the URL redis-py understands and whether it names a cluster.

    >>> parse_store_url("redis+cluster://10.0.0.1:7000")
    ('redis://10.0.0.1:7000', True)
    >>> parse_store_url("redis://cache:6379/0?cluster=true&health_check_interval=5")
    ('redis://cache:6379/0?health_check_interval=5', True)
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    cluster = scheme in _CLUSTER_SCHEMES
    if cluster:
        scheme = _CLUSTER_SCHEMES[scheme]
    elif scheme not in _SINGLE_SCHEMES:
        raise ValueError(f"unsupported store URL scheme {parts.scheme!r}")
    query = []
    flagged = False
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if name.lower() != "cluster":
            query.append((name, value))
            continue
        flagged = True
        if value.lower() in _TRUE:
            cluster = True
        elif value.lower() not in _FALSE:
            raise ValueError(f"cluster={value!r} is not a boolean")
    if cluster and scheme == "unix":
        raise ValueError("a Redis Cluster cannot be reached over a unix socket")
    if not flagged and scheme == parts.scheme.lower():
        return url, cluster  # untouched (urlunsplit would turn unix:///path into unix:/path)
    return urlunsplit(parts._replace(scheme=scheme, query=urlencode(query))), cluster


def open_store(
    url: str | None,
    settings: StoreSettings | None = None,
    *,
    clock: Callable[[], float] | None = None,
) -> GameStore:
    """The store named by ``url`` (see the module docstring), configured by ``settings``.

    ``clock`` only applies to the in-memory store (tests inject a fake monotonic clock). Opening
    never connects: a Redis store connects on first use, so check readiness with ``ping()``.
    """
    settings = settings or StoreSettings()
    if not url:
        return MemoryStore(settings) if clock is None else MemoryStore(settings, clock=clock)
    redis_url, cluster = parse_store_url(url)
    return RedisStore.connect(redis_url, settings, cluster=cluster)
