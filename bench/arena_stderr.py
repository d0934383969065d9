"""What a bot that floods stderr costs the server, and what the flood costs the bot
(spec B2: stderr never blocks the bot, and costs the server at most ~1% of a core).

    .venv/bin/python bench/arena_stderr.py [--runs 3] [--turns 20] [--delay 0.5]

CPU: a Python bot writes 1 KiB lines to stderr from a thread, as fast as its pipe lets
it, while its main thread answers each request after `--delay` seconds
(legalActions[0]). It plays builtin:random through RunMatch and the real sandbox
(bubblewrap + cgroups); the server process's own CPU time (getrusage(RUSAGE_SELF):
children, the bots, are not counted) is divided by the match's wall time. The same bot
without the flood is the baseline: what remains is the flood's cost.

Time: a bot that writes 5 MB to stderr in one write at each request after its first,
then answers at once, plays builtin:random (12 turns: 5 floods a match) with a later
request's clock stretched to 30 s, so that a slow drain shows as a time rather than a
TIMEOUT. Its reply times to those requests are taken on the server (nothing listens:
only the tail is kept) and as the CLI reads (a listener gets every byte). Prints medians
with the machine's core count.
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
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch, Timing
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

FIVE_MB_BOT = '''
import json, sys

flood = (b"y" * 1023 + b"\\n") * 5000
turn = 0
for text in sys.stdin:
    turn += 1
    request = json.loads(text)
    if turn > 1:
        sys.stderr.buffer.write(flood)
        sys.stderr.flush()
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
'''
#: P1 is asked at turns 0, 2, ..., 10: five floods a match.
FIVE_MB_TURNS = 12
#: A later request's clock for the 5 MB bot: long enough to time a slow drain.
STRETCHED = Timing(request_s=30.0)


class Ignore:
    def record(self, event: Event) -> None:
        pass


class FloodReplies:
    """P1's reply times (ms) to the requests after its first: those it flooded before."""

    def __init__(self) -> None:
        self.ms: list[int] = []
        self.replies = 0

    def record(self, event: Event) -> None:
        if event["event"] == "received" and event["player"] == Side.P1.value:
            self.replies += 1
            if self.replies > 1:
                self.ms.append(int(str(event["ms"])))


def cpu_self() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def bot(folder: Path, source: str) -> Artefact:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(source)
    return Artefact(Language.PYTHON, folder)


def seats(p1: Artefact, random: Artefact) -> tuple[BotSeat, BotSeat]:
    return (
        BotSeat(Player(Side.P1, "flood", SeatKind.UPLOAD), p1),
        BotSeat(Player(Side.P2, "random", SeatKind.BUILTIN), random),
    )


async def share(launcher: BubblewrapLauncher, flooder: Artefact, random: Artefact, turns: int, seed: int) -> float:
    command = MatchCommand(f"STDERR{seed:02d}", seed, seats(flooder, random), turns)
    started, cpu = time.perf_counter(), cpu_self()
    outcome = await RunMatch(launcher)(command, Ignore())
    wall, used = time.perf_counter() - started, cpu_self() - cpu
    if outcome.result.failure is not None:
        raise SystemExit(f"the match did not play to its end: {outcome.result}")
    return used / wall


async def five_mb_replies(
    launcher: BubblewrapLauncher, flooder: Artefact, random: Artefact, seed: int, *, listen: bool
) -> list[int]:
    command = MatchCommand(f"FIVEMB{seed:02d}", seed, seats(flooder, random), FIVE_MB_TURNS)
    replies = FloodReplies()
    heard = [0]

    def sink(side: Side, chunk: bytes) -> None:  # what the CLI's view does, minus the file
        heard[0] += len(chunk)

    outcome = await RunMatch(launcher, STRETCHED)(command, replies, sink if listen else None)
    if outcome.result.failure is not None:
        raise SystemExit(f"the match did not play to its end: {outcome.result}")
    return replies.ms


def spread(values: list[float], unit: str) -> str:
    return f"median {statistics.median(values):.0f} {unit}, max {max(values):.0f} {unit}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=20, help="turn limit of the CPU matches")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds before each reply")
    args = parser.parse_args()
    probe = BubblewrapProbe()
    status = await probe.probe()
    if not status.available:
        raise SystemExit(f"no sandbox here: {status.reason}")
    sandbox = probe.make_sandbox()
    print(f"cores: {os.cpu_count()}; load average {os.getloadavg()[0]:.1f}; sandbox: {status.reason}")
    launcher = BubblewrapLauncher(sandbox)
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        random = await BuiltinBots(SandboxBuilder(sandbox), folder / "cache").artefact("random")
        for flood in (False, True):
            source = f"FLOOD = {flood}\nDELAY = {args.delay}\n" + BOT
            flooder = bot(folder / f"bot-{flood}", source)
            shares = [await share(launcher, flooder, random, args.turns, seed) for seed in range(args.runs)]
            name = "flooding stderr" if flood else "quiet (baseline)"
            runs = ", ".join(f"{100 * s:.1f}" for s in shares)
            print(f"{name}: server CPU {100 * statistics.median(shares):.1f}% of a core"
                  f" (median of {args.runs}: {runs})")
        five = bot(folder / "five-mb", FIVE_MB_BOT)
        for listen, name in ((False, "server (tail only)"), (True, "CLI (every byte)")):
            ms: list[float] = []
            for seed in range(args.runs):
                ms += await five_mb_replies(launcher, five, random, seed, listen=listen)
            print(f"5 MB then answer, {name}: reply {spread(ms, 'ms')} ({len(ms)} replies)")
    sandbox.close()


if __name__ == "__main__":
    asyncio.run(main())
