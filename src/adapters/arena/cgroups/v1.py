"""cgroup v1: the memory, cpu and pids hierarchies are mounted separately, so a bot's
cgroup is one directory in each."""

from __future__ import annotations

from pathlib import Path

from noitu.adapters.arena.cgroups import tree
from noitu.adapters.arena.cgroups.limits import CgroupLimits
from noitu.adapters.arena.cgroups.tree import CONTROLLERS, BotCgroup, CgroupError, CgroupTree


class _V1Cgroup(BotCgroup):
    def __init__(self, memory: Path, cpu: Path, pids: Path) -> None:
        super().__init__((memory, cpu, pids))
        self.memory, self.cpu, self.pids_directory = memory, cpu, pids

    @property
    def _pids_dir(self) -> Path:
        return self.pids_directory

    def oom_kills(self) -> int:
        control = self.memory / "memory.oom_control"
        try:
            text = tree.read_file(control)
        except OSError:
            return 0
        if "oom_kill " in text:
            return tree.counter(control, "oom_kill")
        # Kernels before 4.13 have no oom_kill line: hitting the limit is the best sign.
        for name in ("memory.memsw.failcnt", "memory.failcnt"):
            try:
                if int(tree.read_file(self.memory / name).strip() or "0") > 0:
                    return 1
            except (OSError, ValueError):
                continue
        return 0


class CgroupV1Tree(CgroupTree):
    version = "v1"

    def __init__(self, parents: dict[str, Path]) -> None:
        """`parents`: for "memory", "cpu" and "pids", the server's own cgroup directory
        in that hierarchy."""
        missing = [c for c in CONTROLLERS if c not in parents]
        if missing:
            raise CgroupError(f"cgroup v1: no {', '.join(missing)} hierarchy mounted")
        self.parents = {c: parents[c] for c in CONTROLLERS}

    def describe(self) -> str:
        return "cgroup v1 (" + ", ".join(f"{c} at {p}" for c, p in self.parents.items()) + ")"

    def parent_directories(self) -> tuple[Path, ...]:
        return tuple(self.parents.values())

    def create(self, prefix: str, limits: CgroupLimits) -> BotCgroup:
        made = tree.make_dirs(self.parents.values(), prefix)
        memory, cpu, pids = made
        tree.apply_limits(
            made,
            [
                (memory / "memory.limit_in_bytes", str(limits.memory_bytes), True),
                # No swap either (memsw only exists with swap accounting; it must not be
                # below limit_in_bytes, so it is written second).
                (memory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes), False),
                # v1 charges TCP socket buffers to no memory cgroup unless this is set;
                # the seccomp filter refuses inet sockets anyway (spec B2, kernel surface).
                (memory / "memory.kmem.tcp.limit_in_bytes", str(limits.memory_bytes), False),
                (cpu / "cpu.cfs_period_us", str(limits.cpu_period_us), True),
                (cpu / "cpu.cfs_quota_us", str(limits.cpu_quota_us), True),
                (pids / "pids.max", str(limits.pids_max), True),
            ],
        )
        return _V1Cgroup(memory, cpu, pids)
