"""The watchers benchmark script still runs, on both transports.

Not a timed test: it checks that every watcher followed and that the figures are printed, and
what the script reports of Redis's connections (the watchers share one), not how fast.
"""

from __future__ import annotations

import re

import pytest
from tests.benchmarks.scripts import run_script
from tests.store.servers import REDIS_SERVER


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_script_measures_both_transports_with_one_connection_for_the_watchers() -> None:
    output = run_script("watchers", "--watchers", "20", "--games", "2", "--runs", "1")
    reports = re.findall(
        r"^  (grpc|http) +20 watchers: +([0-9.]+) ms .* Redis connections while they follow: "
        r"(\d+)$",
        output,
        re.MULTILINE,
    )
    assert [transport for transport, _, _ in reports] == ["grpc", "http"], output
    for _, per_move, connections in reports:
        assert float(per_move) > 0
        # The service's few connections (its pool, its embedded bot worker's blocking queue
        # reads) and the script's own: fewer than the 20 watchers, so not one per watcher.
        assert int(connections) < 20
    assert "reproduce: " in output
