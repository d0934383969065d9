"""`noitu bench idle`'s readings and table (no server started, no timing asserted)."""

from __future__ import annotations

import os

from noitu.bench.idle_cpu import format_idle, loop_switches


def test_the_loop_threads_switches_are_read_from_proc_and_grow() -> None:
    before = loop_switches(os.getpid())
    os.sched_yield()
    with open(os.devnull, "rb") as nothing:
        nothing.read()
    assert loop_switches(os.getpid()) >= before >= 0


def test_the_table_names_each_figure_with_the_runs() -> None:
    runs = [
        {"cpu_ms": 190.0, "cpu_percent": 0.32, "wakeups_per_s": 15.2},
        {"cpu_ms": 180.0, "cpu_percent": 0.30, "wakeups_per_s": 14.9},
    ]
    report = {
        "machine": {"cores": 2, "usable_cores": 2, "cpu": "x", "python": "3.11"},
        "runs": 2, "seconds": 60.0, "each": runs,
        "cpu_ms": 185.0, "cpu_percent": 0.31, "wakeups_per_s": 15.05,
    }
    text = format_idle(report)
    assert "over 60 s, medians of 2 runs" in text
    assert "runs: 190, 180" in text and "runs: 15.2, 14.9" in text
