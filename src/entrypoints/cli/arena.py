"""`noitu arena match` and `noitu arena check` (spec B7): a bot author's own machine runs
exactly what a match on the server runs — the sandbox, the protocol, the clock.

    noitu arena match P1 P2 [--seed N] [--replay FILE] [--turn-limit N] [--no-sandbox]
    noitu arena check FILE [--no-sandbox]

P1 and P2 are bot files (.py .cpp .cc .cxx .java .jar) or built-in bots
(builtin:random, builtin:tactical, builtin:strong). Untrusted files run only in the
sandbox; --no-sandbox runs the author's own files without it, with a warning.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from noitu.adapters.arena.build import BuildUnavailable
from noitu.adapters.arena.builtin import BuiltinBots, BuiltinUnavailable
from noitu.adapters.arena.languages import accepted_suffixes, language_for
from noitu.adapters.arena.replay_file import ReplayFile
from noitu.application.arena.check_bot import Verdict, all_passed
from noitu.application.arena.ports import Artefact, BotBuilder, ProcessFailure
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import SettingsError, load_settings

BUILTIN_PREFIX = "builtin:"
NO_SANDBOX_WARNING = (
    "noitu arena: --no-sandbox: the bots run WITHOUT the sandbox (no limits, full access"
    " to this machine). Only for your own trusted files."
)


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


def parse_spec(text: str) -> BotSpec:
    if text.startswith(BUILTIN_PREFIX):
        name = text[len(BUILTIN_PREFIX):]
        if name not in BuiltinBots.names():
            raise UsageError(
                f"no built-in bot {name!r}: use one of "
                + ", ".join(BUILTIN_PREFIX + n for n in BuiltinBots.names())
            )
        return BotSpec(text, builtin=name)
    path = Path(text)
    if language_for(path.name) is None:
        raise UsageError(f"{text}: a bot file ends in {' '.join(accepted_suffixes())}")
    if not path.is_file():
        raise UsageError(f"{text}: no such file")
    return BotSpec(text, path=path)


def _container(no_sandbox: bool) -> Container:
    try:
        settings = load_settings()
    except SettingsError as error:
        raise UsageError("; ".join(error.problems)) from None
    container = Container()
    container.settings.override(settings)
    if no_sandbox:
        container.arena_runner.override("direct")
    return container


async def _choose_runner(container: Container, specs: list[BotSpec], no_sandbox: bool) -> None:
    """The sandbox when it can run here; without it only built-in bots (trusted code)
    may run, unless the author said --no-sandbox. Exits with the reason otherwise."""
    if no_sandbox:
        print(NO_SANDBOX_WARNING, file=sys.stderr)
        return
    status = await container.arena_probe().probe()
    if status.available:
        return
    if any(spec.path is not None for spec in specs):
        print(f"noitu arena: the sandbox cannot run here: {status.reason}", file=sys.stderr)
        print(
            "noitu arena: install what it names (see BOT-UPLOAD.md), or run your own trusted"
            " files with --no-sandbox",
            file=sys.stderr,
        )
        raise SystemExit(1)
    print(
        f"noitu arena: no sandbox ({status.reason}); the built-in bots run without it",
        file=sys.stderr,
    )
    container.arena_runner.override("direct")


async def _artefact(
    container: Container, spec: BotSpec, into: Path
) -> Artefact | ProcessFailure:
    """The bot ready to run, or the COMPILE_ERROR that makes it lose."""
    if spec.builtin is not None:
        return await container.builtin_bots().artefact(spec.builtin)
    assert spec.path is not None
    language = language_for(spec.path.name)
    assert language is not None
    builder: BotBuilder = container.arena_builder()
    built = await builder.build(spec.path, language, into)
    if built.ok and built.artefact is not None:
        return built.artefact
    print(f"noitu arena: {spec.text} did not build:\n{built.messages}", file=sys.stderr)
    first_line = (built.messages.strip().splitlines() or ["Biên dịch thất bại."])[0]
    return ProcessFailure(FailureCode.COMPILE_ERROR, first_line[:300])


class _Progress:
    """The replay file, and one progress line on stderr as the match goes."""

    def __init__(self, replay: ReplayFile, turn_limit: int, quiet: bool) -> None:
        self.replay = replay
        self.bar = tqdm(
            total=turn_limit, unit="lượt", file=sys.stderr, disable=quiet, dynamic_ncols=True,
            bar_format="{desc} {bar} {n_fmt}/{total_fmt} lượt [{elapsed}]",
        )

    def record(self, event: Event) -> None:
        self.replay.record(event)
        if event["event"] == "applied":
            fight = event["fight"]
            note = f" · {fight['attacker']} {fight['result']} {fight['defender']}" if fight else ""
            self.bar.set_description_str(f"{event['player']}{note}", refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


async def run_match(args: argparse.Namespace) -> dict[str, object]:
    specs = [parse_spec(args.p1), parse_spec(args.p2)]
    if args.turn_limit < 1:
        raise UsageError("--turn-limit must be at least 1")
    container = _container(args.no_sandbox)
    await _choose_runner(container, specs, args.no_sandbox)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    match_id = secrets.token_hex(4).upper()
    replay_path = Path(args.replay) if args.replay else Path(tempfile.gettempdir()) / f"noitu-match-{match_id}.jsonl"
    print(f"noitu arena: match {match_id}, seed {seed}, {specs[0].text} (P1) vs {specs[1].text} (P2)",
          file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="noitu-arena-build-") as work:
        seats = []
        for side, spec in zip(SIDES, specs):
            artefact = await _artefact(container, spec, Path(work) / side.value)
            kind = SeatKind.BUILTIN if spec.builtin else SeatKind.UPLOAD
            seats.append(BotSeat(Player(side, spec.name, kind), artefact))
        replay = ReplayFile(replay_path)
        progress = _Progress(replay, args.turn_limit, args.quiet)
        try:
            command = MatchCommand(match_id, seed, (seats[0], seats[1]), args.turn_limit)
            outcome = await container.run_match()(command, progress)
        except BaseException:
            replay.discard()
            raise
        finally:
            progress.close()
        replay.finish()
    for side, tail in zip(SIDES, outcome.stderr):
        if tail and outcome.result.failure is not None and outcome.result.failure.side is side:
            text = tail.decode("utf-8", "replace")
            print(f"noitu arena: the last stderr of {side.value}:\n{text}", file=sys.stderr)
    return {**outcome.result.to_json(), "replay": str(replay_path)}


def _print_verdict(verdict: Verdict) -> None:
    mark = "ĐẠT  " if verdict.ok else "LỖI  "
    code = f"{verdict.code.value}: " if verdict.code else ""
    print(f"{mark}{verdict.case} — {code}{verdict.detail}", flush=True)


async def run_check(args: argparse.Namespace) -> bool:
    spec = parse_spec(args.file)
    if spec.path is None:
        raise UsageError("noitu arena check takes a bot file")
    container = _container(args.no_sandbox)
    await _choose_runner(container, [spec], args.no_sandbox)
    with tempfile.TemporaryDirectory(prefix="noitu-arena-check-") as work:
        bot = await _artefact(container, spec, Path(work) / "bot")
        if isinstance(bot, ProcessFailure):
            _print_verdict(Verdict("Biên dịch / kiểm tra tệp", False, bot.code, bot.detail))
            return False
        _print_verdict(Verdict("Biên dịch / kiểm tra tệp", True, None, spec.path.name))
        opponent = await container.builtin_bots().artefact("random")
        verdicts = await container.check_bot()(
            bot, opponent, turn_limit=args.turn_limit, on_verdict=_print_verdict
        )
    return all_passed(verdicts)


def _run(coroutine_factory, args: argparse.Namespace):
    try:
        return asyncio.run(coroutine_factory(args))
    except UsageError as error:
        print(f"noitu arena: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    except (BuiltinUnavailable, BuildUnavailable) as error:
        print(f"noitu arena: {error}", file=sys.stderr)
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
    sandbox_help = "run your own trusted files without the sandbox (a warning is printed)"

    match = kinds.add_parser(
        "match", help="one match between two bots (files or builtin:random|tactical|strong)"
    )
    match.add_argument("p1", help="P1: a bot file or builtin:NAME")
    match.add_argument("p2", help="P2: a bot file or builtin:NAME")
    match.add_argument("--seed", type=int, help="the match's placement seed (default: random, printed)")
    match.add_argument("--replay", help="where to write the replay (JSON Lines)")
    match.add_argument("--turn-limit", type=int, default=DEFAULT_TURN_LIMIT,
                       help="for tests only: rooms always play 200 turns")
    match.add_argument("--no-sandbox", action="store_true", help=sandbox_help)
    match.add_argument("--quiet", action="store_true", help="no progress line")
    match.set_defaults(run=match_command)

    check = kinds.add_parser("check", help="run a bot through the self-check requests (spec A7)")
    check.add_argument("file", help="the bot file")
    check.add_argument("--no-sandbox", action="store_true", help=sandbox_help)
    check.add_argument("--turn-limit", type=int, default=DEFAULT_TURN_LIMIT,
                       help="turns of the whole matches against builtin:random")
    check.set_defaults(run=check_command)



