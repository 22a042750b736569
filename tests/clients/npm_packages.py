"""Running npm in the repository's Node packages (``clients/typescript``, ``clients/table``) for
the tests that need them: an install from the lock file when it is due, and a script.

Needs Node 20+ and npm (and the npm registry the first time, for ``npm ci``); the npm output is
the failure message.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

CLIENTS = Path(__file__).resolve().parents[2] / "clients"
SDK = CLIENTS / "typescript"
TABLE = CLIENTS / "table"

#: Seconds each npm step may take (a cold `npm ci` downloads some megabytes).
STEP_TIMEOUT = 240


def npm(package: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Runs npm in ``package``; its output, or the test fails with it. A step that times out is
    killed with everything it started."""
    found = shutil.which("npm")
    if found is None:
        pytest.fail("npm is not installed: the TypeScript packages need Node 20+ and npm")
    step = f"npm {' '.join(args)} (in {package.name})"
    with subprocess.Popen(
        [found, *args],
        cwd=package,
        env=dict(env) if env is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            output, _ = process.communicate(timeout=STEP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            pytest.fail(f"{step} took over {STEP_TIMEOUT} s:\n{output}")
    if process.returncode != 0:
        pytest.fail(f"{step} failed ({process.returncode}):\n{output}")
    return output


def install(package: Path) -> None:
    """``npm ci`` in ``package`` unless its install is up to date with its lock file (npm writes
    ``node_modules/.package-lock.json`` at each install)."""
    installed = package / "node_modules" / ".package-lock.json"
    lock = package / "package-lock.json"
    if not installed.exists() or lock.stat().st_mtime > installed.stat().st_mtime:
        npm(package, "ci", "--no-audit", "--no-fund", "--loglevel=error")
