"""ReportRoomGame: after a game, each person's points go to the card (setGameScore,
once, above 0 only), one announcement goes to the card's topic, and the chat
leaderboard counts the game (B10 "After a game"). Runs in the background once the
game's end is written."""

from __future__ import annotations

from noitu.application.noitu.ports import ScoreReporter
from noitu.application.noitu.rooms.errors import RoomGone
from noitu.application.noitu.rooms.messages import announcement
from noitu.application.noitu.rooms.ports import ChatLeaderboard, LeaderboardEntry, RoomAnnouncer
from noitu.application.noitu.rooms.record import RoomRecord
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.session import ReportState


class ReportRoomGame:
    def __init__(
        self,
        rooms: Rooms,
        reporter: ScoreReporter,
        announcer: RoomAnnouncer,
        leaderboard: ChatLeaderboard,
    ) -> None:
        self._rooms = rooms
        self._reporter = reporter
        self._announcer = announcer
        self._leaderboard = leaderboard

    async def __call__(self, ended: RoomRecord) -> None:
        game = ended.room.game
        if game is None or not game.over:
            return
        result = game.result(self._rooms.limits.winner_bonus)
        if not result.counts:
            return
        people = [s for s in result.standings if game.player(s.seat).bot is None]
        outcome = ReportState.SKIPPED
        for standing in people:
            if standing.total <= 0:
                continue
            # A room keeps one report state for the game; no record block reads who
            # raised their best (the room's end shows the standings).
            report = await self._reporter.report(standing.user_id, standing.total, ended.card)
            if outcome is not ReportState.FAILED:
                outcome = report.state
        winner = result.winner_standing
        await self._announcer.announce(ended.card, announcement(winner.name, result.words))
        await self._leaderboard.record(
            ended.chat_id,
            [
                LeaderboardEntry(s.user_id, s.name, s.seat == result.winner, s.total)
                for s in people
            ],
        )
        try:
            async with self._rooms.open(ended.key) as work:
                record = work.record
                if record.games != ended.games or record.report is not ReportState.PENDING:
                    return
                record.report = outcome
                await work.commit()
        except RoomGone:
            return
