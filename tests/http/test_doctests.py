"""The examples in the docstrings of the HTTP transport and its JSON writer run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from hanafuda_referee.api import forms, http_errors, http_routes, proto_json
from tests.examples import run_examples


@pytest.mark.parametrize(
    "module", [http_routes, http_errors, proto_json, forms], ids=lambda m: m.__name__
)
def test_doctests(module: ModuleType) -> None:
    result = run_examples(module)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize("module", [http_routes, http_errors], ids=lambda m: m.__name__)
def test_examples_are_read_from_the_source_as_doctest_finds_them(module: ModuleType) -> None:
    # These modules are never compiled: doctest's own finder sees every example here too.
    assert run_examples(module) == doctest.testmod(module)
