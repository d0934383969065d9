"""`noitu arena match` and `noitu arena check` (spec B7): a bot author's own machine runs
exactly what a match on the server runs — the sandbox, the protocol, the clock.

    noitu arena match P1 P2 [--seed N] [--replay FILE] [--turn-limit N] [--no-sandbox]
                            [--stderr DIR] [--show-stderr] [--no-build-cache] [--quiet]
    noitu arena match A B --games N [--swap-sides] [--jobs J] [--seed N] ...
    noitu arena check FILE [--no-sandbox]
    noitu arena ladder rebuild [--json]
    noitu arena worker [--builds N]   (entrypoints/cli/arena_worker.py)
    noitu arena sweep                 (entrypoints/cli/arena_sweep.py)
    noitu arena replay-requests REPLAY --side P1|P2 BOT   (cli/arena_replay_requests.py)

P1 and P2 are bot files (.py .cpp .cc .cxx .java .jar) or built-in bots
(builtin:random, builtin:tactical, builtin:strong). Untrusted files run only in the
sandbox; --no-sandbox runs the author's own files without it, with a warning.

Language (docs/decisions.md): everything these commands print for the author is
Vietnamese; what a tool said (a compiler's messages, the sandbox's reason, a bot's
stderr) is quoted as it is, on lines of its own; `--help` texts and JSON keys are
English. A run leaves nothing in the temporary directory but the replay it names.

`noitu arena ladder rebuild` (spec B8, "Whole history") is the operator's: it opens the
arena's database (NOITU_ARENA_DATABASE_URL, migrated first), recomputes every rating from
the stored ladder results in their order under the scheduler's lease, writes them in one
transaction and prints the table; while a scheduler holds the lease it answers busy
(exit 75, try again) and changes nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import secrets
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from noitu.adapters.arena.build import BuildUnavailable
from noitu.adapters.arena.build_cache import CachedBuilder
from noitu.adapters.arena.builtin import BuiltinBots, BuiltinUnavailable
from noitu.adapters.arena.languages import accepted_suffixes, language_for
from noitu.adapters.arena.replay_file import ReplayFile
from noitu.application.arena.check_bot import SILENT_HINT, CaseStart, Verdict, all_passed
from noitu.application.arena.play_series import Game, PlaySeries, SeriesBot, SeriesCommand
from noitu.application.arena.ports import Artefact, BotBuilder, ProcessFailure
from noitu.application.arena.replay import Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand
from noitu.application.arena.storage import StorageUnavailable
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT
from noitu.entrypoints.cli.arena_sweep import add_sweep_parser
from noitu.entrypoints.cli.arena_view import (
    CheckProgress,
    MatchProgress,
    SeriesProgress,
    StderrView,
    indented,
    print_series,
    result_text,
    say,
)
from noitu.entrypoints.cli.arena_worker import add_worker_parser
from noitu.entrypoints.role import Role
from noitu.entrypoints.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:  # imported by the commands that run (`noitu --help` stays fast)
    from noitu.application.arena.ladder.rebuild_ladder import RebuiltLadder
    from noitu.entrypoints.container import Container

BUILTIN_PREFIX = "builtin:"
#: The check's first case: the bot built (compiled, or checked) as the server would.
BUILD_CASE = "Biên dịch / kiểm tra tệp"
NO_SANDBOX_WARNING = (
    "--no-sandbox: bot chạy KHÔNG có sandbox (không giới hạn, toàn quyền trên máy này)."
    " Chỉ dùng cho tệp của chính bạn."
)


#: sysexits' EX_TEMPFAIL: the lease is held elsewhere; running again later works.
EXIT_BUSY = 75


class UsageError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A player named on the command line: a built-in bot or a file."""

    text: str
    builtin: str | None = None
    path: Path | None = None

    @property
    def name(self) -> str:
        return self.builtin or (self.path.name if self.path else self.text)


SANDBOX_HELP = "run your own trusted files without the sandbox (a warning is printed)"


def parse_spec(text: str) -> BotSpec:
    if text.startswith(BUILTIN_PREFIX):
        name = text[len(BUILTIN_PREFIX):]
        if name not in BuiltinBots.names():
            raise UsageError(
                f"không có bot dựng sẵn {name!r}: hãy chọn "
                + ", ".join(BUILTIN_PREFIX + n for n in BuiltinBots.names())
            )
        return BotSpec(text, builtin=name)
    path = Path(text)
    if language_for(path.name) is None:
        raise UsageError(f"{text}: tệp bot phải có đuôi {' '.join(accepted_suffixes())}")
    if not path.is_file():
        raise UsageError(f"{text}: không có tệp này")
    return BotSpec(text, path=path)


@dataclass(slots=True)
class _Run:
    """What one command uses: the container, and the build cache when there is one
    (made on first use: the builder exists once the runner is chosen)."""

    container: Container
    cache_dir: Path | None
    _cache: CachedBuilder | None = None

    @property
    def cache(self) -> CachedBuilder | None:
        if self._cache is None and self.cache_dir is not None:
            self._cache = CachedBuilder(self.container.arena_builder(), self.cache_dir)
        return self._cache


@contextlib.asynccontextmanager
async def _session(no_sandbox: bool, build_cache: bool) -> AsyncIterator[_Run]:
    """The container for one command, its sandbox probed (unless --no-sandbox), and
    everything it leaves behind removed at the end: the sandbox's staging folder, and
    the built-in bots' folder when there is no cache directory (NOITU_CACHE_DIR=off)."""
    try:
        settings = load_settings()
    except SettingsError as error:
        problems = "\n    ".join(error.problems)  # the settings' own (English) lines, quoted
        raise UsageError(f"biến môi trường không hợp lệ:\n    {problems}") from None
    # These commands run the arena alone, whatever MODULES says for the server.
    settings = dataclasses.replace(settings, modules=("arena",))
    with contextlib.ExitStack() as cleanup:
        cache_dir = settings.cache_dir
        if cache_dir is None:
            cache_dir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="noitu-arena-cache-")))
            settings = dataclasses.replace(settings, cache_dir=cache_dir)
            build_cache = False
        from noitu.entrypoints.container import Container

        # The runner is direct only when the author asked for it.
        container = Container(settings=settings, role=Role.cli(no_sandbox=no_sandbox))
        # The one Resource these commands need (no database, no Redis, no feed).
        await container.arena_sandbox_resource.init()
        try:
            yield _Run(container, cache_dir if build_cache else None)
        finally:
            await container.arena_sandbox_resource.shutdown()


def _check_runner(container: Container, specs: list[BotSpec], no_sandbox: bool) -> None:
    """The sandbox when it can run here; without it only built-in bots (trusted code)
    may run, unless the author said --no-sandbox. Exits with the reason otherwise."""
    if no_sandbox:
        say(NO_SANDBOX_WARNING)
        return
    status = container.arena_sandbox_status()
    assert status is not None  # probed when the session opened
    if status.available:
        return
    if any(spec.path is not None for spec in specs):
        say(f"sandbox không chạy được trên máy này. Lý do:\n    {status.reason}")
        say(
            "hãy cài những gì lý do trên nêu (xem BOT-UPLOAD.md), hoặc chạy tệp của chính"
            " bạn với --no-sandbox"
        )
        raise SystemExit(1)
    say(f"không có sandbox, các bot dựng sẵn chạy không cần nó. Lý do:\n    {status.reason}")


async def _artefact(run: _Run, spec: BotSpec, into: Path) -> Artefact | ProcessFailure:
    """The bot ready to run, or the COMPILE_ERROR that makes it lose."""
    container = run.container
    if spec.builtin is not None:
        return await container.builtin_bots().artefact(spec.builtin)
    assert spec.path is not None
    language = language_for(spec.path.name)
    assert language is not None
    builder: BotBuilder = run.cache or container.arena_builder()
    built = await builder.build(spec.path, language, into, shown_as=spec.path.name)
    if built.ok and built.artefact is not None:
        if run.cache is not None and run.cache.reused(built.artefact):
            say(f"{spec.text}: dùng lại bản đã biên dịch từ lần trước (mã nguồn không đổi)")
        return built.artefact
    say(f"{spec.text} không biên dịch được. Thông báo của trình biên dịch:\n{built.messages}")
    first_line = (built.messages.strip().splitlines() or ["Biên dịch thất bại."])[0]
    return ProcessFailure(FailureCode.COMPILE_ERROR, first_line[:300])


def _stderr_dir(args: argparse.Namespace) -> Path | None:
    if args.stderr is None:
        return None
    directory = Path(args.stderr)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"--stderr {args.stderr}: không tạo được thư mục ({error.strerror})") from None
    return directory


def _check_match_args(args: argparse.Namespace) -> None:
    if args.turn_limit < 1:
        raise UsageError("--turn-limit phải từ 1 trở lên")
    if args.games is None:
        if args.swap_sides or args.jobs is not None:
            raise UsageError("--swap-sides và --jobs chỉ dùng cùng --games N")
        return
    if args.games < 1:
        raise UsageError("--games phải từ 1 trở lên")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs phải từ 1 trở lên")
    if args.replay:
        raise UsageError(
            "--replay ghi một trận; với --games, hãy chơi lại một ván bằng --seed của nó"
        )


async def run_match(args: argparse.Namespace) -> dict[str, object]:
    specs = [parse_spec(args.p1), parse_spec(args.p2)]
    _check_match_args(args)
    stderr_dir = _stderr_dir(args)
    async with _session(args.no_sandbox, not args.no_build_cache) as run:
        _check_runner(run.container, specs, args.no_sandbox)
        seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
        with tempfile.TemporaryDirectory(prefix="noitu-arena-build-") as work:
            artefacts = [
                await _artefact(run, spec, Path(work) / side.value) for side, spec in zip(SIDES, specs)
            ]
            if args.games is not None:
                return await _series(run, args, specs, artefacts, seed, stderr_dir)
            return await _one_match(run, args, specs, artefacts, seed, stderr_dir)


def _kind(spec: BotSpec) -> SeatKind:
    return SeatKind.BUILTIN if spec.builtin else SeatKind.UPLOAD


async def _one_match(
    run: _Run,
    args: argparse.Namespace,
    specs: list[BotSpec],
    artefacts: list[Artefact | ProcessFailure],
    seed: int,
    stderr_dir: Path | None,
) -> dict[str, object]:
    match_id = secrets.token_hex(4).upper()
    replay_path = Path(args.replay) if args.replay else Path(tempfile.gettempdir()) / f"noitu-match-{match_id}.jsonl"
    say(f"trận {match_id}, seed {seed}: {specs[0].text} (P1) đấu {specs[1].text} (P2)")
    seats = [
        BotSeat(Player(side, spec.name, _kind(spec)), artefact)
        for side, spec, artefact in zip(SIDES, specs, artefacts)
    ]
    replay = ReplayFile(replay_path)
    progress = MatchProgress(args.turn_limit, quiet=args.quiet, turns=args.show_stderr, also=replay)
    view = StderrView(stderr_dir, args.show_stderr)
    try:
        command = MatchCommand(match_id, seed, (seats[0], seats[1]), args.turn_limit)
        outcome = await run.container.run_match()(command, progress, view)
    except BaseException:
        replay.discard()
        raise
    finally:
        progress.close()
        view.close()
    replay.finish()
    result = outcome.result
    names = (specs[0].name, specs[1].name)
    if not args.quiet:  # below the bar on a terminal; the match's one line when piped
        say(f"trận {match_id} xong: {result_text(result, names)}")
    for side in SIDES:
        if side in view.paths:
            say(f"stderr của {side.value}: {view.paths[side]}")
    failure = result.failure
    if failure is not None and outcome.stderr[failure.side.number] and not args.show_stderr:
        tail = outcome.stderr[failure.side.number]
        say(f"stderr cuối của {failure.side.value} ({names[failure.side.number]}):\n{indented(tail)}")
    if failure is not None and failure.code is FailureCode.TIMEOUT and not progress.replies[failure.side]:
        say(f"{failure.side.value} chưa trả lời lần nào. {SILENT_HINT}")
    return {**result.to_json(), "replay": str(replay_path)}


async def _series(
    run: _Run,
    args: argparse.Namespace,
    specs: list[BotSpec],
    artefacts: list[Artefact | ProcessFailure],
    seed: int,
    stderr_dir: Path | None,
) -> dict[str, object]:
    bots = tuple(SeriesBot(spec.name, _kind(spec), artefact) for spec, artefact in zip(specs, artefacts))
    command = SeriesCommand(
        (bots[0], bots[1]), args.games, seed, args.swap_sides, args.jobs or 1, args.turn_limit
    )
    sides = ", đổi bên mỗi seed" if args.swap_sides else ""
    say(
        f"{args.games} ván từ seed {seed}{sides}, {command.jobs} ván một lúc:"
        f" {specs[0].text} (A) đấu {specs[1].text} (B)"
    )
    names = (specs[0].name, specs[1].name)
    progress = SeriesProgress(args.games, names, args.quiet)
    views: list[StderrView] = []

    def stderr_for(game: Game) -> StderrView | None:  # one view a game: files, live prefix
        if stderr_dir is None and not args.show_stderr:
            return None
        view = StderrView(
            stderr_dir, args.show_stderr, label=f"ván {game.number:03d}",
            file_prefix=f"game-{game.number:03d}-",
        )
        views.append(view)
        return view

    try:
        series = await PlaySeries(run.container.run_match())(
            command, on_game=progress, stderr_for=stderr_for
        )
    finally:
        progress.close()
        for view in views:
            view.close()
    if stderr_dir is not None:
        say(f"stderr của từng ván: {stderr_dir}/game-NNN-P1.stderr.txt và game-NNN-P2.stderr.txt")
    print_series(series, (specs[0].text, specs[1].text))
    return series.to_json()


async def run_check(args: argparse.Namespace) -> bool:
    spec = parse_spec(args.file)
    if spec.path is None:
        raise UsageError("noitu arena check cần một tệp bot")
    async with _session(args.no_sandbox, build_cache=True) as run:
        _check_runner(run.container, [spec], args.no_sandbox)
        with tempfile.TemporaryDirectory(prefix="noitu-arena-check-") as work:
            progress = CheckProgress()
            progress.started(CaseStart(BUILD_CASE))
            bot = await _artefact(run, spec, Path(work) / "bot")
            if isinstance(bot, ProcessFailure):
                progress.ended(Verdict(BUILD_CASE, False, None, f"{bot.code.value}: {bot.detail}"))
                return False
            progress.ended(Verdict(BUILD_CASE, True, None, spec.path.name))
            opponent = await run.container.builtin_bots().artefact("random")
            verdicts = await run.container.check_bot()(
                bot, opponent, turn_limit=args.turn_limit,
                on_start=progress.started, on_verdict=progress.ended,
            )
    return all_passed(verdicts)


def _server_settings() -> Settings:
    try:
        settings = load_settings()
    except SettingsError as error:
        problems = "\n    ".join(error.problems)  # the settings' own (English) lines, quoted
        raise UsageError(f"biến môi trường không hợp lệ:\n    {problems}") from None
    return dataclasses.replace(settings, modules=("arena",))


async def run_ladder_rebuild(args: argparse.Namespace) -> dict[str, object]:
    """Rebuild the ladder in the server's database; the table as JSON-ready rows."""
    from noitu.application.arena.ladder.rebuild_ladder import RebuildLadderCommand
    from noitu.entrypoints.container import Container

    container = Container(settings=_server_settings(), role=Role.cli())
    # The one Resource this needs: the database, migrated (no sandbox, no Redis).
    await container.arena_database_resource.init()
    try:
        holder = f"rebuild-{secrets.token_hex(6)}"
        rebuilt = await container.rebuild_ladder()(RebuildLadderCommand(holder))
        names = await _ladder_names(container, rebuilt)
    finally:
        await container.arena_database_resource.shutdown()
    return {
        "results": rebuilt.results,
        "rows": [
            {
                "rank": row.rank, "botId": row.bot, "name": names[row.bot],
                "builtin": row.builtin, "mu": row.mu, "sigma": row.sigma,
                "ordinal": row.ordinal, "games": row.games, "wins": row.wins,
                "draws": row.draws, "losses": row.losses, "lastGameMs": row.last_game_ms,
                "suspended": row.suspended,
            }
            for row in rebuilt.table
        ],
    }


async def _ladder_names(container: Container, rebuilt: RebuiltLadder) -> dict[str, str]:
    """Each row's bot name: a built-in's own; an uploaded bot's as stored (its id when
    it was deleted meanwhile)."""
    catalogue = container.arena_repository()
    names = {}
    for row in rebuilt.table:
        record = None if row.builtin else await catalogue.get_bot(row.bot)
        names[row.bot] = row.bot if record is None else record.name
    return names


def print_ladder(table: dict[str, object]) -> None:
    rows = table["rows"]
    assert isinstance(rows, list)
    print(f"Bảng xếp hạng, tính lại từ {table['results']} trận có xếp hạng:")
    print(f"{'#':>3}  {'bot':<40}  {'μ':>7}  {'σ':>6}  {'μ−3σ':>7}  {'trận':>5}  thắng/hoà/thua")
    for row in rows:
        mark = " (tạm dừng)" if row["suspended"] else ""
        print(
            f"{row['rank']:>3}  {row['name'][:40]:<40}  {row['mu']:>7.2f}  {row['sigma']:>6.2f}"
            f"  {row['ordinal']:>7.2f}  {row['games']:>5}  {row['wins']}/{row['draws']}/"
            f"{row['losses']}{mark}"
        )


def ladder_rebuild_command(args: argparse.Namespace) -> None:
    from noitu.application.arena.ladder.errors import LadderBusy

    try:
        table = _run(run_ladder_rebuild, args)
    except LadderBusy:
        say("bảng xếp hạng đang được bộ lập lịch cập nhật. Bạn chạy lại sau ít giây nhé.")
        raise SystemExit(EXIT_BUSY) from None
    except StorageUnavailable as error:
        say(f"không mở được cơ sở dữ liệu của đấu trường. Lý do:\n    {error}")
        raise SystemExit(1) from None
    if args.json:
        print(json.dumps(table, ensure_ascii=False), flush=True)
    else:
        print_ladder(table)


def _run(coroutine_factory, args: argparse.Namespace):
    try:
        return asyncio.run(coroutine_factory(args))
    except UsageError as error:
        say(str(error))
        raise SystemExit(2) from None
    except (BuiltinUnavailable, BuildUnavailable) as error:
        say(f"không chuẩn bị được bot. Lý do:\n    {error}")
        raise SystemExit(1) from None


def match_command(args: argparse.Namespace) -> None:
    result = _run(run_match, args)
    print(json.dumps(result, ensure_ascii=False), flush=True)


def check_command(args: argparse.Namespace) -> None:
    passed = _run(run_check, args)
    print("Bot đạt mọi bài kiểm tra." if passed else "Bot chưa đạt: xem các dòng LỖI ở trên.")
    raise SystemExit(0 if passed else 1)


def add_arguments(commands: argparse._SubParsersAction) -> None:
    arena = commands.add_parser("arena", help="the bot arena: a match, a bot's self-check")
    kinds = arena.add_subparsers(dest="arena_command", required=True)

    match = kinds.add_parser(
        "match", help="one match, or a series, between two bots (files or builtin:random|tactical|strong)"
    )
    match.add_argument("p1", help="P1 (bot A of a series): a bot file or builtin:NAME")
    match.add_argument("p2", help="P2 (bot B of a series): a bot file or builtin:NAME")
    match.add_argument("--seed", type=int,
                       help="the match's placement seed; with --games, the first game's (default: random, printed)")
    match.add_argument("--replay", help="where to write the replay (JSON Lines); one match only")
    match.add_argument("--turn-limit", type=int, default=DEFAULT_TURN_LIMIT,
                       help="for tests only: rooms always play 200 turns")
    match.add_argument("--no-sandbox", action="store_true", help=SANDBOX_HELP)
    match.add_argument("--quiet", action="store_true", help="no progress")
    match.add_argument("--stderr", metavar="DIR",
                       help="write each bot's whole stderr to DIR/P1.stderr.txt and DIR/P2.stderr.txt"
                            " (with --games: DIR/game-NNN-P1.stderr.txt, ...)")
    match.add_argument("--show-stderr", action="store_true",
                       help="show the bots' stderr live, as [P1 stderr] lines between the turns")
    match.add_argument("--games", type=int, metavar="N",
                       help="play N games, game k on seed --seed+k (k//2 with --swap-sides), and print each"
                            " bot's figures; the last line is one JSON object")
    match.add_argument("--swap-sides", action="store_true",
                       help="with --games: games in pairs on one seed, A as P1 then B as P1")
    match.add_argument("--jobs", type=int, metavar="J", help="with --games: J games at once (default 1)")
    match.add_argument("--no-build-cache", action="store_true",
                       help="build the bot files again even when a build of the same source is cached"
                            " (NOITU_CACHE_DIR=off also turns the cache off)")
    match.set_defaults(run=match_command)

    check = kinds.add_parser("check", help="run a bot through the self-check requests (spec A7)")
    check.add_argument("file", help="the bot file")
    check.add_argument("--no-sandbox", action="store_true", help=SANDBOX_HELP)
    check.add_argument("--turn-limit", type=int, default=DEFAULT_TURN_LIMIT,
                       help="turns of the whole matches against builtin:random")
    check.set_defaults(run=check_command)

    ladder = kinds.add_parser("ladder", help="the ladder in the server's database (spec B8)")
    ladder_kinds = ladder.add_subparsers(dest="ladder_command", required=True)
    rebuild = ladder_kinds.add_parser(
        "rebuild",
        help="recompute every rating from the stored ladder results and print the table"
             " (answers busy, exit 75, while a scheduler holds the lease)",
    )
    rebuild.add_argument("--json", action="store_true", help="print the table as one JSON object")
    rebuild.set_defaults(run=ladder_rebuild_command)

    add_worker_parser(kinds)
    add_sweep_parser(kinds)
    # Imported here: that module builds on this one's session and bot helpers.
    from noitu.entrypoints.cli.arena_replay_requests import add_replay_requests_parser

    add_replay_requests_parser(kinds)
