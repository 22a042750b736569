"""The service settles the garbage collector once it is built (see ``settle_garbage_collector``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from hanafuda_referee.serving import FULL_COLLECTION_THRESHOLD, settle_garbage_collector


@pytest.fixture
def restored_collector() -> Iterator[None]:
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("restored_collector")
def test_what_exists_is_frozen_and_full_collections_are_rarer() -> None:
    young, middle, _ = gc.get_threshold()
    existing = [["made before"]]  # lists are tracked by the collector
    assert gc.is_tracked(existing)
    settle_garbage_collector()
    # Frozen: in no generation any more, so no collection walks it.
    assert gc.get_freeze_count() > 0
    for generation in (0, 1, 2):
        assert not any(o is existing for o in gc.get_objects(generation))
    assert gc.get_threshold() == (young, middle, FULL_COLLECTION_THRESHOLD)
    assert FULL_COLLECTION_THRESHOLD > 10  # CPython's default
