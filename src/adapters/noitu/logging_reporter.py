"""A score reporter that only writes the score to the log (local play mode). It keeps no
table, so it never says a score raised a best."""

from __future__ import annotations

import structlog

from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport

log = structlog.get_logger("noitu.scores")


class LoggingScoreReporter:
    async def report(self, user_id: int, score: int, message: GameMessage) -> ScoreReport:
        log.info("score", user_id=user_id, score=score, game_message=message.key)
        return ScoreReport(ReportState.OK)
