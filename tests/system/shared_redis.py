"""The shared Redis on 127.0.0.1:6379 (``scripts/test`` starts one when none answers) and key
prefixes of a test's own on it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis

from tests.store.servers import port_answers

__all__ = ["SHARED_REDIS_URL", "owned_prefix"]

SHARED_REDIS_URL = "redis://127.0.0.1:6379/0"


@contextmanager
def owned_prefix() -> Iterator[str]:
    """A fresh key prefix on the shared Redis whose keys are all deleted on exit."""
    if not port_answers(6379):
        pytest.fail("no Redis answers on 127.0.0.1:6379 (scripts/test starts one)")
    prefix = f"test-{uuid.uuid4().hex}:"
    try:
        yield prefix
    finally:
        client = redis.Redis.from_url(SHARED_REDIS_URL)
        try:
            keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
            if keys:
                client.delete(*keys)
        finally:
            client.close()
