"""The examples in the Hachi-Hachi docstrings run and hold."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest

import hanafuda_referee.hachihachi as package
from hanafuda_referee.hachihachi import (
    codec,
    dekiyaku,
    events,
    field,
    game,
    inputs,
    kinds,
    rules,
    settlement,
    teyaku,
    view,
)
from tests.examples import run_examples


@pytest.mark.parametrize(
    "module",
    [package, dekiyaku, field, inputs, kinds, settlement, teyaku, rules, game, events, view, codec],
    ids=lambda module: module.__name__,
)
def test_docstring_examples(module: ModuleType) -> None:
    result = run_examples(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
