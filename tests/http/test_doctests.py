"""Examples are read as doctest reads them (every module's examples run in
tests/test_docstring_examples.py)."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from hanafuda_referee.api import http_errors, http_routes
from tests.examples import run_examples


@pytest.mark.parametrize("module", [http_routes, http_errors], ids=lambda m: m.__name__)
def test_examples_are_read_from_the_source_as_doctest_finds_them(module: ModuleType) -> None:
    # These modules are never compiled: doctest's own finder sees every example here too.
    assert run_examples(module) == doctest.testmod(module)
