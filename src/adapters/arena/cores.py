"""How many cores this process may use (spec B9: a worker runs 2 matches per core it
may use): the CPUs of its affinity mask (`taskset`), capped by its cgroup's CPU quota
(cgroup v2 `cpu.max`, e.g. a container started with `--cpus`), never below one."""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def usable_cores(
    cgroup_file: Path = Path("/proc/self/cgroup"), root: Path = CGROUP_ROOT
) -> int:
    cores = len(os.sched_getaffinity(0)) or 1
    quota = cgroup_quota(cgroup_file, root)
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def cgroup_quota(cgroup_file: Path, root: Path) -> float | None:
    """The CPUs' worth the cgroup v2 quota allows along the process's cgroup path (the
    tightest on the way up), or None when there is none (or no cgroup v2 to read)."""
    try:
        lines = cgroup_file.read_text().splitlines()
    except OSError:
        return None
    own = next((line[3:] for line in lines if line.startswith("0::")), None)
    if own is None:
        return None
    tightest: float | None = None
    directory = root / own.strip().lstrip("/")
    while True:
        quota = _quota_of(directory / "cpu.max")
        if quota is not None:
            tightest = quota if tightest is None else min(tightest, quota)
        if directory == root or root not in directory.parents:
            return tightest
        directory = directory.parent


def _quota_of(path: Path) -> float | None:
    try:
        fields = path.read_text().split()
    except OSError:
        return None
    if len(fields) != 2 or fields[0] == "max":
        return None
    try:
        quota, period = int(fields[0]), int(fields[1])
    except ValueError:
        return None
    return quota / period if period > 0 else None
