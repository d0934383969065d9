"""The arena's storage for tests: a data directory whose database is migrated already,
and the sandbox probed once per run.

Migrating a fresh SQLite file takes a tenth of a second; copying a migrated one takes
none, and the app's start-up migration then finds it at head. Probing the sandbox (a
sandboxed `true`, a test cgroup) is done once per test run too, and every app gets the
same answer and the same `Sandbox` (whose staging root the run owns, so no app's
shutdown removes it).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from noitu.adapters.arena.sandbox import Sandbox
from noitu.adapters.arena.sql.engine import SQLITE_FILE, default_url
from noitu.adapters.arena.sql.migrations import upgrade_url
from noitu.application.arena.ports import Artefact, BuildResult, Language, SandboxStatus
from support.arena_bots import probe_now


def migrated_template(directory: Path) -> Path:
    """A data directory holding a database at the head revision."""
    directory.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, upgrade_url(default_url(directory))).result()
    return directory


def fresh_data_dir(template: Path, target: Path) -> Path:
    """A new data directory at `target` with a copy of the template's database."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template / SQLITE_FILE, target / SQLITE_FILE)
    return target


class ProbedOnce:
    """In place of `BubblewrapProbe`: answers what one real probe found (and its `Sandbox`)."""

    def __init__(self, status: SandboxStatus, sandbox: Sandbox | None, stage_root: Path) -> None:
        self.status = status
        self.sandbox = sandbox
        self.stage_root = stage_root

    @classmethod
    def now(cls) -> ProbedOnce:
        stage_root = Path(tempfile.mkdtemp(prefix="noitu-arena-stage-"))
        status, probe = probe_now(keep=True, stage_root=stage_root)
        return cls(status, probe.sandbox if status.available else None, stage_root)

    async def probe(self) -> SandboxStatus:
        return self.status

    def make_sandbox(self) -> Sandbox:
        if self.sandbox is None:
            raise RuntimeError("probe() did not find a usable sandbox")
        return self.sandbox

    def close(self) -> None:
        shutil.rmtree(self.stage_root, ignore_errors=True)


class NoSandbox:
    """In place of `BubblewrapProbe` on a host without a sandbox."""

    def __init__(self) -> None:
        self.status: SandboxStatus | None = None

    async def probe(self) -> SandboxStatus:
        self.status = SandboxStatus(False, "bubblewrap is not installed (a test's host without it)")
        return self.status

    def make_sandbox(self) -> Sandbox:
        raise RuntimeError("probe() did not find a usable sandbox")


class ScriptedBuilder:
    """`BotBuilder` that answers what the test scripted: a good build (an artefact
    holding a copy of the source), a failed one with `messages`, or an exception."""

    def __init__(self, ok: bool = True, messages: str = "", error: Exception | None = None) -> None:
        self.ok = ok
        self.messages = messages
        self.error = error
        self.built: list[tuple[bytes, Language]] = []
        self.shown_as: list[str | None] = []

    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        self.built.append((source.read_bytes(), language))
        self.shown_as.append(shown_as)
        if self.error is not None:
            raise self.error
        if not self.ok:
            return BuildResult(False, None, self.messages)
        into.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, into / "bot.py")
        return BuildResult(True, Artefact(language, into), self.messages)
