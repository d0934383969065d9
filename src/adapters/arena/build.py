"""Compiling and checking uploads in the sandbox (spec B2): `BotBuilder`.

- C++: `g++ -std=c++17 -O2 -o bot bot.cpp`;
- Java: the file as `Main.java`, `javac -d out Main.java` (JVM flags that fit the
  compile's 1 GiB); it must give `out/Main.class` (public class Main, no package);
- Python: a syntax check by `/usr/bin/python3`'s own `compile()`, in the sandbox;
- JAR: no compile; its `META-INF/MANIFEST.MF` (read with size caps) must name a
  `Main-Class` the JAR holds.

Each compile runs in the sandbox with its own limits (60 s wall, 1 CPU, 1 GiB, 64 pids);
going past one fails the build with a message naming it.

What a compile writes stays in the sandbox (spec B10): the upload is mounted read-only
from a private folder (0700, the compile's own uid, mounted through a descriptor), the
compiler works in the sandbox's size-capped tmpfs (`/tmp/build`), and a small driver
(`build_driver.py`) runs it, then sends what it made through a pipe: one JSON line,
then the files' bytes. The server reads at most `MAX_ARTEFACT_BYTES` from
that pipe and checks every name and size itself before writing anything, so neither
the host's `/tmp` nor the data directory receives more than the capped artefact. A C++
program or a Java build's class files together are at most `MAX_ARTEFACT_BYTES`, a Java
build at most `MAX_JAVA_CLASSES` class files; a JAR's entries are counted from its
central directory (`jar.py`, constant memory) before any is read. The compiler's own
text is kept (first 16 KiB) for the owner, never naming a server path. The file is compiled under
its stored name (`bot.cpp`, `Main.java` — which javac requires for `public class Main` —
`bot.py`); where the messages name that file (`bot.cpp:3:5: error`, `File "bot.py"`,
`Note: Main.java uses …`) they name the uploaded file instead (`shown_as`, `build_messages.py`). A sandbox
that cannot run at all raises `BuildUnavailable` (the server's problem, not the bot's).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from noitu.adapters.arena.build_driver import (
    SOURCE_DIR,
    WORK_DIR,
    Ran,
    driver_argv,
    unpack_artefact,
    watch_driver,
)
from noitu.adapters.arena.build_messages import (
    artefact_too_big,
    build_space_full,
    cleaned,
    limit_message,
    name_the_upload,
    too_many_classes,
)
from noitu.adapters.arena.cgroups.limits import BUILD_LIMITS, MIB, CgroupLimits
from noitu.adapters.arena.cgroups.tree import CgroupError
from noitu.adapters.arena.jar import jar_refusal
from noitu.adapters.arena.languages import SOURCE_NAME, needs_jvm
from noitu.adapters.arena.sandbox import NoFreeUser, Sandbox, SandboxTools, start_on_host
from noitu.application.arena.errors import FileTooLarge
from noitu.application.arena.limits import (
    MAX_JAVA_CLASSES,
    max_upload_bytes,
)
from noitu.application.arena.ports import (
    Artefact,
    BuildResult,
    Language,
)

#: The C library's text for ENOSPC: the build's tmpfs is full.
_NO_SPACE = "No space left on device"

_PYTHON_CHECK = """\
import sys, traceback
try:
    with open("bot.py", "rb") as handle:
        compile(handle.read(), "bot.py", "exec", dont_inherit=True)
except Exception as error:
    sys.stderr.write("".join(traceback.format_exception_only(type(error), error)))
    sys.exit(1)
"""

JAVAC_FLAGS = (
    "-J-XX:MaxRAM=1g",
    "-J-XX:+UseSerialGC",
    "-J-XX:ActiveProcessorCount=1",
    "-J-XX:TieredStopAtLevel=1",
    "-J-XX:-UsePerfData",
)


class BuildUnavailable(RuntimeError):
    """The sandbox could not run the compiler at all."""


@dataclass(frozen=True, slots=True)
class BuildLimits:
    wall_s: float = 60.0
    cgroup: CgroupLimits = field(default_factory=lambda: BUILD_LIMITS)
    tmp_bytes: int = 256 * MIB


def _refuse(message: str) -> BuildResult:
    return BuildResult(ok=False, artefact=None, messages=message)


def _install(files: list[tuple[str, bytes | Path, int]], into: Path) -> bool:
    """Put (name, bytes or a file to copy, mode) into the fresh directory `into`, all or
    nothing."""
    into.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{into.name}-", dir=into.parent))
    try:
        for name, data, mode in files:
            target = staging / name
            if isinstance(data, Path):
                shutil.copyfile(data, target, follow_symlinks=False)
            else:
                target.write_bytes(data)
            os.chmod(target, mode)
        os.chmod(staging, 0o755)
        if into.exists():
            shutil.rmtree(into)
        os.rename(staging, into)
        return True
    except OSError:
        return False
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _fill(folder: Path, source: Path, name: str, user: tuple[int, int] | None) -> None:
    """Copy the upload into `folder` as `name`, readable by `user` alone (when set)."""
    target = folder / name
    shutil.copyfile(source, target)
    os.chmod(target, 0o400)
    if user is not None:
        os.chown(target, *user)
        os.chown(folder, *user)


class SandboxBuilder:
    """`BotBuilder` that compiles in the bubblewrap + cgroup sandbox."""

    def __init__(self, sandbox: Sandbox, limits: BuildLimits | None = None) -> None:
        self.sandbox = sandbox
        self.tools = sandbox.tools
        self.limits = limits or BuildLimits()

    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        try:
            size = source.stat().st_size
        except OSError:
            return _refuse("Không đọc được tệp tải lên.")
        if size > max_upload_bytes(language):
            return _refuse(FileTooLarge().message)
        if language is Language.JAR:
            return await asyncio.to_thread(self._jar, source, into)
        name = SOURCE_NAME[language]
        compiler = self._compiler(language, name)
        folder = self._new_folder()
        try:
            user = self._lease(folder)
            await asyncio.to_thread(_fill, folder, source, name, user)
            ran = await self._run(compiler, folder, user, language, name)
        finally:
            await asyncio.to_thread(shutil.rmtree, folder, True)
        messages = name_the_upload(cleaned(ran.output, ran.truncated), name, shown_as)
        if ran.limit is not None:
            text = limit_message(ran.limit, self.limits.wall_s, self.limits.cgroup)
            return BuildResult(False, None, f"{text}\n{messages}".strip(), ran.limit)
        return await asyncio.to_thread(self._collect, language, ran, source, into, messages)

    def _compiler(self, language: Language, name: str) -> list[str]:
        tools = self.tools
        if language is Language.PYTHON:
            return [tools.python, "-I", "-B", "-c", _PYTHON_CHECK]
        if language is Language.CPP:
            if not tools.gxx:
                raise BuildUnavailable("g++ is not installed")
            return [tools.gxx, "-std=c++17", "-O2", "-o", "bot", name]
        if language is Language.JAVA:
            if not tools.javac:
                raise BuildUnavailable("javac is not installed (openjdk-17-jdk-headless)")
            options = ["-encoding", "UTF-8", "-proc:none", "-d", "out"]
            return [tools.javac, *JAVAC_FLAGS, *options, name]
        raise BuildUnavailable(f"no compiler for {language.value}")

    def _new_folder(self) -> Path:
        """A private folder (0700) for the upload's copy, removed after the build."""
        return self.sandbox.new_stage()

    def _lease(self, folder: Path) -> tuple[int, int] | None:
        """The uid of its own the compile runs as, leased until `folder` is removed
        (on the event loop's thread, like every lease)."""
        try:
            return self.sandbox.lease_user(folder)
        except NoFreeUser as error:
            raise BuildUnavailable(str(error)) from error

    def _jar(self, source: Path, into: Path) -> BuildResult:
        why = jar_refusal(source)
        if why is not None:
            return _refuse(why)
        if not _install([("bot.jar", source, 0o644)], into):
            return _refuse("Không lưu được tệp JAR.")
        return BuildResult(True, Artefact(Language.JAR, into), "")

    def _collect(
        self, language: Language, ran: Ran, source: Path, into: Path, messages: str
    ) -> BuildResult:
        header, files = unpack_artefact(language, ran.packed, ran.overflow)
        status = header.get("status") if header is not None else None
        if status == "too_big":
            size = header.get("bytes") if header is not None else None
            return _refuse(artefact_too_big(size if type(size) is int else None))
        if status == "too_many":
            count = header.get("count") if header is not None else None
            return _refuse(too_many_classes(count if type(count) is int else MAX_JAVA_CLASSES + 1))
        if status != "ok" or ran.code != 0:
            if _NO_SPACE in messages:
                return _refuse(f"{build_space_full(self.limits.tmp_bytes)}\n{messages}".strip())
            return _refuse(messages or f"Trình biên dịch dừng với mã {ran.code}.")
        if language is Language.PYTHON:
            stored: list[tuple[str, bytes | Path, int]] = [("bot.py", source, 0o644)]
        elif language is Language.CPP:
            stored = [(name, data, 0o755) for name, data in files]
        elif language is Language.JAVA:
            if "Main.class" not in {name for name, _ in files}:
                return _refuse(
                    (messages + "\n" if messages else "")
                    + "Không có Main.class: tệp Java phải khai báo `public class Main` "
                    "và không có `package`."
                )
            stored = [(name, data, 0o644) for name, data in files]
        else:
            return _refuse(f"Máy chủ chưa biết dựng bot {language.value}.")
        if not stored or not _install(stored, into):
            return _refuse("Trình biên dịch không tạo ra chương trình.")
        return BuildResult(True, Artefact(language, into), messages)

    async def _run(
        self,
        compiler: list[str],
        folder: Path,
        user: tuple[int, int] | None,
        language: Language,
        name: str,
    ) -> Ran:
        try:
            cgroup = self.sandbox.cgroups.create("build", self.limits.cgroup)
        except CgroupError as error:
            raise BuildUnavailable(str(error)) from error
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        folder_fd = -1
        try:
            folder_fd = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            driver = driver_argv(
                self.tools.python, compiler, SOURCE_DIR, WORK_DIR, write_end, language, name
            )
            with self.sandbox.kernel_filter() as seccomp_fd:
                argv = self.sandbox.argv(
                    cgroup,
                    self.sandbox.bwrap_args(
                        driver,
                        read_only=[(folder_fd, SOURCE_DIR)],
                        chdir="/tmp",
                        tmp_bytes=self.limits.tmp_bytes,
                        seccomp_fd=seccomp_fd,
                        java=needs_jvm(language),
                    ),
                    user,
                )
                passed = [write_end, folder_fd] + ([] if seccomp_fd is None else [seccomp_fd])
                process = await start_on_host(argv, passed)
        except (OSError, RuntimeError) as error:
            os.close(read_end)
            await cgroup.remove()
            raise BuildUnavailable(f"cannot start the compiler sandbox: {error}") from error
        finally:
            os.close(write_end)
            if folder_fd >= 0:
                os.close(folder_fd)

        async def stop() -> None:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await cgroup.kill_all()

        try:
            ran = await watch_driver(process, read_end, stop, self.limits.wall_s)
        finally:
            oom = cgroup.oom_kills() > 0
            forks = cgroup.pids_limit_hits() > 0
            await cgroup.remove()
        if ran.limit is None and oom:
            ran.limit = "memory"
        if ran.limit is None and forks and ran.code != 0:
            ran.limit = "pids"
        return ran

class DirectBuilder(SandboxBuilder):
    """`BotBuilder` with the local compilers and no sandbox, for trusted files only: the
    repository's own samples (tools/verify-bot-examples.py) and the CLI's explicit
    `--no-sandbox`. Same driver, steps, file names, output limits and messages; the
    compiler works in a host temporary folder, and only the wall-clock limit is enforced
    (there is no cgroup)."""

    def __init__(self, limits: BuildLimits | None = None, path: str | None = None) -> None:
        self.tools = SandboxTools.find(path)
        self.limits = limits or BuildLimits()

    def _new_folder(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="noitu-build-"))

    def _lease(self, folder: Path) -> tuple[int, int] | None:
        return None

    async def _run(
        self,
        compiler: list[str],
        folder: Path,
        user: tuple[int, int] | None,
        language: Language,
        name: str,
    ) -> Ran:
        read_end, write_end = os.pipe2(os.O_CLOEXEC)
        work = folder / "work"
        driver = driver_argv(
            self.tools.python, compiler, str(folder), str(work), write_end, language, name
        )
        try:
            process = await start_on_host(driver, (write_end,))
        except OSError as error:
            os.close(read_end)
            raise BuildUnavailable(f"cannot start {driver[0]}: {error}") from error
        finally:
            os.close(write_end)

        async def stop() -> None:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)

        ran = await watch_driver(process, read_end, stop, self.limits.wall_s)
        ran.output = ran.output.replace(f"{work}/".encode(), b"")
        return ran
