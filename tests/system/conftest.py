"""Fixtures of the system tests: real service processes over a real Redis.

The shared Redis on 127.0.0.1:6379 is used (``scripts/test`` starts one when none answers); each
test gets a key prefix ``test-<uuid>:`` of its own and every key under it is deleted afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .processes import RefereeProcess
from .shared_redis import SHARED_REDIS_URL, owned_prefix


@pytest.fixture
def key_prefix() -> Iterator[str]:
    """A key prefix of this test's own on the shared Redis, emptied afterwards."""
    with owned_prefix() as prefix:
        yield prefix


def redis_env(prefix: str, url: str = SHARED_REDIS_URL) -> dict[str, str]:
    return {"REDIS_URL": url, "HANAFUDA_KEY_PREFIX": prefix}


@pytest.fixture
def referee(tmp_path: Path, key_prefix: str) -> Iterator[RefereeProcess]:
    """One service process on the shared Redis."""
    with RefereeProcess(tmp_path, env=redis_env(key_prefix)) as process:
        yield process


@pytest.fixture
def referee_pair(
    tmp_path: Path, key_prefix: str
) -> Iterator[tuple[RefereeProcess, RefereeProcess]]:
    """Two service processes sharing one Redis and one key prefix: two replicas."""
    with (
        RefereeProcess(tmp_path, env=redis_env(key_prefix), name="replica-a") as first,
        RefereeProcess(tmp_path, env=redis_env(key_prefix), name="replica-b") as second,
    ):
        yield first, second


@pytest.fixture(scope="module")
def module_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """One service process shared by a module's tests (testing features on), under a key prefix
    of the module's own that is emptied afterwards. For tests whose games cannot disturb each
    other: each creates its own games."""
    with (
        owned_prefix() as prefix,
        RefereeProcess(tmp_path_factory.mktemp("referee"), env=redis_env(prefix)) as process,
    ):
        yield process
