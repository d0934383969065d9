"""What a bot that floods stderr costs the server (spec B2: at most ~1% of a core).

    .venv/bin/python bench/arena_stderr.py [--runs 3] [--turns 20] [--delay 0.5]

A Python bot writes 1 KiB lines to stderr from a thread, as fast as its pipe lets it,
while its main thread answers each request after `--delay` seconds (legalActions[0]).
It plays builtin:random through RunMatch and the real sandbox (bubblewrap + cgroups);
the server process's own CPU time (getrusage(RUSAGE_SELF): children, the bots, are not
counted) is divided by the match's wall time. The same bot without the flood is the
baseline: what remains is the flood's cost. Prints medians with the machine's core count.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.application.arena.ports import Artefact, Language
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch
from noitu.domain.arena.board import Side

BOT = '''
import json, os, sys, threading, time

def flood():
    line = b"x" * 1023 + b"\\n"
    while True:
        os.write(2, line)

if FLOOD:
    threading.Thread(target=flood, daemon=True).start()
for text in sys.stdin:
    request = json.loads(text)
    time.sleep(DELAY)
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
os._exit(0)
'''


class Ignore:
    def record(self, event: Event) -> None:
        pass


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def bot(folder: Path, *, flood: bool, delay: float) -> Artefact:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(f"FLOOD = {flood}\nDELAY = {delay}\n" + BOT)
    return Artefact(Language.PYTHON, folder)


async def share(launcher: BubblewrapLauncher, flooder: Artefact, random: Artefact, turns: int, seed: int) -> float:
    seats = (
        BotSeat(Player(Side.P1, "flood", SeatKind.UPLOAD), flooder),
        BotSeat(Player(Side.P2, "random", SeatKind.BUILTIN), random),
    )
    started, cpu = time.perf_counter(), cpu_self()
    outcome = await RunMatch(launcher)(MatchCommand(f"STDERR{seed:02d}", seed, seats, turns), Ignore())
    wall, used = time.perf_counter() - started, cpu_self() - cpu
    if outcome.result.failure is not None:
        raise SystemExit(f"the match did not play to its end: {outcome.result}")
    return used / wall


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=20, help="turn limit of each match")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds before each reply")
    args = parser.parse_args()
    probe = BubblewrapProbe()
    status = await probe.probe()
    if not status.available:
        raise SystemExit(f"no sandbox here: {status.reason}")
    sandbox = probe.make_sandbox()
    print(f"cores: {os.cpu_count()}; sandbox: {status.reason}")
    launcher = BubblewrapLauncher(sandbox)
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        random = await BuiltinBots(SandboxBuilder(sandbox), folder / "cache").artefact("random")
        for flood in (False, True):
            flooder = bot(folder / f"bot-{flood}", flood=flood, delay=args.delay)
            shares = [await share(launcher, flooder, random, args.turns, seed) for seed in range(args.runs)]
            name = "flooding stderr" if flood else "quiet (baseline)"
            runs = ", ".join(f"{100 * s:.1f}" for s in shares)
            print(f"{name}: server CPU {100 * statistics.median(shares):.1f}% of a core"
                  f" (median of {args.runs}: {runs})")
    sandbox.close()


if __name__ == "__main__":
    asyncio.run(main())
