"""GetRecord: the end screen's record block (spec B12).

Once a game is over and its score reported, the block says the player's best on this
game message and their place in its table, the table's top 3, whether this game set a
new record, and this game's best word. The table comes from the `HighScores` port
(Telegram's getGameHighScores, or the local record in local play), asked once the score
report is done and never for longer than `RECORD_WAIT_S`: a table that fails or does
not come in time makes the answer `unavailable`, and the page hides the block. The page
shows the result first and asks for this block beside it, so the result never waits.

A finished answer (`ready` or `unavailable`) is kept per session, so a page asking
again does not ask Telegram again.
"""

from __future__ import annotations

import enum

import msgspec

from noitu.application.noitu.commands import SessionCommand
from noitu.application.noitu.ports import HighScore, HighScores, HighScoresUnavailable
from noitu.application.noitu.session import ReportState, Session
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.application.ports import TimeLimit
from noitu.domain.noitu.chain import Link, Side

#: How long the table may take (B12: "hides the block after 3 s"); the page waits as long.
RECORD_WAIT_S = 3.0
#: The rows of the table the block shows.
TOP_ROWS = 3
KEPT_ANSWERS = 4096


class RecordStatus(str, enum.Enum):
    PENDING = "pending"  # the game goes on or its score is still being reported: ask again
    READY = "ready"
    UNAVAILABLE = "unavailable"  # the table failed or was late: no block


class TopScoreView(msgspec.Struct, frozen=True):
    place: int
    name: str  # "" when the table does not know it
    score: int
    you: bool


class BestWordView(msgspec.Struct, frozen=True):
    word: str
    points: int


class RecordView(msgspec.Struct, frozen=True):
    best: int  # the player's best on this game message (0: not on the table)
    place: int  # the player's place in its table (0: not on it)
    new_record: bool  # this game's score went in above the player's best before it
    top: list[TopScoreView]
    best_word: BestWordView | None  # None when the player played no word


class RecordAnswer(msgspec.Struct, frozen=True):
    status: RecordStatus
    record: RecordView | None = None


PENDING = RecordAnswer(RecordStatus.PENDING)
UNAVAILABLE = RecordAnswer(RecordStatus.UNAVAILABLE)


class GetRecord:
    def __init__(
        self,
        sessions: Sessions,
        high_scores: HighScores,
        time_limit: TimeLimit,
        wait_s: float = RECORD_WAIT_S,
        kept_answers: int = KEPT_ANSWERS,
    ) -> None:
        self._sessions = sessions
        self._high_scores = high_scores
        self._time_limit = time_limit
        self._wait_s = wait_s
        self._limit = kept_answers
        self._answers: dict[str, RecordAnswer] = {}

    async def __call__(self, command: SessionCommand) -> RecordAnswer:
        kept = self._answers.get(command.session)
        if kept is not None:
            return kept
        session = await self._sessions.change(command.session, _read, touch=False)
        if session.is_playing or session.report in (ReportState.NONE, ReportState.PENDING):
            return PENDING
        answer = await self._answer(session)
        self._answers[session.id] = answer
        if len(self._answers) > self._limit:
            del self._answers[next(iter(self._answers))]
        return answer

    async def _answer(self, session: Session) -> RecordAnswer:
        if session.report is ReportState.FAILED:
            return UNAVAILABLE  # the table would not hold this game: no record to show
        try:
            rows = await self._time_limit.within(
                self._wait_s, self._high_scores.table(session.user_id, session.ticket.message)
            )
        except (HighScoresUnavailable, TimeoutError):
            return UNAVAILABLE
        return RecordAnswer(RecordStatus.READY, record_of(session, rows))


def _read(work: SessionWork) -> Session:
    return work.session


def record_of(session: Session, rows: list[HighScore]) -> RecordView:
    """The block from the table's rows: the player's row, the top 3, the record."""
    user = session.user_id
    own = next((row for row in rows if row.user_id == user), None)
    score = session.game.score
    # The report says it: the table, read after this game's score went in, shows an
    # earlier game of the same score as this one's best too.
    new_record = score > 0 and session.report is ReportState.OK and session.new_record
    top = sorted((row for row in rows if row.position <= TOP_ROWS), key=lambda r: r.position)
    return RecordView(
        best=own.score if own else 0,
        place=own.position if own else 0,
        new_record=new_record,
        top=[
            TopScoreView(
                row.position,
                row.name or (session.ticket.first_name if row.user_id == user else ""),
                row.score,
                row.user_id == user,
            )
            for row in top[:TOP_ROWS]
        ],
        best_word=best_word(session.game.chain.links),
    )


def best_word(links: list[Link] | tuple[Link, ...]) -> BestWordView | None:
    """The player's word with the most points in this game; on a tie, the earlier."""
    best: Link | None = None
    for link in links:
        if link.by is Side.PLAYER and (best is None or link.points > best.points):
            best = link
    return BestWordView(best.word.text, best.points) if best else None
