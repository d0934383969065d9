"""What the bot runner costs: per turn of a match, and from start to first reply per
language, inside the real sandbox (bubblewrap + cgroups) of this machine.

    .venv/bin/python bench/arena_runner.py [--matches 5] [--starts 5]

- Per turn: matches of 200 turns at most between two instant bots (the C++ minimal
  sample against itself), through RunMatch and the sandboxed launcher: the wall time
  and the server process's own CPU time per applied action (the bots' CPU is theirs).
- Start-up: for each language, a fresh sandboxed process of the minimal sample is
  launched and asked the first request of a match; the time from launch to the reply.

Prints medians (and the spread) with the machine's core count.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import SandboxBuilder
from noitu.adapters.arena.languages import language_for
from noitu.application.arena.ports import Artefact, ProcessFailure
from noitu.application.arena.protocol import your_turn
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import Match

EXAMPLES = Path(__file__).resolve().parents[1] / "assets" / "bot-examples"


class Count:
    def __init__(self) -> None:
        self.applied = 0

    def record(self, event: Event) -> None:
        self.applied += event["event"] == "applied"


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def spread(values: list[float], unit: str, scale: float = 1.0) -> str:
    values = sorted(v * scale for v in values)
    return f"median {statistics.median(values):.2f} {unit} (min {values[0]:.2f}, max {values[-1]:.2f})"


async def per_turn(launcher: BubblewrapLauncher, bot: Artefact, matches: int) -> None:
    walls: list[float] = []
    cpus: list[float] = []
    for seed in range(matches):
        seats = (
            BotSeat(Player(Side.P1, "a", SeatKind.UPLOAD), bot),
            BotSeat(Player(Side.P2, "b", SeatKind.UPLOAD), bot),
        )
        count = Count()
        started, cpu = time.perf_counter(), cpu_self()
        outcome = await RunMatch(launcher)(MatchCommand(f"BENCH{seed:03d}", seed, seats), count)
        wall, used = time.perf_counter() - started, cpu_self() - cpu
        if outcome.result.failure is not None:
            raise SystemExit(f"a benchmark bot failed: {outcome.result}")
        walls.append(wall / max(count.applied, 1))
        cpus.append(used / max(count.applied, 1))
        print(f"  match {seed}: {count.applied} turns, {outcome.result.reason.value}")
    print(f"per turn, wall: {spread(walls, 'ms', 1000)}")
    print(f"per turn, server CPU: {spread(cpus, 'ms', 1000)}")


async def first_reply(launcher: BubblewrapLauncher, bot: Artefact, starts: int) -> list[float]:
    request = your_turn(Match.between_bots("BENCHSTA", 1))
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        process = await launcher.launch(bot)
        if isinstance(process, ProcessFailure):
            raise SystemExit(f"cannot start: {process}")
        reply = await process.ask(request.line, 25.0)
        times.append(time.perf_counter() - started)
        await process.close()
        if isinstance(reply, ProcessFailure):
            raise SystemExit(f"no first reply: {reply}")
    return times


def pack_jar(folder: Path) -> Path:
    classes = folder / "classes"
    classes.mkdir()
    subprocess.run(["javac", "-d", str(classes), str(EXAMPLES / "Main.java")], check=True)
    jar = folder / "minimal.jar"
    subprocess.run(["jar", "--create", "--file", str(jar), "--main-class", "Main", "-C", str(classes), "."],
                   check=True)
    return jar


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    probe = BubblewrapProbe()
    status = await probe.probe()
    if not status.available:
        raise SystemExit(f"no sandbox here: {status.reason}")
    sandbox = probe.make_sandbox()
    print(f"cores: {os.cpu_count()}; sandbox: {status.reason}")
    launcher, builder = BubblewrapLauncher(sandbox), SandboxBuilder(sandbox)
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        sources = {
            "python": EXAMPLES / "minimal.py",
            "cpp": EXAMPLES / "minimal.cpp",
            "java": EXAMPLES / "Main.java",
            "jar": pack_jar(folder),
        }
        artefacts: dict[str, Artefact] = {}
        for name, source in sources.items():
            language = language_for(source.name)
            assert language is not None
            started = time.perf_counter()
            built = await builder.build(source, language, folder / f"built-{name}")
            if not built.ok or built.artefact is None:
                raise SystemExit(f"{name} did not build: {built.messages}")
            print(f"build {name}: {time.perf_counter() - started:.2f} s")
            artefacts[name] = built.artefact
        print(f"{args.matches} matches of two instant C++ bots (200 turns at most):")
        await per_turn(launcher, artefacts["cpp"], args.matches)
        for name, artefact in artefacts.items():
            times = await first_reply(launcher, artefact, args.starts)
            print(f"start to first reply, {name}: {spread(times, 'ms', 1000)}")
    sandbox.close()


if __name__ == "__main__":
    asyncio.run(main())
