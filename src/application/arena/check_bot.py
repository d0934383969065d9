"""CheckBot: the self-check of spec A7, done for the author (`noitu arena check FILE`).

The bot answers a set of fixed requests — P1 and P2, a PASS-only request, moves to an
empty square, won, lost and same-type attacks — each in a fresh process with the first
request's 25 s, and then plays whole matches against the built-in `random` bot, as P1
and as P2, under the real clock. Each case gets a verdict with the code a match on the
server would give (B3).

A failing verdict carries the last bytes the bot wrote to stderr (a crash's traceback).
A single request that gets no reply line at all (TIMEOUT) ends the check at once with
what to look at: such a bot would only time out again on every later request, 25 s
each.

Progress: `on_start` hears of each case as it starts (a whole match can take tens of
seconds, and the author should not stare at a silent terminal), `on_verdict` as it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from noitu.application.arena.judge import Accepted, judge
from noitu.application.arena.ports import Artefact, BotLauncher, ProcessFailure
from noitu.application.arena.protocol import TurnRequest, turn_request, your_turn
from noitu.application.arena.replay import Event, Player, SeatKind
from noitu.application.arena.run_match import BotSeat, MatchCommand, RunMatch, Timing
from noitu.domain.arena.actions import PASS
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import DEFAULT_TURN_LIMIT, Match

CHECK_MATCH_ID = "CHECK000"
CHECK_SEED = 20261201
#: What to look at when a request got no reply line (a TIMEOUT on a single request).
SILENT_HINT = (
    "Bot chưa gửi trọn một dòng trả lời nào. Hãy kiểm tra: bot đọc stdin từng dòng một "
    "(không đợi hết stdin), mỗi câu trả lời kết thúc bằng ký tự xuống dòng, và stdout được "
    "flush ngay sau mỗi dòng (Python: print(..., flush=True); C++: std::endl hoặc "
    "std::flush; Java: System.out.flush())."
)
SKIPPED = "Các bài còn lại đã được bỏ qua."



@dataclass(frozen=True, slots=True)
class CaseStart:
    """A case about to run: its name (as its verdict will say it) and, for a whole
    match, the most turns it can last (None for a single request)."""

    case: str
    turns: int | None = None


def match_case(side: Side) -> str:
    return f"Cả một trận với bot random, bot là {side.value}"


@dataclass(frozen=True, slots=True)
class Verdict:
    case: str  # what was asked, in Vietnamese
    ok: bool
    code: FailureCode | None = None
    detail: str = ""  # the failure, or what the bot answered
    stderr: bytes = b""  # a failing case: the last bytes of the bot's stderr
    hint: str = ""  # what to look at, when the failure says it plainly


def _position(side: Side, pieces: dict[str, tuple[int, int]]) -> TurnRequest:
    turn = 0 if side is Side.P1 else 1  # as a side's first request in a match
    return your_turn(Match.in_position(CHECK_MATCH_ID, pieces, current_player=side, turn=turn))


def fixtures() -> list[tuple[str, TurnRequest]]:
    """The fixed requests, in the order they are tried."""
    opening = Match.between_bots(CHECK_MATCH_ID, CHECK_SEED)
    p1_first = your_turn(opening)
    pass_only = turn_request(
        CHECK_MATCH_ID, Side.P1, p1_first.sequence, 0, opening.board_for(Side.P1), [PASS]
    )
    opening.apply(opening.legal_actions()[0])
    p2_first = your_turn(opening)
    far = {"P2-PAPER-1": (0, 4), "P2-SCISSORS-6": (1, 7)}
    return [
        ("P1, lượt đầu tiên của trận", p1_first),
        ("P2, lượt đầu tiên của trận", p2_first),
        ("Chỉ được PASS", pass_only),
        ("Chỉ có nước đi vào ô trống", _position(Side.P1, {"P1-ROCK-1": (6, 2), **far})),
        ("Có nước tấn công thắng", _position(Side.P1, {"P1-ROCK-1": (4, 4), "P2-SCISSORS-1": (3, 4), **far})),
        ("Có nước tấn công thua", _position(Side.P1, {"P1-ROCK-1": (4, 4), "P2-PAPER-2": (3, 4), **far})),
        ("Có nước tấn công hòa", _position(Side.P1, {"P1-ROCK-1": (4, 4), "P2-ROCK-1": (3, 5), **far})),
        (
            "P2 tấn công, tọa độ không xoay",
            _position(Side.P2, {"P2-PAPER-1": (2, 6), "P1-ROCK-3": (3, 5), "P1-SCISSORS-1": (7, 1)}),
        ),
    ]


def _describe_action(request: TurnRequest, verdict: Accepted) -> str:
    action = verdict.action.to_json()
    if action["type"] == "PASS":
        return "PASS"
    to = action["to"]
    return f"{action['pieceId']} → ({to['row']},{to['col']})"  # type: ignore[index]


class _Discard:
    def record(self, event: Event) -> None:
        return None


class CheckBot:
    def __init__(self, launcher: BotLauncher, timing: Timing = Timing()) -> None:
        self._launcher = launcher
        self._timing = timing

    async def __call__(
        self,
        bot: Artefact,
        opponent: Artefact,
        *,
        turn_limit: int = DEFAULT_TURN_LIMIT,
        on_start: Callable[[CaseStart], None] = lambda _: None,
        on_verdict: Callable[[Verdict], None] = lambda _: None,
    ) -> list[Verdict]:
        verdicts: list[Verdict] = []
        for case, request in fixtures():
            on_start(CaseStart(case))
            verdict = await self._one_request(case, bot, request)
            verdicts.append(verdict)
            on_verdict(verdict)
            if verdict.code is FailureCode.TIMEOUT:
                return verdicts  # silent: every later request would wait as long
        for side in (Side.P1, Side.P2):
            on_start(CaseStart(match_case(side), turn_limit))
            verdict = await self._whole_match(side, bot, opponent, turn_limit)
            verdicts.append(verdict)
            on_verdict(verdict)
        return verdicts

    async def _one_request(self, case: str, bot: Artefact, request: TurnRequest) -> Verdict:
        process = await self._launcher.launch(bot)
        if isinstance(process, ProcessFailure):
            return Verdict(case, False, process.code, process.detail)
        try:
            reply = await process.ask(request.line, self._timing.first_request_s)
        finally:
            await process.close()
        stderr = process.stderr_tail()
        if isinstance(reply, ProcessFailure):
            hint = f"{SILENT_HINT} {SKIPPED}" if reply.code is FailureCode.TIMEOUT else ""
            return Verdict(case, False, reply.code, reply.detail, stderr, hint)
        verdict = judge(reply.line, request)
        if isinstance(verdict, Accepted):
            return Verdict(case, True, None, f"{_describe_action(request, verdict)}, {reply.ms} ms")
        return Verdict(case, False, verdict.code, verdict.detail, stderr)

    async def _whole_match(
        self, side: Side, bot: Artefact, opponent: Artefact, turn_limit: int
    ) -> Verdict:
        mine = BotSeat(Player(side, "bot", SeatKind.UPLOAD), bot)
        theirs = BotSeat(Player(side.other, "random", SeatKind.BUILTIN), opponent)
        seats = (mine, theirs) if side is Side.P1 else (theirs, mine)
        command = MatchCommand(CHECK_MATCH_ID, CHECK_SEED, seats, turn_limit)
        outcome = await RunMatch(self._launcher, self._timing)(command, _Discard())
        result = outcome.result
        case = match_case(side)
        failure = result.failure
        if failure is not None and failure.side is side:
            stderr = outcome.stderr[side.number]
            return Verdict(case, False, failure.code, f"lượt {result.turns}: {failure.detail}", stderr)
        if failure is not None:
            return Verdict(case, False, None, f"bot random lỗi ({failure.code}): {failure.detail}")
        outcome_text = {None: "hòa", side: "thắng"}.get(result.winner, "thua")
        return Verdict(case, True, None, f"{result.turns} lượt, {outcome_text} ({result.reason.value})")


def all_passed(verdicts: list[Verdict]) -> bool:
    return all(v.ok for v in verdicts)

