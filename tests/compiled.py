"""Which modules the build compiles (``COMPILED`` in setup.py), for the tests of the build."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where setup.py's module paths start.
PACKAGE = "hanafuda_referee"


def compiled_modules() -> list[str]:
    """The dotted names of the modules setup.py compiles, read from its source (importing it
    would run the build)."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in targets):
                assert node.value is not None
                paths: list[str] = ast.literal_eval(node.value)
                return [f"{PACKAGE}." + p.removesuffix(".py").replace("/", ".") for p in paths]
    raise AssertionError("setup.py has no COMPILED list")
