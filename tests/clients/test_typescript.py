"""The TypeScript SDK (``clients/typescript``): installed from its lock file, compiled with
``tsc --strict`` and tested by its own Node tests (``node --test``), which start real referee
processes with this interpreter and play whole games over HTTP and gRPC through the SDK.

Needs Node 20+ and npm (and the npm registry the first time, for ``npm ci``); the Node output is
the failure message.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "typescript"

#: Seconds each npm step may take (a cold `npm ci` downloads about 20 MB; the tests take ~15 s).
STEP_TIMEOUT = 240


def _npm(*args: str, env: dict[str, str] | None = None) -> None:
    """Runs npm in the package; on failure or timeout, fails the test with npm's output. A step
    that times out is killed with everything it started (Node test files, referee processes)."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed: the TypeScript SDK needs Node 20+ and npm")
    step = f"npm {' '.join(args)}"
    with subprocess.Popen(
        [npm, *args],
        cwd=PACKAGE,
        env=env,
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


def node_modules_stale() -> bool:
    """Whether ``npm ci`` is due: no install yet, or the lock file changed since the last one
    (npm writes ``node_modules/.package-lock.json`` at each install)."""
    installed = PACKAGE / "node_modules" / ".package-lock.json"
    lock = PACKAGE / "package-lock.json"
    return not installed.exists() or lock.stat().st_mtime > installed.stat().st_mtime


def test_typescript_sdk_builds_and_passes_its_tests() -> None:
    if node_modules_stale():
        _npm("ci", "--no-audit", "--no-fund", "--loglevel=error")
    _npm("run", "build")
    # The referees the Node tests start run on this interpreter (and its environment, so the
    # same `hanafuda_referee`).
    _npm("test", env={**os.environ, "HANAFUDA_PYTHON": sys.executable})
