"""What a test started, and nothing else on the machine: the processes below a pid it
spawned, the cgroups those processes (or its own cgroup tree) made, and a cgroup parent
of its own to make them in.

People run a `noitu serve` beside the suite, and other suites run at once: a test never
lists processes by name (`pgrep bwrap`) or a cgroup parent it shares with them
(`noitu-bot-*` under the machine's root); it follows pids it holds, or asks a cgroup
tree that records what it made."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path

from noitu.adapters.arena.cgroups.limits import CgroupLimits
from noitu.adapters.arena.cgroups.tree import BotCgroup, CgroupTree
from noitu.adapters.arena.cgroups.v1 import CgroupV1Tree
from noitu.adapters.arena.cgroups.v2 import CgroupV2Tree

# ------------------------------------------------------------------ processes


def _stat_fields(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state first, then the
    parent's pid), or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def descendants(pid: int) -> set[int]:
    """Living (not zombie) processes below `pid`: its children, theirs, and so on,
    followed by the parent pid in /proc/*/stat. A process that was reparented (its
    parent died, a `setsid` double fork) is no longer below `pid`: take the set while
    the tree is whole, then watch those pids with `alive`."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(entry)
        if fields is not None and fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def is_below(pid: int, ancestor: int) -> bool:
    """Whether `ancestor` is `pid`'s parent, or its parent's, and so on (now)."""
    for _ in range(4096):  # a chain of parents ends at pid 0; a loop never
        fields = _stat_fields(pid)
        if fields is None:
            return False
        pid = int(fields[1])
        if pid == ancestor:
            return True
        if pid <= 1:
            return False
    return False


def alive(pids: Iterable[int]) -> set[int]:
    """Those of `pids` still running (zombies count as gone)."""
    living = set()
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is not None and fields[0] != "Z":
            living.add(pid)
    return living


# ------------------------------------------------------------------ cgroups


def cgroups_holding(pids: Iterable[int], parents: Iterable[Path], prefix: str = "noitu-") -> set[Path]:
    """The cgroups named `prefix*` directly under `parents` that hold one of `pids`
    (a cgroup of another server's bot beside them is not among them)."""
    wanted = {str(pid) for pid in pids}
    found: set[Path] = set()
    for parent in parents:
        with contextlib.suppress(OSError):
            for child in parent.iterdir():
                if not child.name.startswith(prefix):
                    continue
                with contextlib.suppress(OSError):
                    if wanted & set((child / "cgroup.procs").read_text().split()):
                        found.add(child)
    return found


class RecordingTree(CgroupTree):
    """`tree`, remembering every cgroup it made: a test asks what became of those, not
    of whatever else sits under the same parent."""

    def __init__(self, tree: CgroupTree) -> None:
        self.tree = tree
        self.version = tree.version
        self.made: list[BotCgroup] = []

    def create(self, prefix: str, limits: CgroupLimits) -> BotCgroup:
        cgroup = self.tree.create(prefix, limits)
        self.made.append(cgroup)
        return cgroup

    def describe(self) -> str:
        return self.tree.describe()

    def parent_directories(self) -> tuple[Path, ...]:
        return self.tree.parent_directories()

    def directories(self) -> list[Path]:
        """Every directory of every cgroup made so far."""
        return [directory for cgroup in self.made for directory in cgroup.directories]


#: A test's own cgroup parent is named so that no server takes it for a bot's
#: (`CgroupTree.remove_empty` removes only `noitu-*`).
OWN_PARENT_PREFIX = "pytest-"


@contextlib.contextmanager
def own_parent(tree: CgroupTree, probe_limits: CgroupLimits) -> Iterator[CgroupTree]:
    """A tree of the same version making its cgroups under a parent this test made
    below `tree`'s (removed after, once empty), so that what the test lists or removes
    there is its own. `probe_limits`: a v2 tree first makes (and removes) one cgroup of
    its own, which enables the controllers below the server's cgroup."""
    name = f"{OWN_PARENT_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    scoped: CgroupTree
    made: list[Path] = []
    try:
        if isinstance(tree, CgroupV1Tree):
            parents = {controller: parent / name for controller, parent in tree.parents.items()}
            for directory in parents.values():
                directory.mkdir()
                made.append(directory)
            scoped = CgroupV1Tree(parents)
        elif isinstance(tree, CgroupV2Tree):
            enabling = tree.create("probe", probe_limits)
            os.rmdir(enabling.directories[0])
            base = tree.base / name
            base.mkdir()
            made.append(base)
            scoped = CgroupV2Tree(base)
        else:
            raise TypeError(f"no own parent for a {type(tree).__name__}")
        yield scoped
    finally:
        for directory in reversed(made):
            with contextlib.suppress(OSError):
                directory.rmdir()
