"""`noitu arena replay-requests REPLAY --side P1|P2 BOT` (spec B12): a recorded match's
requests fed to a new build, to see where it answers differently.

    noitu arena replay-requests match.jsonl --side P1 mybot.py [--no-sandbox]

REPLAY is a replay as the server serves it or `noitu arena match --replay` writes it
(JSON Lines; a stored `.jsonl.zst` reads too). BOT is built and run as `noitu arena
match` runs it (the sandbox, the real clock). Per turn where the answers differ, a line
on stdout: the recorded action, the new one and the new reply's time; a failure (a B3
code) is told at its turn and ends the run; then how many answers differ. Exit 0 when
the run went through every request (whatever differs), 1 when the new build did not
build or failed, 2 for a replay or a command line it cannot use.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Mapping
from pathlib import Path

import msgspec

from noitu.adapters.arena import replay_codec
from noitu.application.arena.ports import ProcessFailure
from noitu.application.arena.replay_requests import (
    RecordedTurn,
    RequestsReplayed,
    TurnAnswer,
    UnusableReplay,
    recorded_turns,
)
from noitu.application.arena.run_match import Timing
from noitu.domain.arena.board import Side
from noitu.entrypoints.cli.arena import (
    SANDBOX_HELP,
    UsageError,
    _artefact,
    _check_runner,
    _run,
    _session,
    parse_spec,
)
from noitu.entrypoints.cli.arena_view import say

_decode_event = msgspec.json.Decoder(dict[str, object]).decode


def read_events(path: Path) -> list[dict[str, object]]:
    """The replay's events (UsageError, saying where, for a file that is not one)."""
    try:
        data = replay_codec.plain(path.read_bytes())
    except OSError as error:
        raise UsageError(f"{path}: không đọc được tệp ({error.strerror})") from None
    except Exception as error:  # noqa: BLE001 - a broken zstd frame, whatever the library says
        raise UsageError(f"{path}: không giải nén được bản ghi ({error})") from None
    events = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            events.append(_decode_event(line))
        except msgspec.DecodeError as error:
            raise UsageError(f"{path}: dòng {number} không phải một sự kiện JSON ({error})") from None
    return events


def action_text(action: Mapping[str, object] | None) -> str:
    """"P1-ROCK-2 (5,3) → (4,3)", "PASS", or what stands for no action."""
    if action is None:
        return "không có nước nào"
    if action.get("type") == "PASS":
        return "PASS"
    origin, target = action.get("from"), action.get("to")
    if isinstance(origin, Mapping) and isinstance(target, Mapping):
        return (
            f"{action.get('pieceId')} ({origin.get('row')},{origin.get('col')})"
            f" → ({target.get('row')},{target.get('col')})"
        )
    return str(action)


def _where(turn: RecordedTurn) -> str:
    return f"lượt {turn.request.turn} (sequence {turn.request.sequence})"


def answer_line(answer: TurnAnswer) -> str | None:
    """The line for a turn whose answer differs (None when it is the same)."""
    if not answer.differs:
        return None
    before = action_text(answer.turn.action)
    if answer.failure is not None:
        return (
            f"{_where(answer.turn)}: trước {before} · bây giờ lỗi {answer.failure.code.value}:"
            f" {answer.failure.detail}"
        )
    return (
        f"{_where(answer.turn)}: trước {before} · bây giờ {action_text(answer.action)}"
        f" · {answer.ms} ms"
    )


def summary_line(result: RequestsReplayed) -> str:
    sent = len(result.answers)
    failed = result.failure
    if failed is not None and failed.failure is not None:
        return (
            f"Dừng ở {_where(failed.turn)} vì {failed.failure.code.value}: khác nhau ở"
            f" {result.differing}/{sent} lượt đã gửi (bản ghi có {result.requests} lượt)."
        )
    if result.differing == 0:
        return f"Giống hệt ở cả {sent} lượt."
    return f"Khác nhau ở {result.differing}/{sent} lượt."


async def run_replay_requests(args: argparse.Namespace) -> bool:
    side = Side(args.side)
    spec = parse_spec(args.bot)
    replay = Path(args.replay)
    try:
        turns = recorded_turns(read_events(replay), side)
    except UnusableReplay as error:
        raise UsageError(f"{replay}: {error}") from None
    async with _session(args.no_sandbox, build_cache=True) as run:
        _check_runner(run.container, [spec], args.no_sandbox)
        with tempfile.TemporaryDirectory(prefix="noitu-arena-replay-requests-") as work:
            bot = await _artefact(run, spec, Path(work) / "bot")
            if isinstance(bot, ProcessFailure):
                return False
            timing = Timing()
            say(
                f"gửi lại {len(turns)} yêu cầu của {side.value} trong {replay.name} cho"
                f" {spec.text} (yêu cầu đầu {timing.first_request_s:g} giây, sau đó"
                f" {timing.request_s:g} giây)"
            )

            def show(answer: TurnAnswer) -> None:
                line = answer_line(answer)
                if line is not None:
                    print(line, flush=True)

            result = await run.container.replay_requests()(turns, bot, on_answer=show)
    print(summary_line(result), flush=True)
    return result.failure is None


def replay_requests_command(args: argparse.Namespace) -> None:
    went_through = _run(run_replay_requests, args)
    raise SystemExit(0 if went_through else 1)


def add_replay_requests_parser(kinds: argparse._SubParsersAction) -> None:
    command = kinds.add_parser(
        "replay-requests",
        help="send one side's recorded requests to a bot and show where its answers differ"
             " (spec B12)",
    )
    command.add_argument("replay", help="a replay file (JSON Lines, as served or written)")
    command.add_argument("--side", required=True, choices=[side.value for side in Side],
                         help="whose requests to send")
    command.add_argument("bot", help="the bot: a file or builtin:NAME")
    command.add_argument("--no-sandbox", action="store_true", help=SANDBOX_HELP)
    command.set_defaults(run=replay_requests_command)
