"""How many cores a worker may use (B9: 2 matches per core): its affinity, capped by
its cgroup v2 CPU quota along its path."""

from __future__ import annotations

import os
from pathlib import Path

from noitu.adapters.arena.cores import cgroup_quota, usable_cores


def _tree(tmp_path: Path, quotas: dict[str, str]) -> tuple[Path, Path]:
    root = tmp_path / "cgroup"
    for relative, text in quotas.items():
        directory = root / relative
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "cpu.max").write_text(text + "\n")
    own = tmp_path / "self-cgroup"
    own.write_text("0::/system.slice/worker.service\n")
    (root / "system.slice/worker.service").mkdir(parents=True, exist_ok=True)
    return own, root


def test_no_quota_leaves_the_affinity(tmp_path: Path) -> None:
    own, root = _tree(tmp_path, {"system.slice/worker.service": "max 100000"})
    assert cgroup_quota(own, root) is None
    assert usable_cores(own, root) == len(os.sched_getaffinity(0))


def test_the_tightest_quota_on_the_path_counts(tmp_path: Path) -> None:
    own, root = _tree(
        tmp_path,
        {"system.slice": "150000 100000", "system.slice/worker.service": "400000 100000"},
    )
    assert cgroup_quota(own, root) == 1.5
    assert usable_cores(own, root) == min(2, len(os.sched_getaffinity(0)))


def test_a_quota_below_one_core_still_gives_one(tmp_path: Path) -> None:
    own, root = _tree(tmp_path, {"system.slice/worker.service": "20000 100000"})
    assert usable_cores(own, root) == 1


def test_cgroup_v1_or_a_broken_file_reads_as_no_quota(tmp_path: Path) -> None:
    v1 = tmp_path / "v1"
    v1.write_text("4:memory:/x\n1:cpu:/\n")
    assert cgroup_quota(v1, tmp_path) is None
    own, root = _tree(tmp_path, {"system.slice/worker.service": "lots of cpu"})
    assert cgroup_quota(own, root) is None
    assert cgroup_quota(tmp_path / "missing", root) is None
