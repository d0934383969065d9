"""Bot against bot, under the real engine and protocol: win rates and reply times.

    .venv/bin/python bench/arena_bots.py BOT_A BOT_B [--games 40] [--seed 1] [--jobs 2]

A bot is a file (`.py` run with /usr/bin/python3 -I -B -u; `.cpp`/`.cc`/`.cxx` compiled with
g++ -std=c++17 -O2; `.java` compiled with javac; `.jar` run with java -jar), an
executable, or `builtin:NAME` for assets/builtin-bots/NAME.{py,cpp}. `--a-args` and
`--b-args` pass extra command-line arguments (e.g. strong's `--cpu-ms 30` for quick
tuning runs).

The bots run as plain subprocesses, without the sandbox: this is for the repository's
own, trusted bots only. Each match is held by the real `Match` (placed from its seed as
between bots); every request is the real protocol's `your_turn` line and every reply is
judged by the real `judge`, under the runner's clock (25 s for the first reply, 2 s for
the others; a miss is a TIMEOUT). Games come in pairs on one seed with the sides
swapped, so that the placement's luck cancels out.

Printed: A's wins/draws/losses, A's score (win 1, draw ½) with a 95% interval, the
end reasons, the median number of turns, and per bot the median/p99/max reply time
(wall clock) and CPU time per reply (read from /proc/PID/task/*/schedstat: the CPU time
of all the bot's threads). Bots run at full speed unless `--quota` puts each bot process
in its own cgroup with the runner's CPU quota, 50 ms per 100 ms (cgroup v1's cpu
hierarchy or cgroup v2's cpu.max; needs a writable cgroup, e.g. root): then the wall
times are what the server's clock would see on an idle host.
"""

from __future__ import annotations

import argparse
import math
import os
import select
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from noitu.application.arena.judge import Accepted, judge
from noitu.application.arena.protocol import your_turn
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT, Match, Phase

ROOT = Path(__file__).resolve().parent.parent
BUILTIN = ROOT / "assets" / "builtin-bots"
FIRST_REPLY_S = 25.0
LATER_REPLY_S = 2.0
MAX_REPLY = 65_536
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
try:  # the runner's own flags, when its adapter is there
    from noitu.adapters.arena.languages import JVM_FLAGS as _RUNNER_JVM_FLAGS

    JVM_FLAGS = list(_RUNNER_JVM_FLAGS)
except ImportError:  # pragma: no cover
    JVM_FLAGS = ["-XX:MaxRAM=384m", "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1"]
# As the runner starts Python: isolated (no script folder on sys.path, no environment),
# no .pyc files, unbuffered.
PYTHON = ["/usr/bin/python3", "-I", "-B", "-u"]


# -- building the bots -----------------------------------------------------------------


def resolve(spec: str) -> Path:
    if spec.startswith("builtin:"):
        name = spec.split(":", 1)[1]
        for ext in (".py", ".cpp"):
            if (BUILTIN / (name + ext)).exists():
                return BUILTIN / (name + ext)
        raise SystemExit(f"no built-in bot {name!r} in {BUILTIN}")
    path = Path(spec)
    if not path.exists():
        raise SystemExit(f"no such bot file: {spec}")
    return path.resolve()


def build(spec: str, extra: list[str], workdir: Path) -> list[str]:
    """The command line that runs the bot (compiling it first if needed)."""
    path = resolve(spec)
    suffix = path.suffix.lower()
    if suffix == ".py":
        return [*PYTHON, str(path), *extra]
    if suffix in (".cpp", ".cc", ".cxx"):
        out = workdir / (path.stem + "-" + str(abs(hash(str(path))) % 10**8))
        subprocess.run(["g++", "-std=c++17", "-O2", "-o", str(out), str(path)], check=True)
        return [str(out), *extra]
    if suffix == ".java":
        classes = workdir / ("java-" + str(abs(hash(str(path))) % 10**8))
        classes.mkdir(exist_ok=True)
        source = classes / "Main.java"
        source.write_bytes(path.read_bytes())
        subprocess.run(["javac", "-d", str(classes), str(source)], check=True)
        return ["java", *JVM_FLAGS, "-cp", str(classes), "Main", *extra]
    if suffix == ".jar":
        return ["java", *JVM_FLAGS, "-jar", str(path), *extra]
    if os.access(path, os.X_OK):
        return [str(path), *extra]
    raise SystemExit(f"cannot tell how to run {spec}")


# -- one bot process ---------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """CPU time of the process so far: the sum of its threads' schedstat (ns), or
    /proc/PID/stat (clock ticks) where schedstat is missing."""
    try:
        total = 0
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat", "rb") as f:
                total += int(f.read().split()[0])
        return total / 1e9
    except (OSError, IndexError, ValueError):
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICK
    except (OSError, IndexError, ValueError):
        return 0.0


class CpuQuota:
    """A cgroup with the runner's CPU quota (50 ms per 100 ms) for one bot process:
    cgroup v1's cpu hierarchy or the v2 cgroup this script runs in, whichever is
    writable. The bot joins it through a /bin/sh wrapper before its own code runs."""

    counter = 0

    def __init__(self) -> None:
        CpuQuota.counter += 1
        name = f"arena-bench-{os.getpid()}-{CpuQuota.counter}"
        v1 = Path("/sys/fs/cgroup/cpu")
        if (v1 / "cpu.cfs_quota_us").exists():
            self.path = v1 / name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text("100000")
            (self.path / "cpu.cfs_quota_us").write_text("50000")
        else:
            own = Path("/proc/self/cgroup").read_text().splitlines()
            unified = next(line.split("::", 1)[1] for line in own if line.startswith("0::"))
            parent = Path("/sys/fs/cgroup") / unified.lstrip("/")
            self.path = parent / name
            self.path.mkdir()
            (self.path / "cpu.max").write_text("50000 100000")

    def wrap(self, command: list[str]) -> list[str]:
        return [
            "/bin/sh",
            "-c",
            'echo $$ > "$0/cgroup.procs" && exec "$@"',
            str(self.path),
            *command,
        ]

    def remove(self) -> None:
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.02)


class BotProcess:
    def __init__(self, command: list[str], show_stderr: bool, quota: bool = False) -> None:
        self.quota = CpuQuota() if quota else None
        if self.quota is not None:
            command = self.quota.wrap(command)
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if show_stderr else subprocess.DEVNULL,
            bufsize=0,
        )
        self.buffer = b""

    def ask(self, data: bytes, timeout: float) -> tuple[bytes | None, str | None]:
        """Writes one request line; returns (reply line without newline, None) or
        (None, failure code)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if self.buffer:
            return None, FailureCode.EXTRA_OUTPUT.value
        try:
            self.proc.stdin.write(data + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return None, FailureCode.EXITED.value
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_REPLY * 4:
                return None, FailureCode.REPLY_TOO_LONG.value
            left = deadline - time.monotonic()
            if left <= 0:
                return None, FailureCode.TIMEOUT.value
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return None, (
                    FailureCode.INCOMPLETE_LINE if self.buffer else FailureCode.EXITED
                ).value
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line.decode("utf-8", "replace")) > MAX_REPLY:
            return None, FailureCode.REPLY_TOO_LONG.value
        return line, None

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.quota is not None:
            self.quota.remove()


# -- one match ---------------------------------------------------------------------------


@dataclass
class Game:
    index: int
    seed: int
    a_side: Side
    winner: Side | None = None
    reason: str = ""
    turns: int = 0
    failure: str | None = None
    wall: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})
    first_wall: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})
    first_cpu: dict[str, list[float]] = field(default_factory=lambda: {"A": [], "B": []})

    @property
    def points(self) -> float:
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner is self.a_side else 0.0


def play(
    index: int,
    seed: int,
    a_side: Side,
    commands: dict[str, list[str]],
    turn_limit: int,
    show_stderr: bool,
    quota: bool,
) -> Game:
    game = Game(index, seed, a_side)
    match = Match.between_bots(f"BENCH{index:03d}", seed, turn_limit)
    label = {a_side: "A", a_side.other: "B"}
    bots = {
        side: BotProcess(commands[label[side]], show_stderr, quota) for side in (Side.P1, Side.P2)
    }
    asked = {Side.P1: False, Side.P2: False}
    try:
        while match.phase is Phase.PLAYING:
            side = match.current_player
            assert side is not None
            bot = bots[side]
            request = your_turn(match)
            timeout = LATER_REPLY_S if asked[side] else FIRST_REPLY_S
            cpu_before = cpu_seconds(bot.proc.pid)
            started = time.perf_counter()
            line, code = bot.ask(request.data, timeout)
            elapsed = time.perf_counter() - started
            cpu_used = cpu_seconds(bot.proc.pid) - cpu_before
            who = label[side]
            (game.wall if asked[side] else game.first_wall)[who].append(elapsed)
            (game.cpu if asked[side] else game.first_cpu)[who].append(cpu_used)
            asked[side] = True
            if code is not None:
                match.fail(side, FailureCode(code), code)
                game.failure = f"{who}:{code}"
                break
            verdict = judge(line, request)
            if not isinstance(verdict, Accepted):
                match.fail(side, verdict.code, verdict.detail)
                game.failure = f"{who}:{verdict.code.value} {verdict.detail}"
                break
            match.apply(verdict.action)
    finally:
        for bot in bots.values():
            bot.close()
    result = match.result
    assert result is not None
    game.winner = result.winner
    game.reason = result.reason.value
    game.turns = result.turns
    return game


# -- the report --------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def times_line(
    name: str, first: list[float], later: list[float], cpu: list[float], first_cpu: list[float]
) -> str:
    def ms(x: float) -> str:
        return f"{x * 1000:.0f}" if x >= 0.01 else f"{x * 1000:.1f}"

    median_wall = ms(statistics.median(later)) if later else "-"
    max_wall = ms(max(later)) if later else "-"
    p99_wall = ms(percentile(later, 0.99))
    parts = [
        f"{name}: reply wall ms (later turns) median {median_wall} p99 {p99_wall} max {max_wall}"
    ]
    if cpu:
        parts.append(
            f"CPU ms (later turns) median {ms(statistics.median(cpu))} p99 {ms(percentile(cpu, 0.99))}"
            f" max {ms(max(cpu))}"
        )
    if first:
        parts.append(f"first reply max {ms(max(first))} ms wall, {ms(max(first_cpu))} ms CPU")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", help="bot A: a file, an executable or builtin:NAME")
    parser.add_argument("b", help="bot B")
    parser.add_argument(
        "--games", "-n", type=int, default=40, help="games (even: pairs of one seed)"
    )
    parser.add_argument("--seed", type=int, default=1, help="the first pair's seed")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="games at once")
    parser.add_argument("--turn-limit", type=int, default=DEFAULT_TURN_LIMIT)
    parser.add_argument("--a-args", default="", help="extra arguments for bot A")
    parser.add_argument("--b-args", default="", help="extra arguments for bot B")
    parser.add_argument("--stderr", action="store_true", help="show the bots' stderr")
    parser.add_argument(
        "--quota",
        action="store_true",
        help="run each bot in a cgroup with the runner's 0.5-CPU quota (needs root)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no line per game")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="arena-bots-") as tmp:
        work = Path(tmp)
        commands = {
            "A": build(args.a, shlex.split(args.a_args), work),
            "B": build(args.b, shlex.split(args.b_args), work),
        }

        def one(i: int) -> Game:
            a_side = Side.P1 if i % 2 == 0 else Side.P2
            game = play(
                i, args.seed + i // 2, a_side, commands, args.turn_limit, args.stderr, args.quota
            )
            if not args.quiet:
                outcome = (
                    "draw"
                    if game.winner is None
                    else ("A wins" if game.winner is a_side else "B wins")
                )
                print(
                    f"game {i:3d} seed {game.seed} A={a_side.value}: {outcome:6s} {game.reason}"
                    f" after {game.turns} turns{'  ' + game.failure if game.failure else ''}",
                    flush=True,
                )
            return game

        started = time.monotonic()
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            games = list(pool.map(one, range(args.games)))
        took = time.monotonic() - started

    n = len(games)
    wins = sum(1 for g in games if g.points == 1.0)
    draws = sum(1 for g in games if g.points == 0.5)
    losses = n - wins - draws
    points = [g.points for g in games]
    score = sum(points) / n
    spread = statistics.stdev(points) if n > 1 else 0.0
    half = 1.96 * spread / math.sqrt(n) if n > 1 else float("nan")
    # Wilson interval of A's share of decisive games (robust near 0 and 1).
    decisive = wins + losses
    if decisive:
        p = wins / decisive
        z = 1.96
        centre = (p + z * z / (2 * decisive)) / (1 + z * z / decisive)
        width = (
            z
            * math.sqrt(p * (1 - p) / decisive + z * z / (4 * decisive * decisive))
            / (1 + z * z / decisive)
        )
        wilson = f"{max(0.0, centre - width):.2f}-{min(1.0, centre + width):.2f}"
    else:
        wilson = "-"
    print()
    print(f"A = {args.a} {args.a_args}".rstrip())
    print(f"B = {args.b} {args.b_args}".rstrip())
    print(f"{n} games in {took:.0f} s: A wins {wins}, draws {draws}, A loses {losses}")
    print(
        f"A's score {score:.3f} ± {half:.3f} (95%); A's share of decisive games {wilson} (95% Wilson)"
    )
    print(
        "end reasons:",
        ", ".join(f"{k} {v}" for k, v in Counter(g.reason for g in games).most_common()),
    )
    failures = [g.failure for g in games if g.failure]
    if failures:
        print("failures:", "; ".join(failures))
    print(f"median turns {statistics.median(g.turns for g in games)}")
    for who in ("A", "B"):
        first = [x for g in games for x in g.first_wall[who]]
        later = [x for g in games for x in g.wall[who]]
        cpu = [x for g in games for x in g.cpu[who]]
        first_cpu = [x for g in games for x in g.first_cpu[who]]
        print(times_line(who, first, later, cpu, first_cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
