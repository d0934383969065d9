"""cgroup v2: one unified hierarchy; the server's cgroup must be delegated to it."""

from __future__ import annotations

import errno
from pathlib import Path

from noitu.adapters.arena.cgroups import tree
from noitu.adapters.arena.cgroups.limits import CgroupLimits
from noitu.adapters.arena.cgroups.tree import CONTROLLERS, BotCgroup, CgroupError, CgroupTree


class _V2Cgroup(BotCgroup):
    def __init__(self, directory: Path) -> None:
        super().__init__((directory,))
        self.directory = directory

    @property
    def _pids_dir(self) -> Path:
        return self.directory

    def oom_kills(self) -> int:
        return tree.counter(self.directory / "memory.events", "oom_kill")

    async def kill_all(self, timeout_s: float = 2.0) -> bool:
        try:
            tree.write_file(self.directory / "cgroup.kill", "1")
        except OSError:
            pass  # kernels before 5.14: kill one by one
        return await super().kill_all(timeout_s)


SERVER_LEAF = "noitu-server"


class CgroupV2Tree(CgroupTree):
    version = "v2"

    def __init__(self, base: Path, is_root: bool = False) -> None:
        """`base`: the server's own cgroup directory in the unified hierarchy;
        `is_root`: it is the hierarchy's root (exempt from "no internal processes")."""
        self.base = base
        self.is_root = is_root
        self._prepared = False

    def describe(self) -> str:
        return f"cgroup v2 (at {self.base})"

    def parent_directories(self) -> tuple[Path, ...]:
        return (self.base,)

    def available_controllers(self) -> set[str]:
        try:
            return set(tree.read_file(self.base / "cgroup.controllers").split())
        except OSError:
            return set()

    def _enable(self) -> None:
        control = self.base / "cgroup.subtree_control"
        try:
            enabled = set(tree.read_file(control).split())
        except OSError as error:
            raise CgroupError(f"cannot read {control}: {tree.why(error)}") from error
        wanted = [c for c in CONTROLLERS if c not in enabled]
        if not wanted:
            return
        value = " ".join(f"+{c}" for c in wanted)
        try:
            tree.write_file(control, value)
            return
        except OSError as error:
            if error.errno != errno.EBUSY or self.is_root:
                why = tree.why(error)
                raise CgroupError(f"cannot enable {value} in {control}: {why}") from error
        # Processes sit in our cgroup: move them all into a leaf, then enable.
        leaf = self.base / SERVER_LEAF
        try:
            leaf.mkdir(exist_ok=True)
            for pid in tree.read_file(self.base / "cgroup.procs").split():
                try:
                    tree.write_file(leaf / "cgroup.procs", pid)
                except ProcessLookupError:
                    continue
            tree.write_file(control, value)
        except OSError as error:
            raise CgroupError(
                f"cannot enable {value} in {control} (moved processes to {leaf}): {tree.why(error)}"
            ) from error

    def create(self, prefix: str, limits: CgroupLimits) -> BotCgroup:
        missing = [c for c in CONTROLLERS if c not in self.available_controllers()]
        if missing:
            raise CgroupError(
                f"cgroup v2 at {self.base} does not offer {', '.join(missing)} "
                f"(cgroup.controllers); delegate them to the server's cgroup"
            )
        if not self._prepared:
            self._enable()
            self._prepared = True
        (directory,) = tree.make_dirs([self.base], prefix)
        tree.apply_limits(
            [directory],
            [
                (directory / "memory.max", str(limits.memory_bytes), True),
                (directory / "memory.swap.max", "0", False),
                (directory / "memory.oom.group", "1", False),
                (directory / "cpu.max", f"{limits.cpu_quota_us} {limits.cpu_period_us}", True),
                (directory / "pids.max", str(limits.pids_max), True),
            ],
        )
        return _V2Cgroup(directory)
