"""The examples in the packages' docstrings (the service's and the Python client's) run and hold:
every module that has any, found in the sources, so that a new module's examples are run without
being listed anywhere."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import hanafuda_client
import pytest

import hanafuda_referee

_PACKAGES = [Path(hanafuda_referee.__path__[0]), Path(hanafuda_client.__path__[0])]


def _modules_with_examples() -> list[str]:
    """The dotted names of the packages' modules whose source holds an example."""
    names = []
    for package in _PACKAGES:
        for path in sorted(package.rglob("*.py")):
            if ">>> " not in path.read_text(encoding="utf-8"):
                continue
            parts = path.relative_to(package.parent).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_the_examples_are_found_across_the_package() -> None:
    for name in ("hanafuda_referee.cards", "hanafuda_referee.koikoi.scoring"):
        assert name in MODULES
    assert any(name.startswith("hanafuda_referee.hachihachi.") for name in MODULES)
    for package in ("hosting", "http", "writers"):
        assert any(name.startswith(f"hanafuda_referee.{package}.") for name in MODULES)
    assert any(name.startswith("hanafuda_referee.store.") for name in MODULES)
    assert "hanafuda_client.retries" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
