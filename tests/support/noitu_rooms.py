"""The group rooms' use cases wired over the memory adapters and hand-written fakes, for
tests that need no HTTP."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from noitu.adapters.memory_rooms import (
    InMemoryChatLeaderboard,
    InMemoryMemberCredentials,
    InMemoryRoomFeed,
    InMemoryRoomStore,
)
from noitu.adapters.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.token_signer import HmacTokenSigner
from noitu.application.noitu.rooms.add_room_bot import AddRoomBot
from noitu.application.noitu.rooms.give_up_in_room import GiveUpInRoom
from noitu.application.noitu.rooms.join_room import JoinRoom
from noitu.application.noitu.rooms.leave_room import LeaveRoom
from noitu.application.noitu.rooms.play_room_move import PlayRoomMove
from noitu.application.noitu.rooms.report_room_game import ReportRoomGame
from noitu.application.noitu.rooms.settle_room_turns import CloseIdleRooms, SettleRoomTurns
from noitu.application.noitu.rooms.start_room_game import StartRoomGame
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomViews
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.room import BotSeat, RoomLimits
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter

SECRET = b"k" * 32


@dataclass
class RecordingAnnouncer:
    texts: list[tuple[GameMessage, str]] = field(default_factory=list)

    async def announce(self, card: GameMessage, text: str) -> None:
        self.texts.append((card, text))


class RoomWorld:
    def __init__(self, lexicon: Lexicon, clock: FakeClock, limits: RoomLimits = RoomLimits()):
        self.clock = clock
        self.limits = limits
        self.signer = HmacTokenSigner(SECRET)
        self.store = InMemoryRoomStore()
        self.credentials = InMemoryMemberCredentials()
        self.feed = InMemoryRoomFeed()
        self.background = CollectingBackground()
        self.reporter = RecordingScoreReporter()
        self.announcer = RecordingAnnouncer()
        self.leaderboard = InMemoryChatLeaderboard()
        session_limits = SessionLimits()
        turn_clock = TurnClock()
        self.rooms = Rooms(
            self.store, self.credentials, self.feed, self.background, clock, limits, turn_clock
        )
        self.rooms.on_game_end(
            ReportRoomGame(self.rooms, self.reporter, self.announcer, self.leaderboard)
        )
        views = self.views = RoomViews(limits, turn_clock)
        bots = BotSeat(make_opponents(BotIndex(lexicon)), random.Random(5))
        limiter = InMemoryStartLimiter(session_limits)
        self.join = JoinRoom(
            self.rooms, views, self.signer, limiter, session_limits, random.Random(2)
        )
        self.start = StartRoomGame(self.rooms, views, lexicon, bots, limiter, session_limits)
        self.add_bot = AddRoomBot(self.rooms, views)
        self.move = PlayRoomMove(self.rooms, views, bots)
        self.give_up = GiveUpInRoom(self.rooms, views, bots)
        self.leave = LeaveRoom(self.rooms, views, bots)
        self.settle = SettleRoomTurns(self.rooms, bots)
        self.close_idle = CloseIdleRooms(self.rooms)

    def token(
        self, user_id: int, name: str = "", *, chat_id: int = -100, message_id: int = 7,
        room: bool = True, topic_id: int | None = None,
    ) -> str:
        message = GameMessage(chat_id=chat_id, message_id=message_id, topic_id=topic_id)
        ticket = Ticket(user_id, name or f"U{user_id}", message,
                        self.clock.now // 1000 + 3600, room=room)
        return self.signer.issue(ticket)
