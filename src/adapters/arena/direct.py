"""A launcher WITHOUT a sandbox, only for trusted code: the server's built-in bots when
no sandbox is available, and the CLI's explicit `--no-sandbox` on the author's own
machine. Never for uploads.

Same I/O, clock and failure codes as the sandbox. The process runs in its own session
with a minimal environment in its artefact directory. With a cgroup tree it also gets
the bots' cgroup limits (memory kills are then RESOURCE_LIMIT) and everything it started
is killed through the cgroup; without one, only its process group is killed at the end,
so a `setsid` grandchild of trusted code could outlive the match.

A server that dies without its shutdown (`kill -9`) leaves no bot behind: the bot is
started through `setpriv --pdeathsig KILL`, so the kernel kills it when the server
goes (an exec wrapper, not `preexec_fn`, which is unsafe in a threaded server). Where
setpriv lacks the option the bot starts without it.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

from noitu.adapters.arena.cgroups.limits import BOT_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.cgroups.tree import CgroupError, CgroupTree
from noitu.adapters.arena.languages import ENTRY_NAME, run_command
from noitu.adapters.arena.process import PipeBotProcess
from noitu.adapters.arena.process_tree import ProcessTree, joined, spawn
from noitu.application.arena.ports import Artefact, BotProcess, ProcessFailure
from noitu.domain.arena.failure import FailureCode


def _start_failed(detail: str) -> ProcessFailure:
    return ProcessFailure(FailureCode.START_FAILED, detail)


class DirectLauncher:
    def __init__(
        self,
        *,
        python: str = "/usr/bin/python3",
        java: str | None = None,
        cgroups: CgroupTree | None = None,
        limits: CgroupLimits = BOT_LIMITS,
        home: Path | None = None,
    ) -> None:
        """`python`: the interpreter of Python bots (the built-in bots may need the
        server's own); `cgroups`: when given, each bot gets a cgroup with `limits`."""
        self.python = python
        self.java = java or shutil.which("java") or "java"
        self.cgroups = cgroups
        self.limits = limits
        self.home = home or Path(tempfile.gettempdir())
        self._death_signal: list[str] | None = None

    async def death_signal(self) -> list[str]:
        """The wrapper that makes the kernel kill the bot with the server (checked
        once: `setpriv --pdeathsig` exists since util-linux 2.33); [] without one."""
        if self._death_signal is None:
            wrapper = [shutil.which("setpriv") or "/usr/bin/setpriv", "--pdeathsig", "KILL", "--"]
            try:
                check = await asyncio.create_subprocess_exec(
                    *wrapper, "/bin/true",
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.DEVNULL,
                    stderr=asyncio.subprocess.DEVNULL,
                )
                works = await check.wait() == 0
            except OSError:
                works = False
            self._death_signal = wrapper if works else []
        return self._death_signal

    def command(self, artefact: Artefact) -> list[str]:
        directory = str(artefact.directory)
        return run_command(artefact.language, directory, python=self.python, java=self.java)

    async def launch(self, artefact: Artefact) -> BotProcess | ProcessFailure:
        entry = artefact.directory / ENTRY_NAME[artefact.language]
        command = self.command(artefact)
        program = command[0]
        if not entry.is_file() or not (os.access(program, os.X_OK) or shutil.which(program)):
            return _start_failed("Không tìm thấy chương trình của bot.")
        cgroup = None
        if self.cgroups is not None:
            try:
                cgroup = self.cgroups.create("bot", self.limits)
            except CgroupError:
                return _start_failed("Không tạo được giới hạn tài nguyên cho bot.")
        argv = joined(cgroup.procs_files if cgroup else (), [*await self.death_signal(), *command])
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self.home), "LANG": "C.UTF-8"}
        try:
            spawned = await spawn(argv, cwd=artefact.directory, env=env)
        except OSError:
            if cgroup is not None:
                await cgroup.remove()
            return _start_failed("Không khởi động được bot.")
        memory_mb = self.limits.memory_bytes // MIB if cgroup else None
        process = spawned.process
        return PipeBotProcess(
            spawned,
            ProcessTree(process, cgroup=cgroup, memory_limit_mb=memory_mb, kill_group=True),
        )
