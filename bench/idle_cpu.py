"""`noitu bench idle`: what an idle `noitu serve` costs (issue 31).

Each run starts a fresh `noitu serve` (the default settings: both games, the memory
store, a temporary data directory) on loopback, lets it start (`--warmup` seconds after
its first /healthz answer), then reads over `--seconds` seconds, with no request at
all: the CPU it used (user + system, /proc/<pid>/stat, every thread) and how often its
event loop's thread went to sleep and woke (its voluntary context switches,
/proc/<pid>/task/<pid>/status: each wait of the loop for a timer or a socket is one).
What an idle server spends is its background work: the periodic tasks and whatever
waits by polling. Figures are medians over `--runs` runs.
"""

from __future__ import annotations

import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from noitu.bench.http_load import running_server
from noitu.bench.machine import (
    cpu_seconds,
    format_machine,
    load_average,
    machine,
    median,
    row,
)


def loop_switches(pid: int) -> int:
    """The voluntary context switches of a process's main thread (its event loop)."""
    for line in Path(f"/proc/{pid}/task/{pid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise RuntimeError(f"no voluntary_ctxt_switches for process {pid}")


def _one_run(seconds: float, warmup: float) -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory() as data_dir,
        running_server(secrets.token_hex(32), {"NOITU_DATA_DIR": data_dir}) as (server, _port),
    ):
        time.sleep(warmup)
        cpu_before, switches_before = cpu_seconds(server.pid), loop_switches(server.pid)
        began = time.monotonic()
        time.sleep(seconds)
        cpu_after, switches_after = cpu_seconds(server.pid), loop_switches(server.pid)
        took = time.monotonic() - began
    cpu_s = cpu_after - cpu_before
    return {
        "cpu_ms": cpu_s * 1000,
        "cpu_percent": 100 * cpu_s / took,
        "wakeups_per_s": (switches_after - switches_before) / took,
    }


def bench_idle(runs: int, seconds: float, warmup: float) -> dict[str, Any]:
    info = machine()
    measured = [_one_run(seconds, warmup) for _ in range(runs)]
    info["load_average_after"] = load_average()
    return {
        "machine": info,
        "runs": runs,
        "seconds": seconds,
        "each": measured,
        **{key: median([run[key] for run in measured]) for key in measured[0]},
    }


def format_idle(report: dict[str, Any]) -> str:
    def spread(key: str, digits: int) -> str:
        return ", ".join(f"{run[key]:.{digits}f}" for run in report["each"])

    return "\n".join([
        format_machine(report["machine"]),
        f"an idle `noitu serve` over {report['seconds']:g} s, medians of {report['runs']} runs:",
        row("CPU (ms)", f"{report['cpu_ms']:.0f}", f"runs: {spread('cpu_ms', 0)}"),
        row("CPU (% of one core)", f"{report['cpu_percent']:.2f}"),
        row("event loop wake-ups per second", f"{report['wakeups_per_s']:.1f}",
            f"runs: {spread('wakeups_per_s', 1)}"),
    ])
