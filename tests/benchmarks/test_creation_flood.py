"""The creation flood benchmark script still runs, and what it measures still holds: neither
random keys from one address nor the addresses of one IPv6 /64 create more games than one
client's burst and rate allow.

Not a timed test: a two-second flood of each scenario, whose counts must stay within the
configured limits (a token or two of slack for the refill during the run).
"""

from __future__ import annotations

import re

import pytest
from tests.benchmarks.scripts import run_script
from tests.store.servers import REDIS_SERVER


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_script_floods_both_scenarios_within_the_configured_rate() -> None:
    output = run_script(
        "creation_flood", "--seconds", "2", "--connections", "4", "--rate", "6", "--burst", "5"
    )
    reports = re.findall(
        r"^  (one [^:]+): (\d+) requests in ([0-9.]+) s, (\d+) games created, (\d+) refused",
        output,
        re.MULTILINE,
    )
    assert [name for name, *_ in reports] == [
        "one address, a random x-api-key per request",
        "one IPv6 /64, a random address of it per request",
    ], output
    for _, requests, seconds, created, refused in reports:
        # The burst, and what the rate adds over the run (6 a minute: under one in 2 s).
        assert 5 <= int(created) <= 5 + 1 + 6 * float(seconds) / 60, output
        assert int(refused) == int(requests) - int(created) > 0
    assert "reproduce: " in output
