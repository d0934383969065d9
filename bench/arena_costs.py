"""What a match costs the machine (spec B14 "Overhead"), in the real sandbox (bubblewrap
+ cgroups) of this machine, through the runner and the replay the stores write:

    .venv/bin/python bench/arena_costs.py [--matches 5] [--core-matches 20] [--starts 5]
        [--profile FILE] [--loop uvloop|asyncio] [--json]

- CPU per turn: `--matches` 200-turn matches between two instant bots (the C++ minimal
  sample against itself), one at a time, each written to a replay file as a data
  directory stores it (zstd); this process's own CPU (user + system) per applied
  action: building each request, the pipes, judging, applying, the replay.
- Matches a minute per core: `--core-matches` 200-turn matches of two instant Python
  bots (the minimal sample), two at a time as a worker's slots play them, with this
  process and every bot it starts held to one CPU (`sched_setaffinity`, which the
  sandboxed bots inherit): the matches a minute that one core plays, the bots' start
  and CPU included.
- Start to first reply per language: a fresh sandboxed process of each minimal sample,
  from launch to its first reply.
- Bytes a replay, as JSON Lines and as stored, from the C++ matches.

`--profile FILE` writes a cProfile of the CPU-per-turn matches to FILE (read it with
`python -m pstats FILE`). The matches run on uvloop, as in `noitu serve` (uvicorn's
loop, where one machine's matches run); `--loop asyncio` for the standard library's, as
`noitu arena worker` runs (3 alternated invocations each on 2 cores showed no
difference beyond the noise: 0.42–0.47 against 0.38–0.50 ms a turn). Prints medians
(min, max) with the machine's core count.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from noitu.adapters.arena import replay_codec
from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import SandboxBuilder
from noitu.adapters.arena.languages import language_for
from noitu.adapters.arena.replay_file import ReplayFile
from noitu.application.arena.ports import Artefact, BotLauncher, ProcessFailure
from noitu.application.arena.protocol import your_turn
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch
from noitu.bench.machine import format_machine, machine
from noitu.domain.arena.board import Side
from noitu.domain.arena.match import Match

EXAMPLES = Path(__file__).resolve().parents[1] / "assets" / "bot-examples"
TURNS = 200


class Replay:
    """The replay as a store writes it (compressed), counting the applied actions and
    reading this process's CPU at the first request and at the last applied action
    (what the turns cost, the bots' start and close left out)."""

    def __init__(self, path: Path) -> None:
        self.file = ReplayFile(path, compressed=True)
        self.applied = 0
        self.first_sent_cpu: float | None = None
        self.last_applied_cpu = 0.0

    def record(self, event: Event) -> None:
        kind = event["event"]
        if kind == "sent" and self.first_sent_cpu is None:
            self.first_sent_cpu = cpu_self()
        self.file.record(event)
        if kind == "applied":
            self.applied += 1
            self.last_applied_cpu = cpu_self()

    def turns_cpu(self) -> float:
        """CPU seconds from the first request written to the last action applied."""
        assert self.first_sent_cpu is not None
        return self.last_applied_cpu - self.first_sent_cpu


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def figures(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {"median": statistics.median(values), "min": values[0], "max": values[-1]}


def seats(bot: Artefact) -> tuple[BotSeat, BotSeat]:
    return (
        BotSeat(Player(Side.P1, "a", SeatKind.UPLOAD), bot),
        BotSeat(Player(Side.P2, "b", SeatKind.UPLOAD), bot),
    )


async def play(launcher: BotLauncher, bot: Artefact, seed: int, path: Path) -> Replay:
    replay = Replay(path)
    command = MatchCommand(f"BE{seed:06X}", seed, seats(bot), turn_limit=TURNS)
    outcome = await RunMatch(launcher)(command, replay)
    replay.file.finish()
    if outcome.result.failure is not None:
        raise SystemExit(f"a benchmark bot failed: {outcome.result}")
    return replay


async def per_turn(
    launcher: BotLauncher, bot: Artefact, matches: int, folder: Path, profile: str
) -> dict:
    cpus: list[float] = []
    turn_cpus: list[float] = []
    plain: list[int] = []
    stored: list[int] = []
    profiler = cProfile.Profile() if profile else None
    for seed in range(matches):
        path = folder / f"turns-{seed}.jsonl.zst"
        before = cpu_self()
        if profiler is not None:
            profiler.enable()
        replay = await play(launcher, bot, seed, path)
        if profiler is not None:
            profiler.disable()
        cpus.append((cpu_self() - before) / max(replay.applied, 1))
        turn_cpus.append(replay.turns_cpu() / max(replay.applied, 1))
        data = path.read_bytes()
        stored.append(len(data))
        plain.append(len(replay_codec.plain(data)))
    if profiler is not None:
        profiler.dump_stats(profile)
    return {
        "cpu_ms_per_turn": figures([cpu * 1000 for cpu in turn_cpus]),
        "cpu_ms_per_turn_with_starts": figures([cpu * 1000 for cpu in cpus]),
        "replay_plain_bytes": figures([float(b) for b in plain]),
        "replay_stored_bytes": figures([float(b) for b in stored]),
    }


async def two_slots(launcher: BotLauncher, bot: Artefact, matches: int, folder: Path) -> dict:
    """`matches` matches, two at a time as a worker's slots play them: the wall time, and
    this process's CPU (the worker's: every request, reply, replay, start and close)."""
    queue = list(range(matches))
    began, cpu = time.perf_counter(), cpu_self()

    async def slot() -> None:
        while queue:
            seed = queue.pop()
            await play(launcher, bot, seed, folder / f"slots-{seed}.jsonl.zst")

    await asyncio.gather(slot(), slot())
    wall, used = time.perf_counter() - began, cpu_self() - cpu
    return {
        "matches": matches,
        "wall_s": wall,
        "per_minute": matches * 60 / wall,
        "worker_cpu_ms_per_match": used * 1000 / matches,
        "per_worker_core_minute": matches * 60 / used,
    }


async def on_one_core(launcher: BotLauncher, bot: Artefact, matches: int, folder: Path) -> dict:
    """`two_slots` with this process and every bot it starts held to one CPU
    (`sched_setaffinity`, which the sandboxed bots inherit)."""
    cpu = min(os.sched_getaffinity(0))
    held = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    try:
        return {"cpu": cpu, **await two_slots(launcher, bot, matches, folder)}
    finally:
        os.sched_setaffinity(0, held)


async def first_reply(launcher: BotLauncher, bot: Artefact, starts: int) -> dict:
    request = your_turn(Match.between_bots("BENCHSTA", 1))
    times = []
    for _ in range(starts):
        started = time.perf_counter()
        process = await launcher.launch(bot)
        if isinstance(process, ProcessFailure):
            raise SystemExit(f"cannot start: {process}")
        reply = await process.ask(request.line, 25.0)
        times.append((time.perf_counter() - started) * 1000)
        await process.close()
        if isinstance(reply, ProcessFailure):
            raise SystemExit(f"no first reply: {reply}")
    return figures(times)


def pack_jar(folder: Path) -> Path:
    classes = folder / "classes"
    classes.mkdir()
    subprocess.run(["javac", "-d", str(classes), str(EXAMPLES / "Main.java")], check=True)
    jar = folder / "minimal.jar"
    subprocess.run(
        ["jar", "--create", "--file", str(jar), "--main-class", "Main", "-C", str(classes), "."],
        check=True,
    )
    return jar


async def measure(args: argparse.Namespace) -> dict:
    probe = BubblewrapProbe()
    status = await probe.probe()
    if not status.available:
        raise SystemExit(f"no sandbox here: {status.reason}")
    sandbox = probe.make_sandbox()
    launcher, builder = BubblewrapLauncher(sandbox), SandboxBuilder(sandbox)
    report: dict = {"machine": machine()}
    try:
        with tempfile.TemporaryDirectory(prefix="noitu-bench-costs-") as work:
            folder = Path(work)
            sources = {
                "python": EXAMPLES / "minimal.py",
                "cpp": EXAMPLES / "minimal.cpp",
                "java": EXAMPLES / "Main.java",
                "jar": pack_jar(folder),
            }
            built: dict[str, Artefact] = {}
            for name, source in sources.items():
                language = language_for(source.name)
                assert language is not None
                result = await builder.build(source, language, folder / f"built-{name}")
                if not result.ok or result.artefact is None:
                    raise SystemExit(f"{name} did not build: {result.messages}")
                built[name] = result.artefact
            report["per_turn"] = await per_turn(
                launcher, built["cpp"], args.matches, folder, args.profile
            )
            report["slots"] = await two_slots(
                launcher, built["python"], args.core_matches, folder
            )
            report["one_core"] = await on_one_core(
                launcher, built["python"], args.core_matches, folder
            )
            report["first_reply_ms"] = {
                name: await first_reply(launcher, artefact, args.starts)
                for name, artefact in built.items()
            }
    finally:
        sandbox.close()
    return report


def spread(values: dict[str, float], unit: str, digits: int = 2) -> str:
    return (
        f"{values['median']:.{digits}f} {unit} (min {values['min']:.{digits}f},"
        f" max {values['max']:.{digits}f})"
    )


def format_report(report: dict) -> str:
    turns, slots, core = report["per_turn"], report["slots"], report["one_core"]
    lines = [
        f"arena costs, {report['loop']} ({format_machine(report['machine'])})",
        ("  server CPU per turn, two instant C++ bots, replay written:"
        f" {spread(turns['cpu_ms_per_turn'], 'ms', 3)}"),
        ("  … with the bots' start and close spread over the turns:"
        f" {spread(turns['cpu_ms_per_turn_with_starts'], 'ms', 3)}"),
        ("  a replay of 200 turns: "
        f"{turns['replay_plain_bytes']['median'] / 1000:.0f} KB as JSON Lines,"
        f" {turns['replay_stored_bytes']['median'] / 1000:.1f} KB stored"),
        ("  two instant Python bots, 200 turns, two matches at once:"
        f" the worker's CPU {slots['worker_cpu_ms_per_match']:.1f} ms a match, so"
        f" {slots['per_worker_core_minute']:.0f} matches a minute per worker core;"
        f" {slots['per_minute']:.0f} a minute on this machine, bots included"),
        (f"  … everything (worker and bots) on one core (CPU {core['cpu']}):"
        f" {core['per_minute']:.0f} a minute ({core['matches']} in {core['wall_s']:.1f} s)"),
    ]
    lines += [
        f"  start to first reply, {name}: {spread(values, 'ms', 1)}"
        for name, values in report["first_reply_ms"].items()
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--core-matches", type=int, default=20)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--profile", default="", help="write a cProfile of the C++ matches")
    parser.add_argument(
        "--loop", choices=("uvloop", "asyncio"), default="uvloop",
        help="the event loop (noitu serve's is uvloop; the worker's asyncio's)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.loop == "uvloop":
        import uvloop

        report = uvloop.run(measure(args))
    else:
        report = asyncio.run(measure(args))
    report["loop"] = args.loop
    print(json.dumps(report) if args.json else format_report(report), flush=True)


if __name__ == "__main__":
    main()
