"""ReplayRequests: a recorded match's requests fed to a new build (spec B12, `noitu arena
replay-requests REPLAY --side P1|P2 BOT`).

One side's `sent` lines are written, in their order and as they were recorded, to a
fresh process of the bot under the real clock (the first request 25 s, the others 2 s).
Each reply is judged against the request it answers, exactly as in a match; the action
it takes is compared with the one the rules applied in the recorded match (or, where
the recorded bot failed or the match ended before, with nothing: any answer differs).
A failure (a B3 code) ends the run at its turn. The recorded match goes on regardless
of what the new build answers: this says where the new build would have played
differently, not how its match would have gone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from noitu.application.arena.judge import Rejected, judge
from noitu.application.arena.ports import Artefact, BotLauncher, ProcessFailure
from noitu.application.arena.protocol import TurnRequest, request_from_line
from noitu.application.arena.run_match import Timing
from noitu.domain.arena.board import Side


class UnusableReplay(ValueError):
    """The replay cannot be fed to a bot (the message says why, in Vietnamese)."""


@dataclass(frozen=True, slots=True)
class RecordedTurn:
    request: TurnRequest  # the recorded line, read back
    action: Mapping[str, object] | None  # what the rules applied; None if nothing was


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    turn: RecordedTurn
    action: Mapping[str, object] | None  # the new build's action, when it was accepted
    failure: ProcessFailure | Rejected | None  # or why not (B3's code; the run ends)
    ms: int | None  # the new reply's time, when there was one

    @property
    def differs(self) -> bool:
        return self.failure is not None or self.action != self.turn.action


@dataclass(frozen=True, slots=True)
class RequestsReplayed:
    answers: tuple[TurnAnswer, ...]  # one a request sent, in order
    requests: int  # how many the replay holds for the side

    @property
    def differing(self) -> int:
        return sum(answer.differs for answer in self.answers)

    @property
    def failure(self) -> TurnAnswer | None:
        last = self.answers[-1] if self.answers else None
        return last if last is not None and last.failure is not None else None


def recorded_turns(events: Iterable[Mapping[str, object]], side: Side) -> list[RecordedTurn]:
    """`side`'s requests in a replay's events, each with the action the rules then
    applied for it (UnusableReplay when there is nothing to send)."""
    turns: list[RecordedTurn] = []
    pending: TurnRequest | None = None
    played = 0
    for number, event in enumerate(events, start=1):
        kind = event.get("event")
        if event.get("player") != side.value:
            continue
        if kind == "sent":
            if pending is not None:
                turns.append(RecordedTurn(pending, None))
            line = event.get("line")
            if not isinstance(line, str):
                raise UnusableReplay(f"Sự kiện thứ {number} (sent) không có dòng yêu cầu.")
            try:
                pending = request_from_line(line)
            except ValueError as error:
                raise UnusableReplay(f"Sự kiện thứ {number} (sent): {error}.") from None
        elif kind == "applied":
            played += 1
            action = event.get("action")
            if pending is not None and isinstance(action, Mapping):
                turns.append(RecordedTurn(pending, action))
                pending = None
    if pending is not None:
        turns.append(RecordedTurn(pending, None))
    if not turns:
        if played:
            raise UnusableReplay(
                f"Bản ghi này có nước đi của {side.value} nhưng không có dòng yêu cầu nào"
                " (trận bị bỏ dở khi máy chạy trận mất liên lạc, ABANDONED, chỉ giữ các nước"
                " đi): không có gì để gửi lại cho bot."
            )
        raise UnusableReplay(
            f"Bản ghi này không có yêu cầu nào gửi cho {side.value} (bên này là người chơi,"
            " hoặc trận kết thúc trước lượt đầu của bên này)."
        )
    return turns


class ReplayRequests:
    def __init__(self, launcher: BotLauncher, timing: Timing = Timing()) -> None:
        self._launcher = launcher
        self._timing = timing

    async def __call__(
        self,
        turns: list[RecordedTurn],
        bot: Artefact,
        on_answer: Callable[[TurnAnswer], None] = lambda _: None,
    ) -> RequestsReplayed:
        answers: list[TurnAnswer] = []

        def answered(answer: TurnAnswer) -> None:
            answers.append(answer)
            on_answer(answer)

        process = await self._launcher.launch(bot)
        if isinstance(process, ProcessFailure):
            answered(TurnAnswer(turns[0], None, process, None))
            return RequestsReplayed(tuple(answers), len(turns))
        try:
            for number, turn in enumerate(turns):
                timeout = self._timing.request_s if number else self._timing.first_request_s
                reply = await process.ask(turn.request.line, timeout)
                if isinstance(reply, ProcessFailure):
                    answered(TurnAnswer(turn, None, reply, None))
                    break
                verdict = judge(reply.line, turn.request)
                if isinstance(verdict, Rejected):
                    answered(TurnAnswer(turn, None, verdict, reply.ms))
                    break
                answered(TurnAnswer(turn, verdict.action.to_json(), None, reply.ms))
        finally:
            await process.close()
        return RequestsReplayed(tuple(answers), len(turns))
