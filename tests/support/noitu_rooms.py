"""The group rooms' use cases wired over the memory adapters (or any given store,
credentials and feed: the Redis ones in the contract tests) and hand-written fakes, for
tests that need no HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from noitu.adapters.noitu.memory_rooms import (
    InMemoryChatLeaderboard,
    InMemoryMemberCredentials,
    InMemoryRoomFeed,
    InMemoryRoomStore,
)
from noitu.adapters.noitu.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.noitu.token_signer import HmacTokenSigner
from noitu.application.noitu.rooms.add_room_bot import AddRoomBot
from noitu.application.noitu.rooms.commands import MemberCommand
from noitu.application.noitu.rooms.follow_room import FollowRoom
from noitu.application.noitu.rooms.give_up_in_room import GiveUpInRoom
from noitu.application.noitu.rooms.join_room import JoinRoom
from noitu.application.noitu.rooms.leave_room import LeaveRoom
from noitu.application.noitu.rooms.pages import RENEW_EVERY_MS, LivePages
from noitu.application.noitu.rooms.play_room_move import PlayRoomMove
from noitu.application.noitu.rooms.renew_room_pages import RenewRoomPages
from noitu.application.noitu.rooms.report_room_game import ReportRoomGame
from noitu.application.noitu.rooms.settle_room_turns import CloseIdleRooms, SettleRoomTurns
from noitu.application.noitu.rooms.start_room_game import StartRoomGame
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import RoomViews
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.room import RoomLimits
from noitu.domain.noitu.room_game import BotSeat
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter

SECRET = b"k" * 32


class Feed:
    """A page's live feed in a test: what it received, read one message at a time."""

    def __init__(self, messages: AsyncGenerator[Any, None]) -> None:
        self._messages = messages
        self._pending: asyncio.Future[Any] | None = None
        self.received: list[Any] = []
        self.ended = False

    def _waiting(self) -> asyncio.Future[Any]:
        if self._pending is None:
            self._pending = asyncio.ensure_future(anext(self._messages))
        return self._pending

    async def next(self, timeout_s: float = 1.0) -> Any:
        """The next message, or None once the feed has ended."""
        done, _ = await asyncio.wait({self._waiting()}, timeout=timeout_s)
        if not done:
            raise TimeoutError("no message came")
        arrived, self._pending = done.pop(), None
        try:
            message = arrived.result()
        except StopAsyncIteration:
            self.ended = True
            return None
        self.received.append(message)
        return message

    async def quiet(self) -> bool:
        """Whether nothing comes for a moment, the feed still open (what comes later is
        the next message)."""
        waiting = self._waiting()
        for _ in range(20):
            await asyncio.sleep(0)
        return not waiting.done()

    async def close(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await self._pending
        await self._messages.aclose()


@dataclass
class RecordingAnnouncer:
    texts: list[tuple[GameMessage, str]] = field(default_factory=list)

    async def announce(self, card: GameMessage, text: str) -> None:
        self.texts.append((card, text))


class RoomWorld:
    def __init__(
        self, lexicon: Lexicon, clock: FakeClock, limits: RoomLimits = RoomLimits(), *,
        store: Any = None, credentials: Any = None, feed: Any = None,
    ):
        self.clock = clock
        self.limits = limits
        self.signer = HmacTokenSigner(SECRET)
        self.store = store or InMemoryRoomStore()
        self.credentials = credentials or InMemoryMemberCredentials()
        self.feed = feed or InMemoryRoomFeed()
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
        bots = self.bots = BotSeat(make_opponents(BotIndex(lexicon)), random.Random(5))
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
        self.close_idle = CloseIdleRooms(self.rooms, bots)
        self.pages = LivePages()
        self.feeds: list[Feed] = []
        self.follow = FollowRoom(self.rooms, views, self.feed, self.pages, random.Random(3),
                                 retry_s=0)
        self.renew = RenewRoomPages(self.rooms, self.pages)

    async def open_feed(self, member: str) -> Feed:
        """A page holding the member's live feed: its first message is read."""
        feed = Feed(await self.follow(MemberCommand(member)))
        self.feeds.append(feed)
        await feed.next()
        return feed

    async def close_feeds(self) -> None:
        """Close what a test left open (the pages are gone with the test)."""
        for feed in self.feeds:
            await feed.close()

    async def pass_time(self, ms: int) -> int:
        """Let `ms` pass as a server would: its feeds renew their holds every
        `RENEW_EVERY_MS`, and what comes due is settled; answers the rooms changed."""
        changed = 0
        while ms > 0:
            step = min(ms, RENEW_EVERY_MS)
            self.clock.advance(step)
            ms -= step
            await self.renew()
            changed += await self.settle()
        return changed

    async def key_of(self, member: str) -> str:
        seat = await self.credentials.find(member)
        assert seat is not None
        return seat.room_key

    def token(
        self, user_id: int, name: str = "", *, chat_id: int = -100, message_id: int = 7,
        room: bool = True, topic_id: int | None = None,
    ) -> str:
        message = GameMessage(chat_id=chat_id, message_id=message_id, topic_id=topic_id)
        ticket = Ticket(user_id, name or f"U{user_id}", message,
                        self.clock.now // 1000 + 3600, room=room)
        return self.signer.issue(ticket)
