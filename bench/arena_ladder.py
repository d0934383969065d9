"""The ladder's quality (spec B8): does the table find the order of bots whose order is
known, and how fast?

    noitu bench ladder [--pairings 30] [--turn-limit 40] [--slots 2] [--trio-at 10]
                       [--late-after 15] [--late-at 10] [--json]

The bots: the three built-ins (`random`, `tactical`, `strong`) and eight handicapped
`tactical`s, "t0.1" … "t0.8": each is the built-in tactical's own source with its choice
wrapped so that with probability p it plays a uniformly random legal action instead
(`handicapped_source`). The known order is strong > tactical > t0.1 > … > t0.8 > random:
a larger p is a weaker bot, tactical is t0.0 and random is t1.0; strong (an alpha-beta
search in C++) beats tactical. A ninth handicapped bot, "t0.45", joins late: it is ranked
once every other bot has played `--late-after` pairings; its known place is between t0.4
and t0.5.

Everything is the server's own: the handicapped bots are uploaded bots (stored in the
arena's SQLite database, their program in the data directory, ranked by `RankBot`), the
ladder's stores are the SQL ones, `PlayLadder` drives the ladder with `SchedulePairing`
choosing every pairing and `RecordLadderResult` rating every match, and each match is
handed to the match queue (watchable under a room code) and played by `StartMatch` through the
match queue and the runner (the sandbox when this machine has one, else the direct
launcher the server falls back to). The queue gives the
ladder `--slots` slots; matches are shortened to `--turn-limit` turns.

Printed: after every bot has played `--pairings` pairings (a bot's pairings counted as
its rated matches ÷ 2), Kendall's τ between the table's order and the known order; whether
strong > tactical > random on the table once each of the three has played `--trio-at`
pairings; the late bot's rank once it has played `--late-at` pairings and its final rank;
the wall time, the matches played, and the machine line (cores, load average). One run.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import secrets
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HANDICAPS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
LATE_HANDICAP = 0.45
#: The tactical bot's last lines: the wrapper goes in before them.
MAIN_GUARD = 'if __name__ == "__main__":\n    main()\n'


def handicapped_name(p: float) -> str:
    return f"t{p:g}"


def known_order(handicaps: Sequence[float]) -> list[str]:
    """Strongest first: strong, tactical (p = 0), the handicapped by p, random (p = 1)."""
    return ["strong", "tactical", *(handicapped_name(p) for p in sorted(handicaps)), "random"]


def handicapped_source(tactical: str, p: float) -> str:
    """The built-in tactical's program, its choice replaced by: a uniformly random legal
    action with probability `p`, else tactical's own. Its `main` looks `choose` up when
    it runs, so rebinding the name before `main` starts is enough."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a handicap is a probability, not {p}")
    if not tactical.endswith(MAIN_GUARD):
        raise ValueError("the tactical bot no longer ends with its main guard: update the bench")
    body = tactical[: -len(MAIN_GUARD)]
    wrapper = (
        "\n\n# --- the ladder benchmark's handicap ---\n"
        "import random as _handicap_random\n\n"
        f"_HANDICAP = {p!r}\n"
        "_HANDICAP_RNG = _handicap_random.Random()\n"
        "_TACTICAL_CHOOSE = choose\n\n\n"
        "def choose(request, cpu_budget, wall_budget):\n"
        "    if _HANDICAP_RNG.random() < _HANDICAP:\n"
        "        return _HANDICAP_RNG.choice(request[\"legalActions\"])\n"
        "    return _TACTICAL_CHOOSE(request, cpu_budget, wall_budget)\n\n\n"
    )
    return body + wrapper + MAIN_GUARD


def kendall_tau(order: Sequence[str], known: Sequence[str]) -> float:
    """Kendall's τ between two orders of the same bots (no ties): (concordant −
    discordant) pairs ÷ all pairs; 1 is the same order, −1 the reverse."""
    if sorted(order) != sorted(known) or len(set(order)) != len(order):
        raise ValueError("the two orders must hold the same bots, once each")
    place = {bot: index for index, bot in enumerate(known)}
    n = len(order)
    if n < 2:
        return 1.0
    score = 0
    for i in range(n):
        for j in range(i + 1, n):
            score += 1 if place[order[i]] < place[order[j]] else -1
    return score / (n * (n - 1) / 2)


def ranked_before(order: Sequence[str], *bots: str) -> bool:
    """Whether `bots` stand on the table in the order given (strongest first)."""
    places = [order.index(bot) for bot in bots]
    return places == sorted(places) and len(set(places)) == len(places)


@dataclasses.dataclass
class Checkpoints:
    """What the run notes as the table changes, from tables of (name, rated games)
    rows in the table's order."""

    pairings: int
    trio_at: int
    late: str
    late_after: int
    late_at: int
    #: The table's order when strong, tactical and random had each played `trio_at`.
    trio_order: list[str] | None = None
    late_joined: bool = False
    #: The late bot's rank (from 1) once it had played `late_at` pairings.
    late_rank_early: int | None = None
    final_order: list[str] | None = None

    def see(self, rows: Sequence[tuple[str, int]]) -> None:
        order = [name for name, _ in rows]
        pairings = {name: games // 2 for name, games in rows}
        if self.trio_order is None and all(
            pairings.get(bot, 0) >= self.trio_at for bot in ("strong", "tactical", "random")
        ):
            self.trio_order = order
        if self.late_rank_early is None and pairings.get(self.late, 0) >= self.late_at:
            self.late_rank_early = order.index(self.late) + 1
        if self.late_joined and self.final_order is None and all(
            count >= self.pairings for count in pairings.values()
        ):
            self.final_order = order

    def late_due(self, rows: Sequence[tuple[str, int]]) -> bool:
        """The late bot should be ranked now: every other bot has played `late_after`."""
        return not self.late_joined and all(games // 2 >= self.late_after for _, games in rows)

    @property
    def done(self) -> bool:
        return self.final_order is not None and self.late_rank_early is not None


def summary(checks: Checkpoints, known: Sequence[str]) -> dict[str, Any]:
    final = checks.final_order or []
    trio = checks.trio_order
    return {
        "kendall_tau": kendall_tau(final, known) if final else None,
        "final_order": final,
        "known_order": list(known),
        "trio_order": [bot for bot in trio if bot in ("strong", "tactical", "random")]
        if trio else None,
        "trio_ok": ranked_before(trio, "strong", "tactical", "random") if trio else None,
        "late": checks.late,
        "late_rank_early": checks.late_rank_early,
        "late_rank_final": final.index(checks.late) + 1 if final else None,
    }


# --- the run: the server's own parts in one process ----------------------------------


async def _run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    from noitu.adapters.arena.builtin import BuiltinBots
    from noitu.application.arena.ladder.play_ladder import PlayLadder, PlayLadderCommand
    from noitu.application.arena.ladder.rank_bot import RankBotCommand
    from noitu.application.arena.ladder.record_ladder_result import (
        RecordedLadderMatch,
        RecordLadderResult,
        RecordLadderResultCommand,
    )
    from noitu.application.arena.ports import Language
    from noitu.application.arena.records import BotRecord, BuildStatus, new_bot_id, owner_hash
    from noitu.entrypoints.container import Container
    from noitu.entrypoints.role import Role
    from noitu.entrypoints.settings import load_settings

    env = {key: value for key, value in os.environ.items() if key.startswith("NOITU_CACHE")}
    env.update({"MODULES": "arena", "NOITU_DATA_DIR": str(data_dir)})
    settings = dataclasses.replace(load_settings(env), modules=("arena",))
    # The server's own composition, hosting its matches as a worker of `slots + 1`
    # matches at once (the ladder holds all the slots but one).
    container = Container(settings=settings, role=Role.worker(args.slots + 1))
    await container.arena_sandbox_resource.init()
    await container.arena_database_resource.init()
    await container.matches_resource.init()
    try:
        clock, timer = container.clock(), container.arena_timer()
        runner = container.arena_runners().kind
        repository, files = container.arena_repository(), container.arena_files()
        rng = container.id_source()
        await container.room_board().beat(settings.instance, 10**12, args.slots + 1)
        slots = container.ladder_slots()
        names: dict[str, str] = {name: name for name in BuiltinBots.names()}
        tactical = BuiltinBots.source("tactical").read_text()

        async def upload(p: float) -> None:
            key = secrets.token_hex(16)
            bot_id = new_bot_id(rng)
            source = handicapped_source(tactical, p).encode()
            async with files.scratch() as scratch:
                (scratch / "bot.py").write_bytes(source)
                folder = await files.put_artefact(bot_id, scratch)
            await repository.add_bot(BotRecord(
                id=bot_id, owner=owner_hash(key), name=handicapped_name(p),
                language=Language.PYTHON, public=False, created_ms=clock.now_ms(),
                source_bytes=len(source), build=BuildStatus.OK, build_messages="",
                source_file=f"bots/{bot_id}/source.py", artefact_dir=folder,
            ))
            await container.rank_bot()(RankBotCommand(bot_id, key))
            names[bot_id] = handicapped_name(p)

        for p in HANDICAPS:
            await upload(p)
        late = handicapped_name(LATE_HANDICAP)
        checks = Checkpoints(args.pairings, args.trio_at, late, args.late_after, args.late_at)
        show = container.show_ladder()
        progress: dict[str, int] = {"matches": 0, "rated": 0}
        changed = asyncio.Event()

        class Observed(RecordLadderResult):
            """The real recorder; the bench looks at the table after each match."""

            async def __call__(self, command: RecordLadderResultCommand) -> RecordedLadderMatch:
                recorded = await super().__call__(command)
                progress["matches"] += 1
                progress["rated"] += recorded.rated
                changed.set()
                return recorded

        record = Observed(
            container.ladder_results(), container.ladder_standings(), container.ladder_members(),
            container.ladder_pairings(), container.ladder_roster(), clock, container.rng(),
        )
        errors: list[Exception] = []
        driver = PlayLadder(
            container.schedule_pairing(), record, slots.play, slots,
            repository, container.ladder_members(), container.ladder_pairings(),
            container.builtin_bots(), clock, container.background(), timer, rng, errors.append,
            turn_limit=args.turn_limit,
        )
        began = time.monotonic()
        task = asyncio.create_task(driver(PlayLadderCommand("bench")))
        last_note = began
        try:
            while not checks.done:
                await asyncio.wait_for(changed.wait(), timeout=600)
                changed.clear()
                rows = [(names[row.bot], row.games) for row in await show()]
                checks.see(rows)
                if checks.late_due(rows):
                    await upload(LATE_HANDICAP)
                    checks.late_joined = True
                if task.done():
                    task.result()
                if time.monotonic() - last_note > 30:
                    last_note = time.monotonic()
                    fewest = min(games // 2 for _, games in rows)
                    print(f"ladder: {progress['matches']} matches in {last_note - began:.0f} s;"
                          f" the fewest pairings a bot {fewest}", file=sys.stderr, flush=True)
            wall = time.monotonic() - began
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await container.close_rooms()(10.0)
        table = [
            {"bot": names[row.bot], "mu": row.mu, "sigma": row.sigma, "ordinal": row.ordinal,
             "games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses}
            for row in await show()
        ]
    finally:
        await container.matches_resource.shutdown()
        await container.arena_database_resource.shutdown()
        await container.arena_sandbox_resource.shutdown()
    return {
        "runner": runner,
        "wall_s": wall,
        "matches": progress["matches"],
        "rated": progress["rated"],
        "errors": [repr(error) for error in errors],
        "table": table,
        **summary(checks, known_order((*HANDICAPS, LATE_HANDICAP))),
    }


def bench_ladder(args: argparse.Namespace) -> dict[str, Any]:
    from noitu.bench.machine import machine

    settings = {key: getattr(args, key) for key in
                ("pairings", "turn_limit", "slots", "trio_at", "late_after", "late_at")}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="noitu-bench-ladder-") as data_dir:
        report = asyncio.run(_run(args, Path(data_dir)))
    return {"machine": machine(), "load_before": [round(x, 2) for x in load_before],
            "settings": settings, **report}


def format_ladder(report: dict[str, Any]) -> str:
    from noitu.bench.machine import format_machine

    s = report["settings"]
    tau = report["kendall_tau"]
    lines = [
        format_machine(report["machine"]) + f" (load average at the start {report['load_before']})",
        (f"runner: {report['runner']}; turn limit {s['turn_limit']}; {s['slots']} ladder"
         f" matches at a time; one run"),
        (f"{report['matches']} matches played ({report['rated']} rated) in"
         f" {report['wall_s']:.0f} s"),
        "",
        f"{'#':>3}  {'bot':<9} {'μ':>6} {'σ':>5} {'μ−3σ':>6} {'games':>5}  W/D/L",
    ]
    for rank, row in enumerate(report["table"], start=1):
        lines.append(
            f"{rank:>3}  {row['bot']:<9} {row['mu']:>6.2f} {row['sigma']:>5.2f}"
            f" {row['ordinal']:>6.2f} {row['games']:>5}  {row['wins']}/{row['draws']}/{row['losses']}"
        )
    lines += [
        "",
        f"known order: {' > '.join(report['known_order'])}",
        f"Kendall τ after {s['pairings']} pairings a bot: {tau:.3f} (target ≥ 0.9)",
        (f"after {s['trio_at']} pairings each: {' > '.join(report['trio_order'] or [])}"
         f" — strong > tactical > random: {'yes' if report['trio_ok'] else 'NO'}"),
        (f"late bot {report['late']} (joined after {s['late_after']} pairings a bot):"
         f" rank {report['late_rank_early']} after {s['late_at']} pairings,"
         f" {report['late_rank_final']} at the end (target within 2 places:"
         f" {'yes' if abs(report['late_rank_early'] - report['late_rank_final']) <= 2 else 'NO'})"),
    ]
    if report["errors"]:
        lines.append(f"the driver's failed passes: {len(report['errors'])}: {report['errors'][:3]}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pairings", type=int, default=30,
                        help="pairings every bot plays before τ is measured")
    parser.add_argument("--turn-limit", type=int, default=40,
                        help="the ladder matches' turn limit (shorter: faster, noisier)")
    parser.add_argument("--slots", type=int, default=2, help="ladder matches at a time")
    parser.add_argument("--trio-at", type=int, default=10,
                        help="pairings of strong, tactical, random when their order is read")
    parser.add_argument("--late-after", type=int, default=15,
                        help="pairings every other bot has played when the late bot joins")
    parser.add_argument("--late-at", type=int, default=10,
                        help="the late bot's pairings when its early rank is read")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def check_arguments(args: argparse.Namespace, fail: Callable[[str], None]) -> None:
    for flag in ("pairings", "turn_limit", "slots", "trio_at", "late_at"):
        if getattr(args, flag) < 1:
            fail(f"--{flag.replace('_', '-')} must be at least 1")
    if args.late_after < 0:
        fail("--late-after must not be negative")
    if args.late_at > args.pairings:
        fail("--late-at must not exceed --pairings")
