"""What every benchmark shares: the machine it ran on, /proc readings, statistics, the
budget of docs/performance.md, fresh-interpreter probes and the rows of the tables."""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import socket
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from noitu.domain.noitu.bots import HARD_NODE_LIMIT
from noitu.domain.noitu.opponent import Difficulty

# --- the budget (docs/performance.md) -----------------------------------------------------

BUDGET = {
    "load_ms": 200.0,  # the dictionary's load and the bots' indexes, together
    "validation_us": 10.0,
    "resolve_us": 5.0,
    "easy_p99_us": 50.0,
    "medium_p99_us": 400.0,
    "hard_p99_us": 10_000.0,
    "hard_positions_max": HARD_NODE_LIMIT,
    "http_moves_per_s": 1_500.0,
    "http_move_p99_ms": 100.0,
    "memory_rss_mb": 300.0,
}
DIFFICULTIES = tuple(d.value for d in Difficulty)


# --- the machine ----------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 0
    return {
        "cores": os.cpu_count() or 0,
        "usable_cores": usable,
        "cpu": model or platform.processor() or "unknown",
        "python": platform.python_version(),
        "load_average": load_average(),
    }


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def rss_mb(pid: int | str = "self") -> float:
    """Resident set size of a process, from /proc."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int | str = "self") -> float:
    """User + system CPU time of a process, from /proc/<pid>/stat."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    """A loopback port nobody listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- statistics -----------------------------------------------------------------------------


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1) of sorted values, nearest rank."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0


def median_dict(runs: Sequence[dict]) -> dict:
    """The per-key median of runs of the same shape (nested dicts of numbers); a key
    missing from some runs gets the median of the runs that have it."""
    merged: dict = {}
    keys = list(dict.fromkeys(key for run in runs for key in run))
    for key in keys:
        present = [run[key] for run in runs if key in run]
        value = present[0]
        if isinstance(value, dict):
            merged[key] = median_dict(present)
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            merged[key] = value
        else:
            merged[key] = median(present)
    return merged


def quantiles_us(samples_ns: Sequence[int]) -> dict[str, float]:
    values = sorted(samples_ns)
    return {
        "p50_us": percentile(values, 0.50) / 1000,
        "p90_us": percentile(values, 0.90) / 1000,
        "p99_us": percentile(values, 0.99) / 1000,
        "max_us": (values[-1] / 1000) if values else 0.0,
        "mean_us": (statistics.fmean(values) / 1000) if values else 0.0,
    }


def distribution_us(samples_ns: Sequence[int], points: int = 201) -> list[float]:
    """Evenly spaced quantiles (0 to 100%) in microseconds, for the plot."""
    values = sorted(samples_ns)
    if not values:
        return []
    last = len(values) - 1
    return [values[round(last * i / (points - 1))] / 1000 for i in range(points)]


# --- probes: one measurement in a fresh interpreter ----------------------------------------


def probe(module: str, function: str, *args: object) -> dict:
    """Call `noitu.bench.<module>.<function>(*args)` in a fresh interpreter and read the
    JSON object it prints last."""
    code = f"from noitu.bench.{module} import {function}; {function}(*{args!r})"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{module}.{function} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- output ---------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def row(name: str, value: str, budget: str = "", judged: str = "") -> str:
    return f"  {name:<44}{value:>22}  {budget:<18}{judged}"


def format_machine(info: dict) -> str:
    text = (
        f"machine: {info['cores']} cores ({info['usable_cores']} usable), {info['cpu']},"
        f" Python {info['python']}"
    )
    if info.get("load_average"):
        text += f"; load average {info['load_average']}"
        if info.get("load_average_after"):
            text += f" before, {info['load_average_after']} after"
    return text


def emit(report: dict, as_json: bool, formatter: Callable[[dict], str]) -> None:
    """A report as one JSON object, or as the formatter's table."""
    print(json.dumps(report, ensure_ascii=False) if as_json else formatter(report))
