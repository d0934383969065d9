"""What `noitu arena match` and `noitu arena check` show a bot author (in Vietnamese):
progress, the bots' stderr (files and a live view), verdicts and a series' summary.

Progress draws a bar only on a terminal; when stderr is piped it is one line a match.
Everything for the author goes to stderr, except what spec B7 and the series put on
stdout (the last JSON line, and a series' summary above it).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, TextIO

from tqdm import tqdm

from noitu.application.arena.check_bot import CaseStart, Verdict
from noitu.application.arena.play_series import OUTCOMES, Game, GameResult, SeriesResult
from noitu.application.arena.replay import Event, MatchEvents
from noitu.domain.arena.board import SIDES, Side
from noitu.domain.arena.ladder.version_check import (
    MIN_MATCHES,
    VERDICT_WORDS,
    VersionVerdict,
    judged,
    score_line,
)
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT, Result

PREFIX = "noitu arena:"
OUTCOME_WORDS = {"win": "thắng", "draw": "hòa", "loss": "thua"}
#: How many bytes of a failing bot's stderr `arena check` and a lost match show.
SHOWN_STDERR_BYTES = 4 * 1024


def say(text: str, stream: TextIO | None = None) -> None:
    """One message for the author, on stderr by default (above any progress bar)."""
    tqdm.write(f"{PREFIX} {text}", file=stream or sys.stderr)


def on_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def result_text(result: Result, names: tuple[str, str]) -> str:
    """`P1 (a.py) thắng: BASE_CAPTURED, 57 lượt`, or a draw."""
    if result.winner is None:
        head = "hòa"
    else:
        head = f"{result.winner.value} ({names[result.winner.number]}) thắng"
    text = f"{head}: {result.reason.value}, {result.turns} lượt"
    if result.failure is not None:
        failure = result.failure
        text += f"; {failure.side.value} lỗi {failure.code.value}: {failure.detail}"
    return text


def indented(data: bytes, limit: int = SHOWN_STDERR_BYTES) -> str:
    """The last `limit` bytes of a bot's output, each line behind a bar."""
    text = data[-limit:].decode("utf-8", "replace").rstrip("\n")
    return "\n".join(f"    | {line}" for line in text.splitlines())


def turn_line(event: Event) -> str:
    action = event["action"]
    assert isinstance(action, dict)
    if action["type"] == "PASS":
        move = "PASS"
    else:
        start, to = action["from"], action["to"]
        move = f"{action['pieceId']} ({start['row']},{start['col']}) → ({to['row']},{to['col']})"
    fight = event["fight"]
    if isinstance(fight, dict):
        move += f" · {fight['attacker']} {fight['result']} {fight['defender']}"
    return f"[lượt {event['turn']}] {event['player']}: {move}"


class MatchProgress:
    """A match's events: a bar on a terminal, one line at the end when piped, a line a
    turn with the live stderr view; and whatever else records them (the replay)."""

    def __init__(
        self, turn_limit: int, *, quiet: bool, turns: bool, also: MatchEvents | None = None
    ) -> None:
        self.also = also
        self.replies = {side: 0 for side in SIDES}
        self.turns = turns and not quiet
        self.bar = tqdm(
            total=turn_limit, unit="lượt", file=sys.stderr, dynamic_ncols=True,
            disable=quiet or self.turns or not on_terminal(sys.stderr),
            bar_format="{desc} {bar} {n_fmt}/{total_fmt} lượt [{elapsed}]",
        )

    def record(self, event: Event) -> None:
        if self.also is not None:
            self.also.record(event)
        if event["event"] == "received":
            self.replies[Side(event["player"])] += 1
        if event["event"] != "applied":
            return
        if self.turns:
            tqdm.write(turn_line(event), file=sys.stderr)
        fight = event["fight"]
        note = f" · {fight['attacker']} {fight['result']} {fight['defender']}" if isinstance(fight, dict) else ""
        self.bar.set_description_str(f"{event['player']}{note}", refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


class StderrView:
    """The bots' stderr as it arrives: into one file per side (`--stderr DIR`) and/or
    shown live as prefixed lines (`--show-stderr`)."""

    def __init__(
        self, directory: Path | None, live: bool, *, label: str = "", file_prefix: str = ""
    ) -> None:
        """`label` goes in the live prefix (`[ván 003 P1 stderr]`), `file_prefix` before
        the files' names (`game-003-P1.stderr.txt`)."""
        self.live = live
        self.label = label
        self.files: dict[Side, IO[bytes]] = {}
        self.paths: dict[Side, Path] = {}
        self.pending = {side: b"" for side in SIDES}
        if directory is not None:
            for side in SIDES:
                path = directory / f"{file_prefix}{side.value}.stderr.txt"
                self.paths[side] = path
                self.files[side] = path.open("wb")

    def __call__(self, side: Side, chunk: bytes) -> None:
        file = self.files.get(side)
        if file is not None:
            file.write(chunk)
            file.flush()
        if self.live:
            lines = (self.pending[side] + chunk).split(b"\n")
            self.pending[side] = lines.pop()
            for line in lines:
                self._show(side, line)

    def _show(self, side: Side, line: bytes) -> None:
        where = f"{self.label} {side.value}" if self.label else side.value
        text = line.decode("utf-8", "replace").rstrip("\r")
        tqdm.write(f"[{where} stderr] {text}", file=sys.stderr)

    def close(self) -> None:
        for side in SIDES:
            if self.live and self.pending[side]:
                self._show(side, self.pending[side])
            self.pending[side] = b""
        for file in self.files.values():
            file.close()


def seconds_text(seconds: float) -> str:
    """A duration as a Vietnamese reader writes it: "0,3 giây", "12,8 giây"."""
    return f"{seconds:.1f}".replace(".", ",") + " giây"


def print_verdict(verdict: Verdict, seconds: float | None = None) -> None:
    """A case's verdict on stdout (with how long the case took, when known)."""
    mark = "ĐẠT  " if verdict.ok else "LỖI  "
    code = f"{verdict.code.value}: " if verdict.code else ""
    took = "" if seconds is None else f" · {seconds_text(seconds)}"
    lines = [f"{mark}{verdict.case} — {code}{verdict.detail}{took}"]
    if not verdict.ok and verdict.code is not None:
        if verdict.stderr:
            lines.append(f"    stderr của bot ({SHOWN_STDERR_BYTES // 1024} KiB cuối):")
            lines.append(indented(verdict.stderr))
        else:
            lines.append("    (bot không ghi gì ra stderr)")
    if verdict.hint:
        lines.append(f"    → {verdict.hint}")
    print("\n".join(lines), flush=True)


class CheckProgress:
    """`noitu arena check` as it goes: a line on stderr as each case starts (a whole
    match says how many turns it may last), then the case's verdict on stdout with the
    time it took. stdout keeps one line a case, for a script to read."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._started = clock()

    def started(self, start: CaseStart) -> None:
        self._started = self._clock()
        limit = "" if start.turns is None else f" (tối đa {start.turns} lượt)"
        print(f"CHẠY {start.case}{limit}…", file=sys.stderr, flush=True)

    def ended(self, verdict: Verdict) -> None:
        print_verdict(verdict, self._clock() - self._started)


class SeriesProgress:
    """A series' games as they end: a bar on a terminal, one line a game when piped."""

    def __init__(self, command_games: int, names: tuple[str, str], quiet: bool) -> None:
        self.total = command_games
        self.names = names
        self.quiet = quiet
        self.bar = tqdm(
            total=command_games, unit="ván", file=sys.stderr, dynamic_ncols=True,
            disable=quiet or not on_terminal(sys.stderr),
            bar_format="{desc} {bar} {n_fmt}/{total_fmt} ván [{elapsed}]",
        )

    def __call__(self, game: GameResult) -> None:
        if self.bar.disable:
            if not self.quiet:
                say(game_line(game, self.names, self.total))
            return
        self.bar.set_description_str(f"ván {game.game.number}", refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def seat_names(game: Game, names: tuple[str, str]) -> tuple[str, str]:
    return names[game.bot_on(Side.P1)], names[game.bot_on(Side.P2)]


def game_line(game: GameResult, names: tuple[str, str], total: int) -> str:
    """`ván 3/10, seed 11, a.py (P1) đấu random (P2): P1 (a.py) thắng: …`"""
    seated = seat_names(game.game, names)
    return (
        f"ván {game.game.number}/{total}, seed {game.game.seed}, {seated[0]} (P1) đấu"
        f" {seated[1]} (P2): {result_text(game.result, seated)}"
    )


def _counts(counts: dict[str, object]) -> str:
    return f"{counts['wins']} thắng, {counts['draws']} hòa, {counts['losses']} thua"


def comparison_line(series: SeriesResult, specs: tuple[str, str]) -> str:
    """A against B as the version check says it (spec B11): "a.py so với b.py: 14 thắng,
    2 hoà, 6 thua — 68% (47–84%): tốt hơn"."""
    score = series.score()
    verdict = judged(score)
    words = VERDICT_WORDS[verdict]
    if verdict is VersionVerdict.UNCLEAR and score.matches < MIN_MATCHES:
        words += f" (cần từ {MIN_MATCHES} ván)"
    return f"{specs[0]} so với {specs[1]}: {score_line(score)}: {words}"


def print_series(
    series: SeriesResult, specs: tuple[str, str], write: Callable[[str], None] = print
) -> None:
    """The series' summary for the author (Vietnamese), one bot after the other."""
    summary = series.to_json()
    seeds = sorted({g.game.seed for g in series.games})
    sides = ", mỗi seed chơi cả hai bên" if series.command.swap_sides else ""
    write(f"Kết quả {summary['games']} ván (seed {seeds[0]}–{seeds[-1]}{sides}):")
    write(comparison_line(series, specs))
    for number, bot in enumerate(summary["bots"]):  # type: ignore[arg-type]
        write(f"{specs[number]}: {_counts(bot)}")
        write(f"  là P1: {_counts(bot['asP1'])} · là P2: {_counts(bot['asP2'])}")
        for outcome in OUTCOMES:
            reasons = bot["reasons"][outcome]
            if reasons:
                shown = ", ".join(f"{reason} {count}" for reason, count in reasons.items())
                write(f"  {OUTCOME_WORDS[outcome]} vì: {shown}")
        reply = bot["replyMs"]
        if reply["count"]:
            write(
                f"  thời gian trả lời: p50 {reply['p50']} ms, p99 {reply['p99']} ms,"
                f" lâu nhất {reply['max']} ms ({reply['count']} lần trả lời)"
            )
        else:
            write("  thời gian trả lời: chưa trả lời lần nào")
        failures = bot["failures"]
        write(f"  lỗi: {len(failures)}" if failures else "  lỗi: không có")
        for failure in failures:
            game = series.games[failure["game"] - 1].game
            p1, p2 = (specs[game.bot_on(side)] for side in SIDES)
            write(
                f"    ván {failure['game']} (seed {failure['seed']}, là {failure['side']},"
                f" lượt {failure['turn']}): {failure['code']}: {failure['detail']}"
            )
            again = f"noitu arena match {p1} {p2} --seed {failure['seed']}"
            if series.command.turn_limit != DEFAULT_TURN_LIMIT:
                again += f" --turn-limit {series.command.turn_limit}"
            write(f"      chạy lại: {again}")
