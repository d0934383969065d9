"""Test bot programs of the arena runner, and helpers to turn them into artefacts and
to get the real sandbox of this machine."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from noitu.adapters.arena.bubblewrap import BubblewrapProbe
from noitu.adapters.arena.sandbox import Sandbox
from noitu.application.arena.ports import Artefact, Language, SandboxStatus

BOTS = Path(__file__).parent
_counter = itertools.count()


def python_artefact(name: str, root: Path) -> Artefact:
    """An artefact directory under `root` holding tests/support/arena_bots/<name>.py."""
    directory = root / f"{name}-{next(_counter)}"
    directory.mkdir(parents=True)
    shutil.copyfile(BOTS / f"{name}.py", directory / "bot.py")
    return Artefact(Language.PYTHON, directory)


def probe_now(keep: bool = False, **kwargs: object) -> tuple[SandboxStatus, BubblewrapProbe]:
    """Run BubblewrapProbe.probe() on its own event loop (from sync fixtures); unless
    `keep`, the sandbox it made is closed again."""
    probe = BubblewrapProbe(**kwargs)  # type: ignore[arg-type]
    with ThreadPoolExecutor(1) as pool:
        status = pool.submit(asyncio.run, probe.probe()).result()
    if not keep and probe.sandbox is not None:
        probe.sandbox.close()
    return status, probe


def require(status: SandboxStatus) -> None:
    """The sandbox must work on CI machines; elsewhere its absence skips with the reason."""
    if status.available:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must test the arena sandbox: {status.reason}")
    pytest.skip(f"no sandbox here: {status.reason}")


def sandbox_fixture() -> Iterator[Sandbox]:
    """Body of a session fixture: the real bubblewrap + cgroup sandbox."""
    stage_root = Path(tempfile.mkdtemp(prefix="noitu-arena-test-"))
    status, probe = probe_now(keep=True, stage_root=stage_root)
    require(status)
    sandbox = probe.make_sandbox()
    yield sandbox
    shutil.rmtree(stage_root, ignore_errors=True)


def host_processes_with(marker: str) -> list[int]:
    """Pids of host processes whose command line contains `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
            with open(f"/proc/{entry}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found
