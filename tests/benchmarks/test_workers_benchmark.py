"""The workers benchmark script still runs: both services serve the moves, and it prints the
medians and the ratio. Not a timed test: it checks what the script prints, not how fast."""

from __future__ import annotations

import re

import pytest
from tests.benchmarks.scripts import run_script
from tests.store.servers import REDIS_SERVER


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_script_measures_one_and_two_workers_and_prints_the_ratio() -> None:
    output = run_script(
        "workers",
        *("--runs", "1", "--duration", "1", "--warmup", "0.5"),
        *("--processes", "1", "--lanes", "4"),
    )
    assert "ERRORS" not in output, output
    rates = re.findall(r"^  ([12]) worker\(s\): +(\d+) moves/s", output, flags=re.MULTILINE)
    assert [count for count, _ in rates] == ["1", "2"], output
    assert all(int(rate) > 0 for _, rate in rates), output
    assert re.search(r"ratio 2 workers / 1 worker: \d+\.\d\d", output), output
    assert "command: .venv/bin/python -m tests.benchmarks.workers" in output
