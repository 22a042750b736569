"""The examples in the HTTP transport's docstrings run."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

from hanafuda_referee.api import http_errors, http_routes


@pytest.mark.parametrize("module", [http_routes, http_errors], ids=lambda m: m.__name__)
def test_doctests(module: ModuleType) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0
