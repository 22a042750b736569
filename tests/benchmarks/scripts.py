"""Running a benchmark script the way its docstring says, for the tests that check it still runs:
``python -m tests.benchmarks.<name>`` from the repository root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_script(name: str, *args: str, timeout: float = 300) -> str:
    """Runs the benchmark module ``name`` with ``args``; what it printed on standard output
    (a non-zero exit raises ``CalledProcessError``)."""
    done = subprocess.run(
        [sys.executable, "-m", f"tests.benchmarks.{name}", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout
