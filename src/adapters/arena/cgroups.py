"""Per-bot cgroups: one interface, a cgroup v1 and a cgroup v2 implementation.

Each bot process (and each compile) gets its own cgroup, created below the server's
OWN cgroup as `/proc/self/cgroup` names it, with a memory cap, a CPU quota and a pids
cap. A process joins it by writing its pid to every file of `procs_files` before the
untrusted program runs (the launchers do that in a tiny `/bin/sh` exec wrapper, never in
`preexec_fn`). A memory kill is told by the cgroup's OOM-kill counter. After the bot
ended, `kill_all()` and `remove()`.

- v1 (this project's CI machines): the memory, cpu and pids hierarchies are mounted
  separately; limits `memory.limit_in_bytes` (+ `memory.memsw.limit_in_bytes` when swap
  accounting exists), `cpu.cfs_period_us`/`cpu.cfs_quota_us`, `pids.max`; OOM kills in
  `memory.oom_control`'s `oom_kill` line; no `cgroup.kill`, so processes are killed one
  by one through pidfds (the PID namespace of the sandbox already kills them too).
- v2 (most production hosts): `memory.max` (+ `memory.swap.max` 0, `memory.oom.group`
  1), `cpu.max`, `pids.max`, `memory.events`' `oom_kill`, `cgroup.kill`. The server's
  cgroup must be delegated to it (writable). Because of v2's "no internal processes"
  rule, when the controllers cannot be enabled for children of a cgroup that still holds
  processes, those processes are moved into a leaf `noitu-server` first (what systemd's
  `Delegate=yes` expects).
"""

from __future__ import annotations

import asyncio
import errno
import os
import secrets
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MIB = 1024 * 1024
CONTROLLERS = ("memory", "cpu", "pids")


@dataclass(frozen=True, slots=True)
class CgroupLimits:
    memory_bytes: int
    cpu_quota_us: int
    cpu_period_us: int
    pids_max: int


#: Per bot process and everything it starts (B2): 384 MB, 0.5 CPU, 64 pids.
BOT_LIMITS = CgroupLimits(
    memory_bytes=384 * MIB, cpu_quota_us=50_000, cpu_period_us=100_000, pids_max=64
)
#: Per compile (B2): 1 GiB, 1 CPU, 64 pids (the 60 s wall limit is the builder's).
BUILD_LIMITS = CgroupLimits(
    memory_bytes=1024 * MIB, cpu_quota_us=100_000, cpu_period_us=100_000, pids_max=64
)


class CgroupError(Exception):
    """Cgroups cannot be used; the message is one line saying why."""


def _read(path: Path) -> str:
    return path.read_text()


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def _counter(path: Path, key: str) -> int:
    """The value of `key N` in a flat keyed file such as memory.events; 0 if absent."""
    try:
        text = _read(path)
    except OSError:
        return 0
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            try:
                return int(parts[1])
            except ValueError:
                return 0
    return 0


def _why(error: OSError) -> str:
    return error.strerror or str(error)


class BotCgroup(ABC):
    """One bot's cgroup (in v1: one directory per hierarchy)."""

    def __init__(self, directories: tuple[Path, ...]) -> None:
        self.directories = directories
        self._removed = False

    @property
    def procs_files(self) -> tuple[Path, ...]:
        """Write a pid to each of these to put that process into the cgroup."""
        return tuple(directory / "cgroup.procs" for directory in self.directories)

    @abstractmethod
    def oom_kills(self) -> int:
        """How many processes the OOM killer killed in this cgroup."""

    def pids_limit_hits(self) -> int:
        """How many forks failed because of pids.max."""
        return _counter(self._pids_dir / "pids.events", "max")

    @property
    @abstractmethod
    def _pids_dir(self) -> Path: ...

    def pids(self) -> set[int]:
        found: set[int] = set()
        for procs in self.procs_files:
            try:
                found.update(int(word) for word in _read(procs).split())
            except (OSError, ValueError):
                continue
        return found

    async def kill_all(self, timeout_s: float = 2.0) -> bool:
        """SIGKILL every process in the cgroup until it is empty; False if it is not
        empty after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while True:
            pids = self.pids()
            if not pids:
                return True
            self._kill(pids)
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(0.01)

    def _kill(self, pids: Iterable[int]) -> None:
        handles: dict[int, int] = {}
        for pid in pids:
            try:
                handles[pid] = os.pidfd_open(pid)
            except OSError:
                continue  # already gone
        try:
            # A pidfd pins its process: a pid still listed now is ours, not a reused one.
            members = self.pids()
            for pid, handle in handles.items():
                if pid in members:
                    try:
                        signal.pidfd_send_signal(handle, signal.SIGKILL)
                    except OSError:
                        pass
        finally:
            for handle in handles.values():
                os.close(handle)

    async def remove(self, timeout_s: float = 2.0) -> bool:
        """Remove the cgroup's directories (it must be empty; retried while busy)."""
        if self._removed:
            return True
        deadline = time.monotonic() + timeout_s
        left = [d for d in self.directories]
        while left:
            still: list[Path] = []
            for directory in left:
                try:
                    os.rmdir(directory)
                except FileNotFoundError:
                    pass
                except OSError as error:
                    if error.errno not in (errno.EBUSY, errno.ENOTEMPTY):
                        raise
                    still.append(directory)
            left = still
            if left:
                if time.monotonic() >= deadline:
                    return False
                await self.kill_all(timeout_s=0.1)
                await asyncio.sleep(0.02)
        self._removed = True
        return True


class CgroupTree(ABC):
    """Where per-bot cgroups are made."""

    version: str

    @abstractmethod
    def create(self, prefix: str, limits: CgroupLimits) -> BotCgroup:
        """A new cgroup named `noitu-<prefix>-<random>` with `limits`; CgroupError if it
        cannot be made."""

    @abstractmethod
    def describe(self) -> str: ...

    @abstractmethod
    def parent_directories(self) -> tuple[Path, ...]:
        """Where this tree makes its cgroups (one directory per hierarchy)."""

    def remove_empty(self, min_age_s: float = 60.0) -> int:
        """Remove the `noitu-*` cgroups under this tree that hold no process and are at
        least `min_age_s` old; how many (by name). A server killed with -9 cannot remove
        its bots' cgroups, though the bots died with it; this runs at start-up. A cgroup
        that holds a process (another server's bot on this host) is left alone, as the
        kernel refuses to remove it; so is a young one, which another server may have
        just made for a bot that has not joined it yet."""
        newest = time.time() - min_age_s
        removed: set[str] = set()
        for parent in self.parent_directories():
            try:
                children = [child for child in parent.iterdir() if child.name.startswith("noitu-")]
            except OSError:
                continue
            for child in children:
                try:
                    if child.stat().st_mtime > newest:
                        continue
                    os.rmdir(child)
                except OSError:
                    continue
                removed.add(child.name)
        return len(removed)


def _make_dirs(parents: Iterable[Path], name: str) -> list[Path]:
    made: list[Path] = []
    for parent in parents:
        directory = parent / name
        try:
            directory.mkdir(mode=0o755)
        except OSError as error:
            for done in made:
                try:
                    os.rmdir(done)
                except OSError:
                    pass
            raise CgroupError(f"cannot create a cgroup under {parent}: {_why(error)}") from error
        made.append(directory)
    return made


def _apply(directories: list[Path], writes: list[tuple[Path, str, bool]]) -> None:
    """Write each (file, value, required); on a failed required write undo everything."""
    for path, value, required in writes:
        try:
            _write(path, value)
        except OSError as error:
            if not required:
                continue
            for directory in directories:
                try:
                    os.rmdir(directory)
                except OSError:
                    pass
            raise CgroupError(f"cannot set {path}: {_why(error)}") from error


def _new_name(prefix: str) -> str:
    return f"noitu-{prefix}-{secrets.token_hex(6)}"


# ---------------------------------------------------------------- cgroup v1


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
            text = _read(control)
        except OSError:
            return 0
        if "oom_kill " in text:
            return _counter(control, "oom_kill")
        # Kernels before 4.13 have no oom_kill line: hitting the limit is the best sign.
        for name in ("memory.memsw.failcnt", "memory.failcnt"):
            try:
                if int(_read(self.memory / name).strip() or "0") > 0:
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
        name = _new_name(prefix)
        made = _make_dirs(self.parents.values(), name)
        memory, cpu, pids = made
        _apply(
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


# ---------------------------------------------------------------- cgroup v2


class _V2Cgroup(BotCgroup):
    def __init__(self, directory: Path) -> None:
        super().__init__((directory,))
        self.directory = directory

    @property
    def _pids_dir(self) -> Path:
        return self.directory

    def oom_kills(self) -> int:
        return _counter(self.directory / "memory.events", "oom_kill")

    async def kill_all(self, timeout_s: float = 2.0) -> bool:
        try:
            _write(self.directory / "cgroup.kill", "1")
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
            return set(_read(self.base / "cgroup.controllers").split())
        except OSError:
            return set()

    def _enable(self) -> None:
        control = self.base / "cgroup.subtree_control"
        try:
            enabled = set(_read(control).split())
        except OSError as error:
            raise CgroupError(f"cannot read {control}: {_why(error)}") from error
        wanted = [c for c in CONTROLLERS if c not in enabled]
        if not wanted:
            return
        value = " ".join(f"+{c}" for c in wanted)
        try:
            _write(control, value)
            return
        except OSError as error:
            if error.errno != errno.EBUSY or self.is_root:
                raise CgroupError(f"cannot enable {value} in {control}: {_why(error)}") from error
        # Processes sit in our cgroup: move them all into a leaf, then enable.
        leaf = self.base / SERVER_LEAF
        try:
            leaf.mkdir(exist_ok=True)
            for pid in _read(self.base / "cgroup.procs").split():
                try:
                    _write(leaf / "cgroup.procs", pid)
                except ProcessLookupError:
                    continue
            _write(control, value)
        except OSError as error:
            raise CgroupError(
                f"cannot enable {value} in {control} (moved processes to {leaf}): {_why(error)}"
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
        (directory,) = _make_dirs([self.base], _new_name(prefix))
        _apply(
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


# ---------------------------------------------------------------- discovery


@dataclass(frozen=True, slots=True)
class _Mount:
    root: str
    point: Path
    fstype: str
    options: frozenset[str]


def _unescape(field: str) -> str:
    for escaped, plain in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(escaped, plain)
    return field


def _mounts(mountinfo: str) -> list[_Mount]:
    found: list[_Mount] = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        dash = fields.index("-")
        if len(fields) < dash + 4 or len(fields) < 5:
            continue
        fstype, super_options = fields[dash + 1], fields[dash + 3]
        root, point = _unescape(fields[3]), Path(_unescape(fields[4]))
        found.append(_Mount(root, point, fstype, frozenset(super_options.split(","))))
    return found


def _inside(mount: _Mount, cgroup_path: str) -> Path:
    """The directory of `cgroup_path` (as /proc/self/cgroup names it) in `mount`."""
    root = mount.root.rstrip("/")
    relative = cgroup_path
    if root and (cgroup_path == root or cgroup_path.startswith(root + "/")):
        relative = cgroup_path[len(root) :]
    return mount.point / relative.lstrip("/")


def find_cgroups(proc: Path = Path("/proc"), prefer: str | None = None) -> CgroupTree:
    """The cgroup tree to make per-bot cgroups in, below the server's own cgroup.

    v2 when the server's unified cgroup offers memory, cpu and pids; else v1 when the
    three hierarchies are mounted; CgroupError with one line saying why otherwise.
    `prefer` ("v1" or "v2") restricts the choice (tests)."""
    try:
        membership = _read(proc / "self" / "cgroup")
        mounts = _mounts(_read(proc / "self" / "mountinfo"))
    except OSError as error:
        raise CgroupError(f"cannot read {proc}/self/cgroup or mountinfo: {_why(error)}") from error
    v1_paths: dict[str, str] = {}
    v2_path: str | None = None
    for line in membership.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            v2_path = parts[2]
        for controller in parts[1].split(","):
            if controller in CONTROLLERS:
                v1_paths[controller] = parts[2]

    reasons: list[str] = []
    if prefer in (None, "v2"):
        unified = next((m for m in mounts if m.fstype == "cgroup2"), None)
        if unified is None or v2_path is None:
            reasons.append("no cgroup v2 hierarchy mounted")
        else:
            base = _inside(unified, v2_path)
            tree = CgroupV2Tree(base, is_root=(v2_path.rstrip("/") == unified.root.rstrip("/")))
            have = tree.available_controllers()
            missing = [c for c in CONTROLLERS if c not in have]
            if not missing:
                return tree
            reasons.append(
                f"cgroup v2 at {base} offers "
                + (" ".join(sorted(have)) if have else "no controllers")
                + f" (needs {' '.join(CONTROLLERS)})"
            )
    if prefer in (None, "v1"):
        parents: dict[str, Path] = {}
        for controller in CONTROLLERS:
            mount = next(
                (m for m in mounts if m.fstype == "cgroup" and controller in m.options), None
            )
            if mount is not None and controller in v1_paths:
                parents[controller] = _inside(mount, v1_paths[controller])
        missing = [c for c in CONTROLLERS if c not in parents]
        if not missing:
            return CgroupV1Tree(parents)
        reasons.append(f"cgroup v1 has no {', '.join(missing)} hierarchy mounted")
    raise CgroupError("no usable cgroups: " + "; ".join(reasons))
