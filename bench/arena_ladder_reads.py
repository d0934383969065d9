"""What the ladder's read routes cost on a big ladder (spec B8 "Pages and routes", B13
"an honest table"; issue 30): p50 and p99 of each route on one `noitu serve`, and how
long `/healthz` waits while clients read bots' pages.

    .venv/bin/python bench/arena_ladder_reads.py [--results 50000] [--ranked 5000]
                                                 [--players 40] [--requests 300]
                                                 [--runs 3] [--json]

The arena's SQLite database (the embedded default) is seeded directly (`seed_ladder`):
`--ranked` uploaded bots, each of its own owner and ranked (the sybil table of issue 30:
one address, a key each), and `--results` rated ladder matches among the three built-ins
and the first `--players` of them — each match in the archive (finished, marked ladder)
and in the ladder's history, with the standings and every bot's points as the ladder
keeps them (folded by the ladder's own rules, as `noitu arena ladder rebuild` folds
them). The server then runs as the README starts it (MODULES=arena), its ladder driver
off (NOITU_ARENA_LADDER=0: nothing but the reads runs).

Measured, one request at a time after 20 of warm-up, `--requests` each (the wall time
of each, and the server process's CPU time per request, which other work on the
machine does not inflate as much): the table's
first page and its last (`GET /arena/api/ladder`, 100 rows a page), a ranked bot's page
and a built-in's (`GET /arena/api/ladder/bots/{id}`: its row and its newest page of
ratings; a ranked bot's older page too), the ladder's matches (`GET
/arena/api/ladder/matches`, all of them and one bot's) and a second page of each. Then four clients read bots' pages back to back while a fifth asks `/healthz`
every 50 ms: the health check's p50 / p99 / max. All of it `--runs` times on the same
server; printed are the medians over the runs of each figure, with the machine's core
count and load average.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import httpx
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.sql import migrations
from noitu.adapters.arena.sql.engine import create_engine, default_url, writer
from noitu.adapters.arena.sql.models import (
    bots,
    ladder_members,
    ladder_points,
    ladder_results,
    ladder_standings,
    ladder_state,
    matches,
    owners,
)
from noitu.bench.http_load import running_server
from noitu.bench.machine import cpu_seconds, format_machine, machine, median, percentile
from noitu.domain.arena.board import Side
from noitu.domain.arena.ladder.rating import FIRST_RATING
from noitu.domain.arena.ladder.results import LadderResult
from noitu.domain.arena.ladder.standings import (
    NEW_STANDING,
    Folded,
    Standing,
    StandingPoint,
    Standings,
    history_from,
)

API = "/arena/api"
#: When the seeded history starts, and the time between two results (ms).
T0_MS = 1_750_000_000_000
EVERY_MS = 30_000
#: Rows an INSERT carries at once.
BATCH = 5_000
#: Warm-up requests before each route is measured.
WARM_UP = 20
#: The readers of bots' pages while `/healthz` is asked, and how often it is (s).
READERS = 4
HEALTH_EVERY_S = 0.05


@dataclass(frozen=True)
class Seeded:
    """What `seed_ladder` stored: the ranked bots' ids (the `players` first) and the
    number of results."""

    ranked: list[str]
    players: list[str]
    results: int


def _bot_id(n: int) -> str:
    return f"b{n:015d}"


def _seat(side: str, bot: str, builtin: bool, owner: str | None) -> dict[str, Any]:
    return {
        f"{side}_kind": "builtin" if builtin else "upload",
        f"{side}_ref": bot,
        f"{side}_name": bot if builtin else f"sybil {bot[-4:]}",
        f"{side}_owner": owner,
    }


async def _insert(engine: AsyncEngine, table: Any, rows: list[dict[str, Any]]) -> None:
    async with writer(engine).begin() as connection:
        for start in range(0, len(rows), BATCH):
            await connection.execute(insert(table), rows[start : start + BATCH])


async def seed_ladder(
    engine: AsyncEngine,
    *,
    results: int,
    ranked: int,
    players: int,
    seed: int = 1,
    fold: bool = True,
) -> Seeded:
    """Store a ladder of `ranked` ranked bots (each its own owner) and `results` rated
    matches among the built-ins and the first `players` of them, on a migrated and
    empty database, as the ladder would have stored them. `fold` False skips rating
    them (every point and standing at the first rating, the counts true): as many
    rows, for a test that reads them without the fold's seconds."""
    rng = random.Random(seed)
    owner_of = {
        _bot_id(n): hashlib.sha256(f"owner {n}".encode()).hexdigest() for n in range(ranked)
    }
    ranked_ids = list(owner_of)
    await _insert(engine, owners, [
        {"key_hash": owner, "created_ms": T0_MS} for owner in owner_of.values()
    ])
    await _insert(engine, bots, [
        {
            "id": bot, "owner": owner, "name": f"sybil {bot[-4:]}", "language": "python",
            "public": True, "created_ms": T0_MS + n, "source_bytes": 100, "build_status": "ok",
            "build_messages": "", "source_file": f"bots/{bot}/source.py",
            "artefact_dir": f"bots/{bot}/artefact",
        }
        for n, (bot, owner) in enumerate(owner_of.items())
    ])
    builtins = list(BuiltinBots.names())
    pool = [*builtins, *ranked_ids[:players]]
    history = []
    match_rows = []
    for n in range(results):
        p1, p2 = rng.sample(pool, 2)
        winner = rng.choice((Side.P1, Side.P2, Side.P1, Side.P2, None))
        ended = T0_MS + (n + 1) * EVERY_MS
        match_id = f"{n:08X}"
        history.append(LadderResult(match_id, f"{n // 2:016x}", p1, p2, winner, ended))
        match_rows.append({
            "id": match_id, "room": "LADDER", "seed": n, "turn_limit": 200,
            "created_ms": ended - 20_000, "started_ms": ended - 19_000, "finished_ms": ended,
            **_seat("p1", p1, p1 in builtins, owner_of.get(p1)),
            **_seat("p2", p2, p2 in builtins, owner_of.get(p2)),
            "status": "finished", "winner": None if winner is None else winner.value,
            "reason": "TURN_LIMIT" if winner is None else "BASE_CAPTURED", "turns": 120,
            "failure_side": None, "failure_code": None, "failure_detail": None,
            "replay": f"replays/{match_id}.jsonl", "runner": "", "ladder": True,
        })
    await _insert(engine, matches, match_rows)
    await _insert(engine, ladder_results, [
        {
            "match_id": one.match_id, "pairing_id": one.pairing_id, "p1": one.p1, "p2": one.p2,
            "winner": None if one.winner is None else one.winner.value,
            "ended_ms": one.ended_ms,
        }
        for one in history
    ])
    folded = history_from(history) if fold else _unrated(history)
    await _insert(engine, ladder_members, [
        {
            "bot": bot, "owner": owner, "created_ms": T0_MS + n, "failures_in_row": 0,
            "suspended": False, "placement_step": None,
            "ordinal": folded.standings.of(bot).rating.ordinal,
            "games": folded.standings.of(bot).games,
        }
        for n, (bot, owner) in enumerate(owner_of.items())
    ])
    await _insert(engine, ladder_points, [
        {
            "bot": point.bot, "ended_ms": point.key.ended_ms, "match_id": point.key.match_id,
            "mu": point.standing.rating.mu, "sigma": point.standing.rating.sigma,
            "wins": point.standing.wins, "draws": point.standing.draws,
            "losses": point.standing.losses,
        }
        for point in folded.points
    ])
    await _insert(engine, ladder_standings, [
        {
            "bot": bot, "mu": standing.rating.mu, "sigma": standing.rating.sigma,
            "wins": standing.wins, "draws": standing.draws, "losses": standing.losses,
            "last_game_ms": standing.last_game_ms,
        }
        for bot, standing in folded.standings.by_bot.items()
    ])
    through = folded.standings.through
    if through is not None:
        await _insert(engine, ladder_state, [
            {"id": 1, "through_ms": through.ended_ms, "through_match": through.match_id}
        ])
    return Seeded(ranked_ids, ranked_ids[:players], results)


def _unrated(history: list[LadderResult]) -> Folded:
    """The fold's shape without its ratings: every bot stays at the first rating."""
    points = []
    by_bot: dict[str, Standing] = {}
    for one in history:
        for bot, side in ((one.p1, Side.P1), (one.p2, Side.P2)):
            before = by_bot.get(bot, NEW_STANDING)
            by_bot[bot] = before.after(FIRST_RATING, side, one.winner, one.ended_ms)
            points.append(StandingPoint(bot, one.key, by_bot[bot]))
    through = history[-1].key if history else None
    return Folded(Standings(MappingProxyType(by_bot), through), tuple(points), None)


async def _seed(data_dir: Path, args: argparse.Namespace) -> tuple[Seeded, float]:
    engine = create_engine(default_url(data_dir))
    try:
        await migrations.upgrade(engine)
        began = time.perf_counter()
        seeded = await seed_ladder(
            engine, results=args.results, ranked=args.ranked, players=args.players
        )
        return seeded, time.perf_counter() - began
    finally:
        await engine.dispose()


def _figures(samples_s: list[float]) -> dict[str, float]:
    ordered = sorted(samples_s)
    return {
        "p50_ms": round(median(ordered) * 1000, 2),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


def _timed(client: httpx.Client, path: str, requests: int, server: int) -> dict[str, Any]:
    """Wall time of each request, and the server process's CPU time per request (all
    its threads: what the route costs, whatever else shares the machine)."""
    for _ in range(WARM_UP):
        answer = client.get(path)
        if answer.status_code != 200:
            raise RuntimeError(f"{path}: {answer.status_code} {answer.text[:200]}")
    samples = []
    size = 0
    cpu_before = cpu_seconds(server)
    for _ in range(requests):
        began = time.perf_counter()
        answer = client.get(path)
        samples.append(time.perf_counter() - began)
        size = len(answer.content)
    cpu_ms = (cpu_seconds(server) - cpu_before) * 1000 / requests
    return {"path": path, "bytes": size, **_figures(samples), "cpu_ms": round(cpu_ms, 2)}


async def _health_while_reading(base: str, paths: list[str], seconds: float) -> dict[str, Any]:
    """`READERS` clients read `paths` back to back while `/healthz` is asked."""
    stop = time.monotonic() + seconds
    reads = 0

    async def reader(client: httpx.AsyncClient, offset: int) -> None:
        nonlocal reads
        n = offset
        while time.monotonic() < stop:
            (await client.get(paths[n % len(paths)])).raise_for_status()
            reads += 1
            n += 1

    async def health(client: httpx.AsyncClient) -> list[float]:
        waits = []
        while time.monotonic() < stop:
            began = time.perf_counter()
            (await client.get("/healthz")).raise_for_status()
            waits.append(time.perf_counter() - began)
            await asyncio.sleep(HEALTH_EVERY_S)
        return waits

    limits = httpx.Limits(max_connections=READERS + 1)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:
        waits, *_ = await asyncio.gather(
            health(client), *(reader(client, n) for n in range(READERS))
        )
    return {"readers": READERS, "reads": reads, "healthz": _figures(waits)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="noitu-ladder-reads-") as folder:
        data_dir = Path(folder)
        seeded, seed_s = asyncio.run(_seed(data_dir, args))
        env = {
            "MODULES": "arena", "NOITU_DATA_DIR": str(data_dir), "NOITU_ARENA_LADDER": "0",
        }
        with running_server("s" * 32, env) as (server, port):
            base = f"http://127.0.0.1:{port}"
            player, builtin = seeded.players[0], "strong"
            with httpx.Client(base_url=base, timeout=60) as client:
                first = client.get(f"{API}/ladder/bots/{player}").json()
                matches = client.get(f"{API}/ladder/matches").json()
                mine = client.get(f"{API}/ladder/matches", params={"bot": player}).json()
                last = max(0, len(seeded.ranked) + len(BuiltinBots.names()) - 50)
                routes = {
                    "table": f"{API}/ladder",
                    "table, last page": f"{API}/ladder?after={last}",
                    "ranked bot": f"{API}/ladder/bots/{player}",
                    "ranked bot, older ratings": (
                        f"{API}/ladder/bots/{player}?before={first['next']}"
                    ),
                    "built-in bot": f"{API}/ladder/bots/{builtin}",
                    "matches": f"{API}/ladder/matches",
                    "matches, page 2": f"{API}/ladder/matches?before={matches['next']}",
                    "one bot's matches": f"{API}/ladder/matches?bot={player}",
                    "one bot's matches, page 2": (
                        f"{API}/ladder/matches?bot={player}&before={mine['next']}"
                    ),
                }
                # A second page only where the first is full (a small ladder has none).
                routes = {name: path for name, path in routes.items() if "=None" not in path}
                rows = len(client.get(f"{API}/ladder").json()["rows"])
                points = len(first["ratings"])
                pages = [f"{API}/ladder/bots/{bot}" for bot in seeded.players[:READERS]]
                runs = []
                for _ in range(args.runs):
                    measured = {
                        name: _timed(client, path, args.requests, server.pid)
                        for name, path in routes.items()
                    }
                    health = asyncio.run(_health_while_reading(base, pages, args.health_seconds))
                    runs.append({"routes": measured, "while_reading": health})
    return {
        "results": seeded.results,
        "ranked": len(seeded.ranked),
        "table_rows": rows,
        "points_a_page": points,
        "seed_s": round(seed_s, 1),
        "runs": runs,
        "routes": {
            name: {
                "path": runs[0]["routes"][name]["path"],
                "bytes": runs[0]["routes"][name]["bytes"],
                **_medians([run["routes"][name] for run in runs]),
            }
            for name in runs[0]["routes"]
        },
        "while_reading": {
            "readers": READERS,
            "reads": sum(run["while_reading"]["reads"] for run in runs),
            "healthz": _medians([run["while_reading"]["healthz"] for run in runs]),
        },
        "machine": machine(),
    }


def _medians(figures: list[dict[str, Any]]) -> dict[str, float]:
    """The median over runs of each figure (p50, p99, max; CPU a request)."""
    return {
        key: round(median([one[key] for one in figures]), 2)
        for key in ("p50_ms", "p99_ms", "max_ms", "cpu_ms")
        if key in figures[0]
    }


def format_report(report: dict[str, Any]) -> str:
    head = (
        f"ladder: {report['results']:,} results, {report['ranked']:,} ranked bots "
        f"({report['table_rows']:,} rows a table page), {report['points_a_page']} "
        f"ratings a page; seeded in {report['seed_s']} s; medians of "
        f"{len(report['runs'])} runs"
    )
    lines = [
        head,
        "",
        f"{'route':<28} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'CPU ms':>8} {'bytes':>9}",
    ]
    for name, figures in report["routes"].items():
        lines.append(
            f"{name:<28} {figures['p50_ms']:>8} {figures['p99_ms']:>8} {figures['max_ms']:>8} "
            f"{figures['cpu_ms']:>8} {figures['bytes']:>9,}"
        )
    health = report["while_reading"]
    waits = health["healthz"]
    lines += [
        "",
        (
            f"/healthz while {health['readers']} clients read bots' pages ({health['reads']} "
            f"reads): p50 {waits['p50_ms']} ms, p99 {waits['p99_ms']} ms, "
            f"max {waits['max_ms']} ms"
        ),
        format_machine(report["machine"]),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=50_000)
    parser.add_argument("--ranked", type=int, default=5_000)
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--health-seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = run(args)
    print(json.dumps(report, indent=2) if args.json else format_report(report))


if __name__ == "__main__":
    sys.exit(main())
