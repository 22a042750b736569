"""Running the project's sources instead of its compiled modules (see setup.py).

An install compiles some modules of ``hanafuda_referee`` with mypyc, and Python imports an
extension before a source of the same name. :func:`prefer_sources` makes this process import the
package's sources instead, and nothing else changes: other packages keep their extensions. The
tests use it when ``HANAFUDA_REFEREE_INTERPRETED=1`` (tests/conftest.py), so that the sources,
which are what a build with ``HANAFUDA_REFEREE_PURE=1`` runs, are tested too; and a script runs
interpreted with ``python -m tests.interpreted SCRIPT [ARGS...]``, e.g. to compare a benchmark's
figures with and without compiling.
"""

from __future__ import annotations

import importlib.machinery as machinery
import os
import runpy
import sys
from pathlib import Path

#: The variable that turns the hook on in a test run.
INTERPRETED = "HANAFUDA_REFEREE_INTERPRETED"
_PACKAGE = Path(__file__).resolve().parents[1] / "service" / "hanafuda_referee"


def _finder(path: str) -> machinery.FileFinder:
    """A finder of sources and bytecode only, for the package's own directories."""
    if not Path(path).resolve().is_relative_to(_PACKAGE):
        raise ImportError("not a directory of hanafuda_referee")  # the next hook takes it
    return machinery.FileFinder(
        path,
        (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES),
    )


def prefer_sources() -> None:
    """Import ``hanafuda_referee``'s sources from now on. Call it before the package is imported:
    a module imported already stays as it is."""
    loaded = [name for name in sys.modules if name.split(".")[0] == "hanafuda_referee"]
    if not all(is_interpreted(sys.modules[name]) for name in loaded):
        raise RuntimeError("hanafuda_referee has compiled modules imported already")
    if _finder not in sys.path_hooks:
        sys.path_hooks.insert(0, _finder)
        sys.path_importer_cache.clear()


def is_interpreted(module: object) -> bool:
    """Whether ``module`` was imported from its source."""
    return str(getattr(module, "__file__", "")).endswith(".py")


def env_flag(name: str) -> bool:
    """Whether the environment variable ``name`` is set to something other than "" or "0"
    (how ``HANAFUDA_REFEREE_PURE`` and :data:`INTERPRETED` are read)."""
    return os.environ.get(name, "") not in ("", "0")


def main(argv: list[str]) -> None:
    """``python -m tests.interpreted SCRIPT [ARGS...]`` or ``-m MODULE [ARGS...]``."""
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    prefer_sources()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
