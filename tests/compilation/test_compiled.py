"""The modules setup.py compiles with mypyc: built, current, and the ones the service runs.

The tests, the benchmarks and the service run the compiled modules when they exist, and an
editable install compiles them in place, next to their sources: after a source changes, the
old extension would still be imported, and the tests would check code that is no longer there.
The staleness check below turns that into a failure that says what to do.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from tests.compiled import compiled_modules
from tests.interpreted import INTERPRETED, env_flag

REBUILD = "re-run `pip install -e .` (or `bash scripts/test`) to compile the changed sources"


def _paths(module: str) -> tuple[Path, list[Path]]:
    """The source of ``module`` and the extensions built from it next to it."""
    package, _, name = module.rpartition(".")
    directory = Path(importlib.import_module(package).__path__[0])
    built = [directory / f"{name}{suffix}" for suffix in EXTENSION_SUFFIXES]
    return directory / f"{name}.py", [path for path in built if path.exists()]


def test_setup_lists_existing_modules_once() -> None:
    modules = compiled_modules()
    assert len(set(modules)) == len(modules)
    for module in modules:
        source, _ = _paths(module)
        assert source.is_file(), module


def test_no_extension_is_left_next_to_a_module_the_build_does_not_compile() -> None:
    """setup.py deletes what an earlier build compiled and this one does not: a module taken
    off the list would otherwise go on running its old extension."""
    package = Path(importlib.import_module("hanafuda_referee").__path__[0])
    listed = {m.removeprefix("hanafuda_referee.") for m in compiled_modules()}
    for built in package.rglob("*.so"):
        module = ".".join((*built.relative_to(package).parent.parts, built.name.split(".")[0]))
        assert module in listed or module == "_compiled__mypyc", f"{built}: {REBUILD}"


@pytest.mark.parametrize("module", compiled_modules())
def test_every_extension_next_to_a_source_is_newer_than_it(module: str) -> None:
    source, extensions = _paths(module)
    for extension in extensions:
        assert extension.stat().st_mtime >= source.stat().st_mtime, (
            f"{extension.name} is older than {source.name}: {REBUILD}"
        )


@pytest.mark.skipif(
    env_flag("HANAFUDA_REFEREE_PURE"),
    reason="HANAFUDA_REFEREE_PURE: the project was installed without compiling",
)
@pytest.mark.skipif(env_flag(INTERPRETED), reason=f"{INTERPRETED}: sources on purpose")
@pytest.mark.parametrize("module", compiled_modules())
def test_the_listed_modules_run_compiled(module: str) -> None:
    """What the tests check is what the service runs: its build compiles these modules."""
    loaded = sys.modules.get(module) or importlib.import_module(module)
    assert loaded.__spec__ is not None and loaded.__spec__.origin is not None
    assert not loaded.__spec__.origin.endswith(".py"), (
        f"{module} runs interpreted: {REBUILD}, or set HANAFUDA_REFEREE_PURE=1 to test the "
        "sources without compiling"
    )


def test_the_interpreted_hook_imports_the_package_sources_and_nothing_else() -> None:
    """``prefer_sources`` (tests/interpreted.py), in a fresh process: the package's modules come
    from their sources, other packages keep their extensions."""
    check = (
        "from tests.interpreted import prefer_sources\n"
        "prefer_sources()\n"
        "import hanafuda_referee.koikoi.game as game, hanafuda_referee.api.forms as forms\n"
        "from google.protobuf.internal import api_implementation\n"
        "assert game.__file__.endswith('game.py'), game.__file__\n"
        "assert forms.__file__.endswith('forms.py'), forms.__file__\n"
        "assert api_implementation.Type() == 'upb', api_implementation.Type()\n"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
