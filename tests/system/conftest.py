"""Fixtures of the system tests: real service processes over a real Redis.

The shared Redis on 127.0.0.1:6379 is used (``scripts/test`` starts one when none answers); each
test gets a key prefix ``test-<uuid>:`` of its own and every key under it is deleted afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
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


@contextmanager
def own_referee(
    directory: Path,
    *,
    env: Mapping[str, str] | None = None,
    flags: Sequence[str] = (),
    allow_testing: bool = True,
    name: str = "referee",
) -> Iterator[RefereeProcess]:
    """A service process on the shared Redis, under a key prefix of its own that is emptied
    afterwards; ``env`` adds variables, the rest is as :class:`RefereeProcess` takes it."""
    with (
        owned_prefix() as prefix,
        RefereeProcess(
            directory,
            env={**redis_env(prefix), **(env or {})},
            flags=flags,
            allow_testing=allow_testing,
            name=name,
        ) as process,
    ):
        yield process


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
    with own_referee(tmp_path_factory.mktemp("referee")) as process:
        yield process
