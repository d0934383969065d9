"""The default sandbox's launcher and probe (spec B2): `BubblewrapLauncher` starts every
bot in a `Sandbox` (`sandbox.py`, which says how a sandboxed program is started);
`BubblewrapProbe` says whether uploads can run here by really starting one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from noitu.adapters.arena.cgroups.limits import BOT_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.cgroups.mounts import find_cgroups
from noitu.adapters.arena.cgroups.tree import CgroupError, CgroupTree
from noitu.adapters.arena.languages import artefact_files, needs_jvm, run_command
from noitu.adapters.arena.process import PipeBotProcess
from noitu.adapters.arena.process_tree import ProcessTree, spawn
from noitu.adapters.arena.sandbox import (
    BOT_DIR,
    BOT_TMP_BYTES,
    DEFAULT_USER_RANGE,
    HOST_ENV,
    NoFreeUser,
    Sandbox,
    SandboxTools,
    SandboxUsers,
    default_run_as,
    start_on_host,
)
from noitu.adapters.arena.seccomp import REFUSALS, SeccompUnavailable, compile_filter
from noitu.application.arena.ports import Artefact, BotProcess, ProcessFailure, SandboxStatus
from noitu.domain.arena.failure import FailureCode

START_TIMEOUT_S = 10.0


async def read_all(fd: int, timeout_s: float) -> bytes:
    """Everything written to the pipe `fd` until its last writer closes it (b"" on
    timeout). Closes `fd`."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
    )
    try:
        # To the end: bwrap writes its info in several writes and dies of SIGPIPE if
        # the pipe closes between them.
        return await asyncio.wait_for(reader.read(), timeout_s)
    except TimeoutError:
        return b""
    finally:
        transport.close()


class BubblewrapLauncher:
    """`BotLauncher` that starts every bot in the sandbox."""

    def __init__(
        self, sandbox: Sandbox, limits: CgroupLimits = BOT_LIMITS, tmp_bytes: int = BOT_TMP_BYTES
    ) -> None:
        self.sandbox = sandbox
        self.limits = limits
        self.tmp_bytes = tmp_bytes

    def command(self, artefact: Artefact) -> list[str]:
        tools = self.sandbox.tools
        java = tools.java or "java"
        return run_command(artefact.language, BOT_DIR, python=tools.python, java=java)

    def _stage(self, artefact: Artefact, stage: Path, user: tuple[int, int] | None) -> bool:
        """Copy the artefact into `stage`, readable by `user` alone (False: not there)."""
        try:
            names = artefact_files(artefact.language, artefact.directory)
        except OSError:
            return False
        sources = [artefact.directory / name for name in names]
        if not names or not all(s.is_file() and not s.is_symlink() for s in sources):
            return False
        try:
            for source in sources:
                target = stage / source.name
                shutil.copyfile(source, target)
                os.chmod(target, 0o500 if source.name == "bot" else 0o400)
                self.sandbox.give_to_run_as(target, user)
            self.sandbox.give_to_run_as(stage, user)
        except OSError:
            return False
        return True

    async def launch(self, artefact: Artefact) -> BotProcess | ProcessFailure:
        # The stage and its uid are made on the event loop's thread (the lease's
        # bookkeeping is not shared with worker threads); only the copy runs in one.
        try:
            stage = self.sandbox.new_stage()
        except OSError:
            return _start_failed("Không chuẩn bị được chỗ chạy cho bot.")
        try:
            user = self.sandbox.lease_user(stage)
        except NoFreeUser:
            shutil.rmtree(stage, ignore_errors=True)
            return _start_failed("Máy chủ đang chạy quá nhiều bot cùng lúc.")
        if not await asyncio.to_thread(self._stage, artefact, stage, user):
            await asyncio.to_thread(shutil.rmtree, stage, True)
            return _start_failed("Không tìm thấy chương trình đã biên dịch của bot.")
        try:
            cgroup = self.sandbox.cgroups.create("bot", self.limits)
        except CgroupError:
            shutil.rmtree(stage, ignore_errors=True)
            return _start_failed("Không tạo được giới hạn tài nguyên cho bot.")
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        stage_fd = -1
        try:
            stage_fd = os.open(stage, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            with self.sandbox.kernel_filter() as seccomp_fd:
                argv = self.sandbox.argv(
                    cgroup,
                    self.sandbox.bwrap_args(
                        self.command(artefact),
                        read_only=[(stage_fd, BOT_DIR)],
                        chdir=BOT_DIR,
                        tmp_bytes=self.tmp_bytes,
                        info_fd=write_end,
                        seccomp_fd=seccomp_fd,
                        java=needs_jvm(artefact.language),
                    ),
                    user,
                )
                passed = [write_end, stage_fd] + ([] if seccomp_fd is None else [seccomp_fd])
                spawned = await spawn(argv, cwd="/", env=dict(HOST_ENV), pass_fds=passed)
        except (OSError, RuntimeError):
            os.close(read_end)
            await cgroup.remove()
            shutil.rmtree(stage, ignore_errors=True)
            return _start_failed("Không khởi động được sandbox cho bot.")
        finally:
            os.close(write_end)
            if stage_fd >= 0:
                os.close(stage_fd)
        memory_mb = self.limits.memory_bytes // MIB
        process = spawned.process
        tree = ProcessTree(process, cgroup=cgroup, memory_limit_mb=memory_mb, staging=stage)
        bot = PipeBotProcess(spawned, tree)
        info = await read_all(read_end, START_TIMEOUT_S)
        try:
            init_pid = int(json.loads(info)["child-pid"])
        except (ValueError, KeyError, TypeError):
            await bot.close()
            return _start_failed("Không khởi động được sandbox cho bot.")
        with contextlib.suppress(OSError):
            tree.init_pidfd = os.pidfd_open(init_pid)
        return bot


_USERNS_SIGNS = ("namespace", "uid map", "uid_map", "setting up uid", "no permissions to creat", "unshare")


def _start_failed(detail: str) -> ProcessFailure:
    return ProcessFailure(FailureCode.START_FAILED, detail)


def describe_bwrap_failure(returncode: int, stderr: str) -> str:
    """One line saying why a sandboxed `true` failed, from bwrap's own message."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else f"exit status {returncode}, no message"
    lowered = last.lower()
    if returncode == 125 or "cgroup.procs" in lowered:
        return f"cannot join the bot's cgroup ({last})"
    if any(
        sign in lowered
        for sign in _USERNS_SIGNS
    ) or ("operation not permitted" in lowered and "bwrap" in lowered):
        return (
            f"user namespaces are not permitted ({last}): allow unprivileged user namespaces "
            "(sysctl user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1, "
            "AppArmor/seccomp of the container) for bubblewrap"
        )
    return f"bubblewrap cannot start a sandbox ({last})"


class BubblewrapProbe:
    """Says whether uploads can run here, by really trying (a sandboxed `true`, a test
    cgroup made and removed).

    `make_sandbox()` afterwards gives the `Sandbox` the launcher and builder share."""

    def __init__(
        self,
        *,
        path: str | None = None,
        cgroups: CgroupTree | None = None,
        run_as: tuple[int, int] | None | str = "default",
        stage_root: Path | None = None,
        user_range: range = DEFAULT_USER_RANGE,
    ) -> None:
        self.path = path
        self.user_range = user_range
        self.cgroups = cgroups
        self.run_as = default_run_as() if run_as == "default" else run_as
        self.stage_root = stage_root
        self.sandbox: Sandbox | None = None
        #: What `probe()` found; None until it has run (then no runner may be chosen).
        self.status: SandboxStatus | None = None

    async def _run(
        self, argv: Sequence[str], timeout_s: float = 10.0, pass_fds: Sequence[int] = ()
    ) -> tuple[int, str]:
        process = await start_on_host(argv, pass_fds)
        try:
            out, _ = await asyncio.wait_for(process.communicate(), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            return -1, "timed out"
        return process.returncode or 0, out.decode("utf-8", "replace")

    async def probe(self) -> SandboxStatus:
        self.status = await self._try()
        return self.status

    async def _try(self) -> SandboxStatus:
        tools = SandboxTools.find(self.path)
        if not tools.bwrap:
            return SandboxStatus(
                False, "bubblewrap is not installed (no bwrap on PATH): apt-get install bubblewrap"
            )
        if self.run_as is not None and not tools.setpriv:
            return SandboxStatus(
                False,
                "setpriv is missing (bots run as an unprivileged uid): apt-get install util-linux",
            )
        _, tools.bwrap_help = await self._run([tools.bwrap, "--help"])
        _, version = await self._run([tools.bwrap, "--version"])
        tools.bwrap_version = version.strip()
        if "--size" not in tools.bwrap_help:
            name = tools.bwrap_version or "bwrap"
            return SandboxStatus(
                False, f"{name} has no --size for the /tmp cap: install a newer bubblewrap"
            )
        try:
            program = compile_filter()
        except SeccompUnavailable as error:
            return SandboxStatus(False, f"no seccomp filter: {error}")
        try:
            cgroups = self.cgroups or find_cgroups()
        except CgroupError as error:
            return SandboxStatus(False, str(error))
        try:
            cgroup = cgroups.create("probe", BOT_LIMITS)
        except CgroupError as error:
            return SandboxStatus(False, str(error))
        sandbox = Sandbox(
            tools,
            cgroups,
            run_as=self.run_as,
            stage_root=self.stage_root,
            seccomp_program=program,
            users=None if self.run_as is None else SandboxUsers(self.user_range),
        )
        try:
            with sandbox.kernel_filter() as seccomp_fd:
                assert seccomp_fd is not None
                argv = sandbox.argv(
                    cgroup, sandbox.bwrap_args(["/usr/bin/true"], seccomp_fd=seccomp_fd)
                )
                code, output = await self._run(argv, pass_fds=(seccomp_fd,))
        finally:
            await cgroup.kill_all()
            removed = await cgroup.remove()
        if code != 0 or not removed:
            sandbox.close()
        if code != 0:
            return SandboxStatus(False, describe_bwrap_failure(code, output))
        if not removed:
            return SandboxStatus(False, f"cannot remove the test cgroup {cgroup.directories[0]}")
        self.sandbox = sandbox
        user = ""
        if self.run_as is not None:
            first, last = self.user_range[0], self.user_range[-1]
            user = f", each bot and compile as a uid of its own ({first}–{last})"
        name = tools.bwrap_version or "bubblewrap"
        calls = f", a seccomp filter refusing {len(REFUSALS)} system calls"
        return SandboxStatus(True, f"{name} with {cgroups.describe()}{user}{calls}")

    def make_sandbox(self) -> Sandbox:
        if self.sandbox is None:
            raise RuntimeError("probe() did not find a usable sandbox")
        return self.sandbox
