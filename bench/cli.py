"""`noitu bench`: the performance budget, measured (see docs/performance.md), and the
word bots' self-play tournament.

    noitu bench engine   dictionary load, move validation, bot replies per difficulty
    noitu bench memory   RSS with 2,000 live sessions of 100 words each
    noitu bench http     a load generator against a real `noitu serve` on loopback
    noitu bench app      CPU per request of the real mix inside the app, and the floor's
    noitu bench rooms    group rooms: live-update latency and CPU per move
    noitu bench feeds    group rooms' live feeds: RSS per feed, after close, refusals
    noitu bench idle     an idle `noitu serve`: its CPU and its event loop's wake-ups
    noitu bench bots     the word bots against each other under the real rules, or
                         (--players) models of a person against each level
    noitu bench ladder   the arena's ladder: does its table find bots of known order
    noitu bench cluster  the arena on several machines, on this one: Redis, PostgreSQL,
                         `noitu serve` ×N and `noitu arena worker` ×M, until Ctrl-C
    noitu bench arena-cluster  B9's capacity (one worker against two, pinned) and a
                         match's start latency (cluster against the embedded default)
    noitu bench cli      how long quick `noitu` commands take to start and exit

Every benchmark figure is the median over `--runs` repeated runs. Each prints a table,
or with `--json` one JSON object. This module stays light: `noitu serve` builds the
same parser, so each command imports its module only when it runs.
"""

from __future__ import annotations

import argparse

from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import MAX_CHAIN_WORDS

DIFFICULTIES = tuple(d.value for d in Difficulty)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The sub-commands of `noitu bench`, on the parser of that command."""
    commands = parser.add_subparsers(dest="bench", required=True)

    engine = commands.add_parser("engine", help="dictionary load, validation, bot replies")
    engine.add_argument("--runs", type=int, default=5, help="repeated runs (medians)")
    engine.add_argument("--quick", action="store_true", help="fewer positions (a smoke run)")
    engine.add_argument("--json", action="store_true", help="print one JSON object")
    engine.add_argument("--plot", default="", help="also save the reply-time plot (PNG)")
    engine.set_defaults(run=run_engine)

    memory = commands.add_parser("memory", help="RSS with 2,000 sessions of 100 words")
    memory.add_argument("--runs", type=int, default=3, help="repeated runs (medians)")
    memory.add_argument("--sessions", type=int, default=2000, help="live sessions")
    memory.add_argument("--words", type=int, default=100, help="words in each chain")
    memory.add_argument("--json", action="store_true", help="print one JSON object")
    memory.set_defaults(run=run_memory)

    http = commands.add_parser("http", help="load generator against a real server")
    http.add_argument("--runs", type=int, default=3, help="repeated runs (medians)")
    http.add_argument("--players", type=int, default=600, help="simulated players")
    http.add_argument("--difficulty", default="medium", choices=DIFFICULTIES)
    http.add_argument("--duration", type=float, default=20.0, help="measured seconds")
    http.add_argument("--warmup", type=float, default=5.0, help="seconds before measuring")
    http.add_argument("--client", default="raw", choices=("raw", "httpx"))
    http.add_argument(
        "--server-python", default="",
        help="run the server with this interpreter (to compare server environments)",
    )
    http.add_argument("--store", default="memory", choices=("memory", "redis"),
                      help="the session store of the server (redis: a throwaway redis-server)")
    http.add_argument(
        "--mix", default="real", choices=("real", "long"),
        help="real: short games of common words, a request every 300 ms (starts, moves,"
             " give-ups); long: players who play to last (almost only moves)",
    )
    http.add_argument(
        "--jitter-ms", type=float, default=16.0,
        help="each pause after an answer is 302 ms plus a uniform draw of up to this"
             " (default 16: 310 ms on average, the cadence players were measured at;"
             " 0: an exact cadence)",
    )
    http.add_argument("--no-route-cpu", action="store_true",
                      help="do not have the server count its CPU per route (NOITU_BENCH_CPU)")
    http.add_argument(
        "--floor", action="store_true",
        help="after each run, load a hello-world Litestar app (bench/floor_app.py) the same"
             " way, its requests back to back, and print real ÷ floor (give enough --players"
             " to saturate the server, e.g. 1500)",
    )
    http.add_argument("--json", action="store_true", help="print one JSON object")
    http.set_defaults(run=run_http)

    app = commands.add_parser("app", help="CPU per request inside the app, and the floor's")
    app.add_argument("--runs", type=int, default=7, help="batches (the best is kept)")
    app.add_argument("--batch", type=int, default=2000, help="requests per batch")
    app.add_argument("--store", default="memory", choices=("memory", "redis"))
    app.add_argument("--no-access-log", action="store_true",
                     help="the access log off (it is on by default, as in `noitu serve`)")
    app.add_argument("--json", action="store_true", help="print one JSON object")
    app.set_defaults(run=run_app)

    rooms = commands.add_parser("rooms", help="group rooms: live-update latency, CPU per move")
    rooms.add_argument("--rooms", type=int, default=200, help="rooms played at once")
    rooms.add_argument("--players", type=int, default=4, help="people per room")
    rooms.add_argument("--moves", type=int, default=20, help="moves per room")
    rooms.add_argument("--think", type=float, default=1.0,
                       help="mean seconds a player thinks before a word")
    rooms.add_argument("--store", default="memory", choices=("memory", "redis"))
    rooms.add_argument("--instances", type=int, default=1,
                       help="servers sharing the rooms (2 needs --store redis)")
    rooms.add_argument("--seed", type=int, default=1, help="seed of the words and pauses")
    rooms.add_argument("--json", action="store_true", help="print one JSON object")
    rooms.set_defaults(run=run_rooms)

    feeds = commands.add_parser("feeds", help="group rooms' feeds: RSS per feed and after close")
    feeds.add_argument("--runs", type=int, default=3, help="repeated runs (medians)")
    feeds.add_argument("--feeds", type=int, default=300, help="feeds open at once")
    feeds.add_argument("--refusals", type=int, default=20, help="refused words sent")
    feeds.add_argument("--sse", action="store_true", help="event streams, not WebSockets")
    feeds.add_argument("--json", action="store_true", help="print one JSON object")
    feeds.set_defaults(run=run_feeds)

    idle = commands.add_parser("idle", help="an idle server's CPU and event loop wake-ups")
    idle.add_argument("--runs", type=int, default=3, help="repeated runs (medians)")
    idle.add_argument("--seconds", type=float, default=60.0, help="how long each run watches")
    idle.add_argument("--warmup", type=float, default=10.0,
                      help="seconds after start-up before watching")
    idle.add_argument("--json", action="store_true", help="print one JSON object")
    idle.set_defaults(run=run_idle)

    bots = commands.add_parser("bots", help="the word bots' self-play tournament")
    bots.add_argument("--a", default="hard", choices=DIFFICULTIES, help="policy of side A")
    bots.add_argument("--b", default="medium", choices=DIFFICULTIES, help="policy of side B")
    bots.add_argument("--games", type=int, default=1000,
                      help="games to play (made even; with --players, per pairing)")
    bots.add_argument("--seed", type=int, default=1, help="seed of openings and policies")
    bots.add_argument("--max-chain", type=int, default=MAX_CHAIN_WORDS,
                      help="a chain this long is a draw")
    bots.add_argument("--dictionary", default="", help="dictionary file (default: the shipped one)")
    bots.add_argument(
        "--players", default="",
        help="player models (casual,careful) against --levels, instead of --a against --b",
    )
    bots.add_argument("--levels", default=",".join(DIFFICULTIES),
                      help="the levels the --players face (comma-separated)")
    bots.add_argument("--show", type=int, default=0,
                      help="with --players: print the first N games of each pairing")
    bots.add_argument("--json", action="store_true", help="print one JSON object")
    bots.add_argument("--quiet", action="store_true", help="no progress bar")
    bots.set_defaults(run=run_bots)

    ladder = commands.add_parser("ladder", help="the arena ladder's order against a known one")
    from noitu.bench.arena_ladder import add_arguments as ladder_arguments

    ladder_arguments(ladder)
    ladder.set_defaults(run=run_ladder)

    cluster = commands.add_parser(
        "cluster", help="the arena's processes on several machines, run on this one (Ctrl-C stops)"
    )
    cluster.add_argument("--serve", type=int, default=2, help="`noitu serve` instances")
    cluster.add_argument("--workers", type=int, default=2, help="`noitu arena worker` processes")
    cluster.add_argument(
        "--cpus", action="append", default=[], metavar="LIST",
        help="pin a worker with `taskset -c LIST` (once per worker, in order)",
    )
    cluster.add_argument("--matches", type=int, help="each worker's matches at once")
    cluster.add_argument("--builds", type=int, help="each worker's builds at once")
    cluster.add_argument(
        "--dir", default="",
        help="keep the logs and data directories here (default: a temporary one, removed)",
    )
    cluster.set_defaults(run=run_cluster)

    arena_cluster = commands.add_parser(
        "arena-cluster",
        help="the arena on several machines: matches a minute with 1 and 2 workers, start latency",
    )
    arena_cluster.add_argument("--runs", type=int, default=3, help="repeated runs (medians)")
    arena_cluster.add_argument("--matches", type=int, default=40,
                               help="matches created at once for the capacity")
    arena_cluster.add_argument("--latency-matches", type=int, default=20,
                               help="matches one after another for the start latency, per mode")
    arena_cluster.add_argument("--json", action="store_true", help="print one JSON object")
    arena_cluster.set_defaults(run=run_arena_cluster)

    cli_start = commands.add_parser("cli", help="how long quick `noitu` commands take to start")
    cli_start.add_argument("--runs", type=int, default=7, help="repeated runs (medians)")
    cli_start.add_argument("--json", action="store_true", help="print one JSON object")
    cli_start.set_defaults(run=run_cli_start)


def _positive(value: int, flag: str) -> int:
    if value < 1:
        raise SystemExit(f"noitu bench: {flag} must be at least 1")
    return value


def run_engine(args: argparse.Namespace) -> None:
    from noitu.bench.engine import bench_engine, format_engine, plot_replies
    from noitu.bench.machine import emit

    report = bench_engine(_positive(args.runs, "--runs"), quick=args.quick)
    if args.plot:
        plot_replies(report, args.plot)
    emit(report, args.json, format_engine)


def run_memory(args: argparse.Namespace) -> None:
    from noitu.bench.machine import emit
    from noitu.bench.memory import bench_memory, format_memory

    report = bench_memory(
        _positive(args.runs, "--runs"), _positive(args.sessions, "--sessions"),
        _positive(args.words, "--words"),
    )
    emit(report, args.json, format_memory)


def run_http(args: argparse.Namespace) -> None:
    from noitu.bench.http_load import bench_http, format_http
    from noitu.bench.machine import emit

    report = bench_http(
        _positive(args.runs, "--runs"), _positive(args.players, "--players"), args.difficulty,
        args.duration, args.warmup, args.client, args.server_python, args.store, args.mix,
        not args.no_route_cpu, max(args.jitter_ms, 0.0), args.floor,
    )
    emit(report, args.json, format_http)


def run_app(args: argparse.Namespace) -> None:
    from noitu.bench.http_app_cpu import bench_app_cpu, format_app_cpu
    from noitu.bench.machine import emit

    report = bench_app_cpu(
        _positive(args.runs, "--runs"), _positive(args.batch, "--batch"), args.store,
        not args.no_access_log,
    )
    emit(report, args.json, format_app_cpu)


def run_rooms(args: argparse.Namespace) -> None:
    from noitu.bench.group_rooms import bench_group_rooms, format_group_rooms
    from noitu.bench.machine import emit

    instances = _positive(args.instances, "--instances")
    if instances > 1 and args.store != "redis":
        raise SystemExit("noitu bench: several --instances share rooms only with --store redis")
    players = _positive(args.players, "--players")
    if not 2 <= players <= 8:
        raise SystemExit("noitu bench: --players must be 2 to 8 (a room's seats)")
    report = bench_group_rooms(
        _positive(args.rooms, "--rooms"), players, _positive(args.moves, "--moves"),
        max(args.think, 0.0), args.store, instances, args.seed,
    )
    emit(report, args.json, format_group_rooms)


def run_feeds(args: argparse.Namespace) -> None:
    from noitu.bench.machine import emit
    from noitu.bench.room_feeds import bench_room_feeds, format_room_feeds

    report = bench_room_feeds(
        _positive(args.runs, "--runs"), _positive(args.feeds, "--feeds"),
        _positive(args.refusals, "--refusals"), args.sse,
    )
    emit(report, args.json, format_room_feeds)


def run_idle(args: argparse.Namespace) -> None:
    from noitu.bench.idle_cpu import bench_idle, format_idle
    from noitu.bench.machine import emit

    if args.seconds <= 0 or args.warmup < 0:
        raise SystemExit("noitu bench: --seconds must be positive and --warmup not negative")
    emit(bench_idle(_positive(args.runs, "--runs"), args.seconds, args.warmup), args.json,
         format_idle)


def run_bots(args: argparse.Namespace) -> None:
    from noitu.bench.bots import run

    run(args)


def run_ladder(args: argparse.Namespace) -> None:
    from noitu.bench.arena_ladder import bench_ladder, check_arguments, format_ladder
    from noitu.bench.machine import emit

    def fail(problem: str) -> None:
        raise SystemExit(f"noitu bench: {problem}")

    check_arguments(args, fail)
    emit(bench_ladder(args), args.json, format_ladder)


def run_cluster(args: argparse.Namespace) -> None:
    from noitu.bench.cluster import run

    run(args)


def run_cli_start(args: argparse.Namespace) -> None:
    from noitu.bench.cli_start import bench_cli_start, format_cli_start
    from noitu.bench.machine import emit

    emit(bench_cli_start(_positive(args.runs, "--runs")), args.json, format_cli_start)


def run_arena_cluster(args: argparse.Namespace) -> None:
    from noitu.bench.arena_cluster import bench_arena_cluster, format_arena_cluster
    from noitu.bench.machine import emit

    report = bench_arena_cluster(
        _positive(args.matches, "--matches"), _positive(args.runs, "--runs"),
        _positive(args.latency_matches, "--latency-matches"),
    )
    emit(report, args.json, format_arena_cluster)
