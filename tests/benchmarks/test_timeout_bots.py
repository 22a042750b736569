"""The timeout bots' benchmark script still runs. Not a timed test: it checks the figures are
printed, not how small they are."""

from __future__ import annotations

import re

from tests.benchmarks.scripts import run_script


def test_the_script_times_both_greedy_bots() -> None:
    output = run_script("timeout_bots", "--runs", "1")
    for kind in ("koikoi", "hachihachi"):
        assert re.search(
            rf"^this code: greedy {kind}: [0-9.]+ ms per decision, slowest [0-9.]+ ms",
            output,
            re.MULTILINE,
        ), output
    assert "reproduce: " in output
