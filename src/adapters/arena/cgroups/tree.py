"""What both cgroup versions share: a bot's cgroup (its members, killing them, removing
it), the tree new cgroups are made in, and the file writes that make one."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import secrets
import signal
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from pathlib import Path

from noitu.adapters.arena.cgroups.limits import CgroupLimits

CONTROLLERS = ("memory", "cpu", "pids")


class CgroupError(Exception):
    """Cgroups cannot be used; the message is one line saying why."""


def read_file(path: Path) -> str:
    return path.read_text()


def write_file(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


def counter(path: Path, key: str) -> int:
    """The value of `key N` in a flat keyed file such as memory.events; 0 if absent."""
    try:
        text = read_file(path)
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


def why(error: OSError) -> str:
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
        return counter(self._pids_dir / "pids.events", "max")

    @property
    @abstractmethod
    def _pids_dir(self) -> Path: ...

    def pids(self) -> set[int]:
        found: set[int] = set()
        for procs in self.procs_files:
            try:
                found.update(int(word) for word in read_file(procs).split())
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


def make_dirs(parents: Iterable[Path], prefix: str) -> list[Path]:
    """One new directory `noitu-<prefix>-<random>` under each of `parents` (all or none)."""
    name = f"noitu-{prefix}-{secrets.token_hex(6)}"
    made: list[Path] = []
    for parent in parents:
        directory = parent / name
        try:
            directory.mkdir(mode=0o755)
        except OSError as error:
            _remove_quietly(made)
            raise CgroupError(f"cannot create a cgroup under {parent}: {why(error)}") from error
        made.append(directory)
    return made


def apply_limits(directories: list[Path], writes: list[tuple[Path, str, bool]]) -> None:
    """Write each (file, value, required); on a failed required write undo everything."""
    for path, value, required in writes:
        try:
            write_file(path, value)
        except OSError as error:
            if not required:
                continue
            _remove_quietly(directories)
            raise CgroupError(f"cannot set {path}: {why(error)}") from error


def _remove_quietly(directories: Iterable[Path]) -> None:
    for directory in directories:
        with contextlib.suppress(OSError):
            os.rmdir(directory)
