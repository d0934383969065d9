"""Local play's high-score tables (no TELEGRAM_BOT_TOKEN): the server's own record.

One object is both ports, as Telegram is both sides of one table: `report` is
setGameScore with force=false (a score goes in only above the player's best, and the
report says whether it did; the score is also written to the log, as local play always
did) and `table` is getGameHighScores (the top 3, and the player with two neighbours on
each side). Kept in this process's memory: local play is one process, and a restart
starts the tables afresh (docs/decisions.md). The names are not known here (the report carries none).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from noitu.adapters.noitu.logging_reporter import LoggingScoreReporter
from noitu.application.noitu.ports import HighScore
from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport

#: Rows on each side of the player that `table` adds to the top 3, as Telegram does.
NEIGHBOURS = 2
TOP = 3


@dataclass(slots=True)
class _Entry:
    user_id: int
    score: int
    reached: int  # when the score went in: the earlier of two equal scores ranks first


class LocalScoreTable:
    def __init__(self) -> None:
        self._log = LoggingScoreReporter()
        self._tables: dict[str, dict[int, _Entry]] = {}
        self._order = itertools.count()

    async def report(self, user_id: int, score: int, message: GameMessage) -> ScoreReport:
        await self._log.report(user_id, score, message)
        table = self._tables.setdefault(message.key, {})
        entry = table.get(user_id)
        if entry is not None and score <= entry.score:
            return ScoreReport(ReportState.OK)  # Telegram's BOT_SCORE_NOT_MODIFIED
        table[user_id] = _Entry(user_id, score, next(self._order))
        return ScoreReport(ReportState.OK, new_record=score > 0)

    async def table(self, user_id: int, message: GameMessage) -> list[HighScore]:
        ranked = sorted(
            self._tables.get(message.key, {}).values(), key=lambda e: (-e.score, e.reached)
        )
        shown = set(range(min(TOP, len(ranked))))
        for index, entry in enumerate(ranked):
            if entry.user_id == user_id:
                shown.update(
                    range(max(0, index - NEIGHBOURS), min(len(ranked), index + NEIGHBOURS + 1))
                )
        return [
            HighScore(index + 1, ranked[index].user_id, "", ranked[index].score)
            for index in sorted(shown)
        ]
