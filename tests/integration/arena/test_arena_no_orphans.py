"""No bot outlives the server (spec B2, B4): at shutdown live matches end as ABANDONED
in the archive and every bot process is stopped; a server killed with SIGKILL takes its
bots with it (the sandbox's --die-with-parent, the direct launcher's parent-death
signal)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from support.arena_bots import BOTS, require
from support.arena_server import ROOMS, build, serving
from support.arena_store import NoSandbox, ProbedOnce
from support.owned import alive, descendants
from support.process import ServerProcess

KEY = "d" * 32
PERSON = {"kind": "person", "name": "Lan"}
RANDOM = {"kind": "builtin", "ref": "random"}


def _gone_soon(pids: set[int], timeout_s: float = 5.0) -> set[int]:
    deadline = time.monotonic() + timeout_s
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return alive(pids)


@pytest.mark.parametrize("runner", ["sandbox", "direct"])
async def test_a_live_match_ends_abandoned_at_shutdown_and_its_bot_is_stopped(
    runner: str, arena_data_dir: Path, arena_probe: ProbedOnce
) -> None:
    if runner == "sandbox":
        require(arena_probe.status)
    probe = arena_probe if runner == "sandbox" else NoSandbox()
    others = descendants(os.getpid())  # what other tests left running (a redis-server)
    async with serving(build(arena_data_dir, probe)) as served:
        created = await served.create(PERSON, RANDOM, key=KEY)
        code = created.json()["room"]["code"]
        for step in ("RANDOM_PLACEMENT", "READY"):
            assert (await served.post(code, "placement", {"type": step}, KEY)).status_code == 200
        room = await served.until(code, lambda r: r["currentPlayer"] == "P1", KEY)
        bots = descendants(os.getpid()) - others
        assert bots, "the bot's process runs while the person thinks"
        await served.stop()
        assert alive(bots) == set()
    async with serving(build(arena_data_dir, probe)) as again:
        replay = await again.http.get(f"/arena/api/matches/{room['matchId']}/replay")
        assert replay.status_code == 200, replay.text
        end = [line for line in replay.text.splitlines() if '"event":"end"' in line]
        assert len(end) == 1 and '"reason":"ABANDONED"' in end[0] and '"winner":null' in end[0]


def test_a_killed_server_takes_its_sandboxed_bots_with_it(
    arena_data_dir: Path, arena_probe: ProbedOnce, tmp_path: Path
) -> None:
    require(arena_probe.status)
    env = {"MODULES": "arena", "NOITU_DATA_DIR": str(arena_data_dir), "NOITU_ACCESS_LOG": "0"}
    server = ServerProcess(env, tmp_path / "serve.log").start()
    try:
        assert server.process is not None
        with httpx.Client(base_url=server.base, headers={"X-Owner-Key": KEY}, timeout=20) as http:
            code = http.post(ROOMS, json={"seat": PERSON, "opponent": RANDOM}).json()["room"]["code"]
            for step in ("RANDOM_PLACEMENT", "READY"):
                assert http.post(f"{ROOMS}/{code}/placement", json={"type": step}).status_code == 200
            deadline = time.monotonic() + 30
            while http.get(f"{ROOMS}/{code}").json()["currentPlayer"] != "P1":
                assert time.monotonic() < deadline, server.output()
                time.sleep(0.05)
        bots = descendants(server.process.pid)
        assert bots
        cgroups = _bot_cgroups(bots)
        server.kill()
        assert _gone_soon(bots) == set()
    finally:
        server.kill()
        # A killed server cannot remove its bots' (now empty) cgroups: the test does.
        for directory in locals().get("cgroups", ()):
            with contextlib.suppress(OSError):
                directory.rmdir()


def _bot_cgroups(pids: set[int]) -> set[Path]:
    """The per-bot cgroup directories these processes are in (cgroup v1 and v2)."""
    found: set[Path] = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
                _, controllers, path = line.split(":", 2)
                if "noitu-bot-" not in path:
                    continue
                for controller in controllers.split(",") if controllers else [""]:
                    directory = Path("/sys/fs/cgroup", controller, path.lstrip("/"))
                    if directory.is_dir():
                        found.add(directory)
    return found


DIRECT_SCRIPT = textwrap.dedent(
    """
    import asyncio, shutil, sys, tempfile
    from pathlib import Path
    from noitu.adapters.arena.direct import DirectLauncher
    from noitu.application.arena.ports import Artefact, Language

    async def main():
        directory = Path(tempfile.mkdtemp())
        shutil.copyfile(sys.argv[1], directory / "bot.py")
        bot = await DirectLauncher().launch(Artefact(Language.PYTHON, directory))
        print("launched", flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


def test_a_killed_server_takes_its_directly_run_bots_with_it() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", DIRECT_SCRIPT, str(BOTS / "slow.py")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None and parent.stdout.readline().strip() == "launched"
        bots = descendants(parent.pid)
        assert bots
        parent.kill()
        parent.wait(5)
        assert _gone_soon(bots) == set()
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(5)
