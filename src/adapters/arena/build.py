"""Compiling and checking uploads in the sandbox (spec B2): `BotBuilder`.

- C++: `g++ -std=c++17 -O2 -o bot bot.cpp`;
- Java: the file as `Main.java`, `javac -d out Main.java` (JVM flags that fit the
  compile's 1 GiB); it must give `out/Main.class` (public class Main, no package);
- Python: a syntax check by `/usr/bin/python3`'s own `compile()`, in the sandbox;
- JAR: no compile; its `META-INF/MANIFEST.MF` (read with size caps) must name a
  `Main-Class` the JAR holds.

Each compile runs in the sandbox with its own limits (60 s wall, 1 CPU, 1 GiB, 64 pids);
going past one fails the build with a message naming it. The compiler's own text is kept
(first 16 KiB) for the owner, never naming a server path. The file is compiled under
its stored name (`bot.cpp`, `Main.java` — which javac requires for `public class Main` —
`bot.py`); where the messages name that file (`bot.cpp:3:5: error`, `File "bot.py"`,
`Note: Main.java uses …`) they name the uploaded file instead (`shown_as`). A sandbox
that cannot run at all raises `BuildUnavailable` (the server's problem, not the bot's).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from noitu.adapters.arena.bubblewrap import HOST_ENV, Sandbox
from noitu.adapters.arena.cgroups import BUILD_LIMITS, MIB, CgroupError, CgroupLimits
from noitu.adapters.arena.languages import SOURCE_NAME
from noitu.application.arena.ports import (
    BUILD_MESSAGES_BYTES,
    Artefact,
    BuildLimit,
    BuildResult,
    Language,
)

MAX_SOURCE_BYTES = 256 * 1024
MAX_JAR_BYTES = 16 * MIB
MAX_MANIFEST_BYTES = 64 * 1024
#: A compiled binary or class file larger than this is not taken.
MAX_OUTPUT_FILE_BYTES = 64 * MIB
WORK_DIR = "/src"

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


def _limit_message(limit: BuildLimit, limits: BuildLimits) -> str:
    if limit == "wall":
        seconds = f"{limits.wall_s:g}".replace(".", ",")
        return f"Biên dịch bị dừng: vượt quá giới hạn thời gian {seconds} giây."
    if limit == "memory":
        megabytes = limits.cgroup.memory_bytes // MIB
        return f"Biên dịch bị dừng: vượt quá giới hạn bộ nhớ {megabytes} MB."
    pids = limits.cgroup.pids_max
    return f"Biên dịch bị dừng: vượt quá giới hạn {pids} tiến trình/luồng."


def _clean(output: bytes, truncated: bool) -> str:
    text = output.decode("utf-8", "replace").replace(f"{WORK_DIR}/", "")
    if truncated:
        text += "\n… (đã cắt bớt)"
    return text.strip()


def name_the_upload(messages: str, compiled_as: str, shown_as: str | None) -> str:
    """`messages` where they name the compiled file `compiled_as` as a place (followed
    by `:` or `"`, or after javac's `Note: `) naming `shown_as` instead."""
    if not shown_as or shown_as == compiled_as:
        return messages
    name = re.escape(compiled_as)
    place = re.compile(rf'(?<![\w./\\-]){name}(?=[:"])|(?<=Note: ){name}(?![\w.])')
    return place.sub(lambda _: shown_as, messages)


def _refuse(message: str) -> BuildResult:
    return BuildResult(ok=False, artefact=None, messages=message)


_BROKEN_ZIP = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    OSError,
    EOFError,
    ValueError,
    NotImplementedError,  # an unknown compression method
    RuntimeError,  # an encrypted entry
)


def read_manifest_main_class(path: Path) -> tuple[str | None, str]:
    """(Main-Class, "") of a JAR, or (None, why it is refused)."""
    try:
        with zipfile.ZipFile(path) as jar:
            try:
                info = jar.getinfo("META-INF/MANIFEST.MF")
            except KeyError:
                return None, "JAR không có META-INF/MANIFEST.MF, nên không có Main-Class."
            if info.file_size > MAX_MANIFEST_BYTES:
                return None, "META-INF/MANIFEST.MF của JAR quá lớn."
            with jar.open(info) as handle:
                data = handle.read(MAX_MANIFEST_BYTES + 1)
            if len(data) > MAX_MANIFEST_BYTES:
                return None, "META-INF/MANIFEST.MF của JAR quá lớn."
            names = set(jar.namelist())
    except _BROKEN_ZIP:
        return None, "Tệp JAR bị hỏng hoặc không phải tệp zip."
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, "META-INF/MANIFEST.MF của JAR không phải UTF-8."
    headers: dict[str, str] = {}
    last: str | None = None
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line.startswith(" ") and last is not None:
            headers[last] += line[1:]
        elif ":" in line:
            key, _, value = line.partition(":")
            last = key.strip().lower()
            headers[last] = value.strip()
        elif not line:
            if headers:
                break  # the main section ends at the first empty line
            last = None
    main = headers.get("main-class", "").strip()
    if not main:
        return None, "META-INF/MANIFEST.MF của JAR không có Main-Class."
    if main.replace(".", "/") + ".class" not in names:
        return None, f"JAR không chứa lớp Main-Class {main}."
    return main, ""


def _copy_out(source: Path, target: Path, mode: int) -> bool:
    """Copy a file the sandbox produced: a regular file, never through a symlink."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_OUTPUT_FILE_BYTES:
            return False
        with open(target, "wb") as out:
            shutil.copyfileobj(handle, out)
    os.chmod(target, mode)
    return True


def _install(files: list[tuple[Path, str, int]], into: Path) -> bool:
    """Put (source, name, mode) files into the fresh directory `into`, all or nothing."""
    into.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{into.name}-", dir=into.parent))
    try:
        for source, name, mode in files:
            if not _copy_out(source, staging / name, mode):
                return False
        os.chmod(staging, 0o755)
        if into.exists():
            shutil.rmtree(into)
        os.rename(staging, into)
        return True
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


class SandboxBuilder:
    """`BotBuilder` that compiles in the bubblewrap + cgroup sandbox."""

    def __init__(self, sandbox: Sandbox, limits: BuildLimits | None = None) -> None:
        self.sandbox = sandbox
        self.tools = sandbox.tools
        self.stage_root: Path | None = sandbox.stage_root
        self.limits = limits or BuildLimits()

    def _own(self, path: Path) -> None:
        """Let the compiler's user write `path`."""
        self.sandbox.give_to_run_as(path)

    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        cap = MAX_JAR_BYTES if language is Language.JAR else MAX_SOURCE_BYTES
        try:
            size = source.stat().st_size
        except OSError:
            return _refuse("Không đọc được tệp tải lên.")
        if size > cap:
            return _refuse(f"Tệp quá lớn: tối đa {cap // 1024} KiB.")
        if language is Language.JAR:
            return await asyncio.to_thread(self._jar, source, into)
        tools = self.tools
        work = Path(tempfile.mkdtemp(prefix="build-", dir=self.stage_root))
        try:
            os.chmod(work, 0o755)
            self._own(work)
            name = SOURCE_NAME[language]
            shutil.copyfile(source, work / name)
            os.chmod(work / name, 0o644)
            if language is Language.PYTHON:
                command = [tools.python, "-I", "-B", "-c", _PYTHON_CHECK]
            elif language is Language.CPP:
                if not tools.gxx:
                    raise BuildUnavailable("g++ is not installed")
                command = [tools.gxx, "-std=c++17", "-O2", "-o", "bot", name]
            else:
                if not tools.javac:
                    raise BuildUnavailable("javac is not installed (openjdk-17-jdk-headless)")
                (work / "out").mkdir()
                self._own(work / "out")
                options = ["-encoding", "UTF-8", "-proc:none", "-d", "out"]
                command = [tools.javac, *JAVAC_FLAGS, *options, name]
            code, output, truncated, limit = await self._run(command, work)
            messages = name_the_upload(_clean(output, truncated), name, shown_as)
            if limit is not None:
                text = _limit_message(limit, self.limits)
                return BuildResult(False, None, f"{text}\n{messages}".strip(), limit)
            if code != 0:
                fallback = f"Trình biên dịch dừng với mã {code}."
                return BuildResult(False, None, messages or fallback)
            return await asyncio.to_thread(self._collect, language, work, into, messages)
        finally:
            await asyncio.to_thread(shutil.rmtree, work, True)

    def _jar(self, source: Path, into: Path) -> BuildResult:
        main, why = read_manifest_main_class(source)
        if main is None:
            return _refuse(why)
        if not _install([(source, "bot.jar", 0o644)], into):
            return _refuse("Không lưu được tệp JAR.")
        return BuildResult(True, Artefact(Language.JAR, into), "")

    def _collect(self, language: Language, work: Path, into: Path, messages: str) -> BuildResult:
        if language is Language.PYTHON:
            files = [(work / "bot.py", "bot.py", 0o644)]
        elif language is Language.CPP:
            files = [(work / "bot", "bot", 0o755)]
        else:
            out = work / "out"
            if not (out / "Main.class").is_file():
                return _refuse(
                    (messages + "\n" if messages else "")
                    + "Không có Main.class: tệp Java phải khai báo `public class Main` "
                    "và không có `package`."
                )
            files = [(p, p.name, 0o644) for p in sorted(out.iterdir()) if p.name.endswith(".class")]
        if not _install(files, into):
            return _refuse("Trình biên dịch không tạo ra chương trình.")
        return BuildResult(True, Artefact(language, into), messages)

    async def _run(
        self, command: list[str], work: Path
    ) -> tuple[int | None, bytes, bool, BuildLimit | None]:
        try:
            cgroup = self.sandbox.cgroups.create("build", self.limits.cgroup)
        except CgroupError as error:
            raise BuildUnavailable(str(error)) from error
        try:
            with self.sandbox.kernel_filter() as seccomp_fd:
                argv = self.sandbox.argv(
                    cgroup,
                    self.sandbox.bwrap_args(
                        command,
                        writable=[(work, WORK_DIR)],
                        chdir=WORK_DIR,
                        tmp_bytes=self.limits.tmp_bytes,
                        seccomp_fd=seccomp_fd,
                        java=command[0] == self.sandbox.tools.javac,
                    ),
                )
                process = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                    env=dict(HOST_ENV),
                    cwd="/",
                    start_new_session=True,
                    pass_fds=() if seccomp_fd is None else (seccomp_fd,),
                )
        except (OSError, RuntimeError) as error:
            await cgroup.remove()
            raise BuildUnavailable(f"cannot start the compiler sandbox: {error}") from error
        kept = bytearray()
        truncated = False

        async def collect() -> None:
            nonlocal truncated
            assert process.stdout is not None
            while chunk := await process.stdout.read(64 * 1024):
                room = BUILD_MESSAGES_BYTES - len(kept)
                if len(chunk) > room:
                    truncated = True
                kept.extend(chunk[: max(room, 0)])

        reader = asyncio.create_task(collect())
        limit: BuildLimit | None = None
        try:
            await asyncio.wait_for(process.wait(), self.limits.wall_s)
        except TimeoutError:
            limit = "wall"
        finally:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await cgroup.kill_all()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(reader, 2.0)
            oom = cgroup.oom_kills() > 0
            forks = cgroup.pids_limit_hits() > 0
            await cgroup.remove()
        if limit is None and oom:
            limit = "memory"
        if limit is None and forks and process.returncode != 0:
            limit = "pids"
        return process.returncode, bytes(kept), truncated, limit


class DirectBuilder(SandboxBuilder):
    """`BotBuilder` with the local compilers and no sandbox, for trusted files only: the
    repository's own samples (tools/verify-bot-examples.py) and the CLI's explicit
    `--no-sandbox`. Same steps, same file names and messages; only the wall-clock limit
    is enforced (there is no cgroup)."""

    def __init__(self, limits: BuildLimits | None = None, path: str | None = None) -> None:
        from noitu.adapters.arena.bubblewrap import SandboxTools

        self.tools = SandboxTools.find(path)
        self.stage_root = None
        self.limits = limits or BuildLimits()

    def _own(self, path: Path) -> None:
        return None

    async def _run(
        self, command: list[str], work: Path
    ) -> tuple[int | None, bytes, bool, BuildLimit | None]:
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                env=dict(HOST_ENV),
                cwd=work,
                start_new_session=True,
            )
        except OSError as error:
            raise BuildUnavailable(f"cannot start {command[0]}: {error}") from error
        try:
            output, _ = await asyncio.wait_for(process.communicate(), self.limits.wall_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, 9)
            await process.wait()
            return process.returncode, b"", False, "wall"
        truncated = len(output) > BUILD_MESSAGES_BYTES
        return process.returncode, output[:BUILD_MESSAGES_BYTES], truncated, None
