"""The bot load benchmark script still runs: the probe is measured idle and under the load of
each embedded pool, the load plays against the expert, and the script prints the medians and the
decisions per second with each pool. Not a timed test: it checks what the script prints, not
how fast."""

from __future__ import annotations

import re

import pytest
from tests.benchmarks.scripts import run_script
from tests.store.servers import REDIS_SERVER


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_script_measures_the_probe_under_the_bots_load() -> None:
    output = run_script(
        "bot_load", *("--runs", "1", "--duration", "2", "--warmup", "1", "--lanes", "2")
    )
    assert "ERRORS" not in output, output
    assert "command: .venv/bin/python -m tests.benchmarks.bot_load" in output
    medians = output.split("medians of 1 run(s)")[1]
    figures = re.findall(
        r"^  (idle|bot-workers [12]) +GET p50 +([\d.]+) ms  p99 +([\d.]+) ms   "
        r"move p50 +([\d.]+) ms  p99 +([\d.]+) ms",
        medians,
        flags=re.MULTILINE,
    )
    assert [name for name, *_ in figures] == ["idle", "bot-workers 1", "bot-workers 2"], output
    assert all(float(value) > 0 for _, *values in figures for value in values), output
    rates = re.findall(
        r"^  bot decisions per second with ([12]) worker process\(es\): ([\d.]+)$",
        medians,
        flags=re.MULTILINE,
    )
    assert [count for count, _ in rates] == ["1", "2"], output
    # A brief run on a busy machine may close its window before a bot decided: only the format.
    assert all(float(rate) >= 0 for _, rate in rates), output
    assert "baseline" not in medians
