"""Starting a bot's process and holding what it started (both launchers').

`spawn` starts a program with three pipes in a session of its own, inside its cgroups
from its first instruction (`joined`); a `Containment` (`ProcessTree` as a rule) kills
all it started and releases its cgroup and staging folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from noitu.adapters.arena.cgroups.tree import BotCgroup
from noitu.adapters.arena.stderr_reader import grow_stderr_pipe

_log = logging.getLogger(__name__)

#: `sh -c` wrapper: write our pid to every file up to "--", then exec the rest. The pid
#: of the shell is the pid of what it execs, so the bot is in its cgroups before any of
#: its code runs (no preexec_fn in a threaded server).
JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


def joined(
    procs_files: Sequence[Path], command: Sequence[str], shell: str = "/bin/sh"
) -> list[str]:
    """`command` run so that it starts inside the cgroups of `procs_files`."""
    if not procs_files:
        return list(command)
    return [shell, "-c", JOIN_SCRIPT, "noitu-join", *map(str, procs_files), "--", *command]


@dataclass(frozen=True, slots=True)
class Spawned:
    """A started process and our ends of its three pipes, all non-blocking and ours to
    close: `PipeBotProcess` writes stdin and reads stdout itself (a callback when the
    pipe is readable, no stream in between), and drains stderr in bounded passes
    (`StderrReader`), not through asyncio's pipe transport, which would read every byte
    as eagerly as the bot writes."""

    process: asyncio.subprocess.Process
    stdin_fd: int
    stdout_fd: int
    stderr_fd: int


def _pipe(ours: int) -> tuple[int, int]:
    """A pipe whose end `ours` (0: read, 1: write) is non-blocking; the bot's end
    blocks (a full pipe makes the bot wait, an empty one makes it read on)."""
    ends = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
    os.set_blocking(ends[1 - ours], True)
    return ends


async def spawn(
    argv: Sequence[str], *, cwd: str | Path, env: dict[str, str], pass_fds: Sequence[int] = ()
) -> Spawned:
    """Start `argv` with three pipes in a new session (so it never shares our process
    group); the server's other file descriptors are not inherited."""
    stdin_read, stdin_write = _pipe(1)
    stdout_read, stdout_write = _pipe(0)
    stderr_read, stderr_write = _pipe(0)
    grow_stderr_pipe(stderr_read)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=stdin_read,
            stdout=stdout_write,
            stderr=stderr_write,
            cwd=str(cwd),
            env=env,
            pass_fds=tuple(pass_fds),
            start_new_session=True,
        )
    except BaseException:
        for fd in (stdin_write, stdout_read, stderr_read):
            os.close(fd)
        raise
    finally:
        for fd in (stdin_read, stdout_write, stderr_write):
            os.close(fd)
    return Spawned(process, stdin_write, stdout_read, stderr_read)


class Containment(Protocol):
    """How a launcher holds what a bot started."""

    memory_limit_mb: int | None

    def oom_killed(self) -> bool: ...

    async def kill_all(self) -> None: ...

    async def release(self) -> None: ...


class ProcessTree:
    """The usual containment: the process itself, optionally its process group (direct
    launcher), its cgroup (kill every member, tell OOM kills), a staging directory."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        *,
        cgroup: BotCgroup | None = None,
        memory_limit_mb: int | None = None,
        kill_group: bool = False,
        staging: Path | None = None,
        init_pidfd: int | None = None,
    ) -> None:
        """`init_pidfd`: a pidfd of the sandbox's PID 1 (bwrap's init). Killing it first
        ends its whole PID namespace while the outer bwrap is still there to reap it, so
        nothing is left as a zombie for the host's init."""
        self.process = process
        self.cgroup = cgroup
        self.memory_limit_mb = memory_limit_mb
        self.kill_group = kill_group
        self.staging = staging
        self.init_pidfd = init_pidfd
        self._released = False

    def oom_killed(self) -> bool:
        return self.cgroup is not None and self.cgroup.oom_kills() > 0

    async def kill_all(self) -> None:
        if self.init_pidfd is not None and self.process.returncode is None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self.init_pidfd, signal.SIGKILL)
            for _ in range(50):
                if self.process.returncode is not None:
                    break
                await asyncio.sleep(0.01)
        if self.kill_group:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        if self.cgroup is not None:
            await self.cgroup.kill_all()

    async def release(self) -> None:
        if self._released:
            return
        self._released = True
        if self.init_pidfd is not None:
            os.close(self.init_pidfd)
            self.init_pidfd = None
        if self.cgroup is not None and not await self.cgroup.remove():
            _log.warning("bot cgroup not removed: %s", ", ".join(map(str, self.cgroup.directories)))
        if self.staging is not None:
            await asyncio.to_thread(shutil.rmtree, self.staging, True)


class ExitWatch:
    """The moment a process exits, by its pidfd, or by polling its status where there
    is none (asyncio's `wait()` also waits for the pipes to close, which a child of the
    process may hold open)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self._process = process
        self._loop = asyncio.get_running_loop()
        self.exited: asyncio.Future[None] = self._loop.create_future()
        #: The polling task, when there is no pidfd to watch.
        self.tasks: list[asyncio.Task[None]] = []
        self._pidfd: int | None = None
        try:
            self._pidfd = os.pidfd_open(process.pid)
            self._loop.add_reader(self._pidfd, self._on_exit)
        except (NotImplementedError, OSError, ValueError):
            self.close()
            self.tasks.append(asyncio.create_task(self._poll()))

    def _on_exit(self) -> None:
        self.close()
        if not self.exited.done():
            self.exited.set_result(None)

    async def _poll(self) -> None:
        while self._process.returncode is None:
            await asyncio.sleep(0.05)
        if not self.exited.done():
            self.exited.set_result(None)

    async def wait(self, timeout_s: float) -> bool:
        """Wait at most `timeout_s` for the process to exit (and its status to be known)."""
        try:
            await asyncio.wait_for(asyncio.shield(self.exited), timeout_s)
        except TimeoutError:
            return False
        for _ in range(50):
            if self._process.returncode is not None:
                break
            await asyncio.sleep(0.01)
        return True

    def close(self) -> None:
        """Stop watching the pidfd (and close it)."""
        if self._pidfd is not None:
            with contextlib.suppress(Exception):
                self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
