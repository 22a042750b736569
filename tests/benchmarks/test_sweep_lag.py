"""The sweeper-lag benchmark script still runs. Not a timed test: it checks that the figures are
printed and that the lag is read from the service's metric, not how small it is."""

from __future__ import annotations

import re

import pytest
from tests.benchmarks.scripts import run_script
from tests.store.servers import REDIS_SERVER


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_script_samples_the_sweepers_lag() -> None:
    output = run_script("sweep_lag", "--games", "10", "--seconds", "3")
    assert re.search(r"^10 abandoned clock games created in [0-9.]+ s$", output, re.MULTILINE)
    lag = re.search(r"median ([0-9.]+) s, p95 ([0-9.]+) s, max ([0-9.]+) s$", output, re.MULTILINE)
    assert lag is not None, output
    assert float(lag[1]) <= float(lag[2]) <= float(lag[3])
    assert re.search(r"^games ended: \d+ of 10$", output, re.MULTILINE)
    assert "reproduce: " in output
