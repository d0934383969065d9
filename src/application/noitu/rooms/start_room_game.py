"""StartRoomGame: the host starts a game with the first 8 members (B10)."""

from __future__ import annotations

from noitu.application.noitu.errors import TooFast
from noitu.application.noitu.ports import StartRateLimiter
from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.errors import room_rules
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomView, RoomViews
from noitu.application.noitu.session import ReportState
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.room_game import BotSeat
from noitu.domain.noitu.rules import SessionLimits


class StartRoomGame:
    def __init__(
        self,
        rooms: Rooms,
        views: RoomViews,
        lexicon: Lexicon,
        bots: BotSeat,
        start_limiter: StartRateLimiter,
        session_limits: SessionLimits,
    ) -> None:
        self._rooms = rooms
        self._views = views
        self._lexicon = lexicon
        self._bots = bots
        self._start_limiter = start_limiter
        self._session_limits = session_limits

    async def __call__(self, command: MemberCommand) -> RoomView:
        async with self._rooms.open_as(command.member) as work:
            record, now = work.record, work.now_ms
            with room_rules():
                record.room.check_start(work.user_id, self._rooms.limits)
            if not await self._start_limiter.allow(work.user_id, now):
                raise TooFast(retry_after_ms=self._session_limits.start_window_ms)
            with room_rules():
                record.room.start(
                    work.user_id, self._lexicon, self._rooms.turn_clock, self._bots, now,
                    self._rooms.limits,
                )
            record.games += 1
            record.report = ReportState.NONE
            record.last_move_ms.clear()
            await work.commit()
            return self._views.of(record, work.user_id, now)
