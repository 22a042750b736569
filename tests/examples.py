"""Running the examples in a module's docstrings, whether the module is compiled or not.

``doctest.testmod`` finds examples through the module's objects, and a module compiled with
mypyc (see setup.py) has functions and classes that doctest does not look into. The examples
are read from the module's source file instead, and run in the namespace of the module as
imported: a compiled module's examples call its compiled code.
"""

from __future__ import annotations

import ast
import doctest
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType


def source_of(module: ModuleType) -> Path:
    """The ``.py`` file ``module`` was built from: next to its extension when compiled, in
    its package's directory (a compiled module's ``__file__`` is not always its own path)."""
    assert module.__file__ is not None
    path = Path(module.__file__)
    if path.suffix == ".py":
        return path
    package, _, name = module.__name__.rpartition(".")
    return Path(sys.modules[package].__path__[0]) / f"{name}.py"


def _docstrings(
    node: ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef, name: str
) -> Iterator[tuple[str, str, int]]:
    """The docstrings of ``node`` and of the classes and functions in it, as doctest looks at
    them (not functions nested in functions), with their qualified names and first lines."""
    docstring = ast.get_docstring(node, clean=False)
    if docstring is not None:
        yield docstring, name, node.body[0].lineno - 1
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return
    for child in node.body:
        if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _docstrings(child, f"{name}.{child.name}")


def run_examples(module: ModuleType, optionflags: int = 0) -> doctest.TestResults:
    """Run every example of ``module``'s docstrings; the counts of failed and attempted ones."""
    path = source_of(module)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=optionflags)
    for docstring, name, line in _docstrings(tree, module.__name__):
        test = parser.get_doctest(docstring, dict(vars(module)), name, str(path), line)
        if test.examples:
            runner.run(test)
    return runner.summarize(verbose=False)
