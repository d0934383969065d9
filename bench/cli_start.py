"""`noitu bench cli`: how long a `noitu` command takes from its start to its exit, for the
commands that do little besides starting — what a bot author waits for before each
`noitu arena match` begins, and what every test running a `noitu` process pays.

Each command runs `--runs` times as a fresh process (`sys.executable -m
noitu.entrypoints.cli`, the installed `noitu` script's code), alternating between the
commands so that a change in the machine's load falls on all of them; the figures are
medians of wall time and of the process's CPU time (user and system).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

from noitu.bench.machine import format_machine, load_average, machine, median

#: The commands measured: each exits quickly once started (usage errors exit 2).
COMMANDS: dict[str, tuple[str, ...]] = {
    "noitu --help": ("--help",),
    "noitu token": ("token", "--user", "1", "--chat", "1", "--message", "1"),
    "noitu arena match --help": ("arena", "match", "--help"),
    "noitu arena match (usage error)": ("arena", "match", "builtin:nobody", "builtin:random"),
}


def _one_run(argv: tuple[str, ...], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "noitu.entrypoints.cli", *argv],
        env=env, capture_output=True, check=False,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 2):
        raise RuntimeError(f"noitu {' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def bench_cli_start(runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="noitu-bench-cli-") as data_dir:
        env = {**os.environ, "NOITU_GAME_SECRET": "b" * 32, "NOITU_DATA_DIR": data_dir}
        info = machine()
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, argv in COMMANDS.items():
                samples[name].append(_one_run(argv, env))
        info["load_average_after"] = load_average()
    return {
        "machine": info,
        "runs": runs,
        "commands": {
            name: {
                "wall_s": round(median([wall for wall, _ in found]), 3),
                "cpu_s": round(median([cpu for _, cpu in found]), 3),
            }
            for name, found in samples.items()
        },
    }


def format_cli_start(report: dict[str, Any]) -> str:
    lines = [format_machine(report["machine"]), f"medians of {report['runs']} runs each:"]
    width = max(len(name) for name in report["commands"])
    for name, figures in report["commands"].items():
        lines.append(f"  {name:<{width}}  {figures['wall_s']:6.2f} s wall  {figures['cpu_s']:6.2f} s CPU")
    return "\n".join(lines)
