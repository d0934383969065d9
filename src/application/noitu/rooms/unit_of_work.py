"""The one way a room use case changes a room: open it under its lock, change it,
commit. A commit applies the presence rules (B10 revised: who left by being away, who
hosts), writes the room with when it next has something due, revokes the credentials
of members who left, tells the live feed when something the members see changed, and
when the write records a game's end (its report moves to "pending" in the same write)
starts the after-game reporting: only the instance that wrote the ending reports it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from noitu.application.noitu.rooms.errors import (
    Busy,
    GameError,
    NoGame,
    NoMember,
    RoomGone,
    room_rules,
)
from noitu.application.noitu.rooms.ports import MemberCredentials, RoomFeed, RoomStore
from noitu.application.noitu.rooms.record import MemberSeat, RoomRecord
from noitu.application.noitu.session import ReportState
from noitu.application.ports import Background, Clock
from noitu.domain.noitu.room import Room, RoomLimits
from noitu.domain.noitu.room_game import BotSeat, Player, RoomGame
from noitu.domain.noitu.rules import TurnClock

AfterGame = Callable[[RoomRecord], Awaitable[None]]


class RoomWork:
    """One room opened under its lock, the time it was opened at, and who asks."""

    def __init__(self, rooms: Rooms, record: RoomRecord, now_ms: int, user_id: int) -> None:
        self._rooms = rooms
        self.record = record
        self.now_ms = now_ms
        self.user_id = user_id

    @property
    def room(self) -> Room:
        return self.record.room

    async def commit(self, *, notify: bool = True) -> None:
        """Write the room; `notify=False` when nothing the members see changed (a refused
        word, a feed's hold), so no feed sends anything for it."""
        await self._rooms.commit(self.record, self.now_ms, notify=notify)

    async def settled_player(
        self, bots: BotSeat, check: Callable[[RoomGame, int], Player]
    ) -> tuple[RoomGame, Player, bool]:
        """The running game after the turns that ran out are settled, the asker's player
        if `check` lets them act, and whether settling changed the room; a refusal
        still keeps what settling changed."""
        game = self.record.room.game
        if game is None:
            raise NoGame()
        settled = game.settle(self.now_ms, bots)
        try:
            with room_rules():
                return game, check(game, self.user_id), settled
        except GameError:
            if settled:
                await self.commit()
            raise

    async def close(self) -> None:
        """The room closes (no member and no game for a while): it leaves the store."""
        await self._rooms.close(self.record)


class Rooms:
    def __init__(
        self,
        store: RoomStore,
        credentials: MemberCredentials,
        feed: RoomFeed,
        background: Background,
        clock: Clock,
        limits: RoomLimits,
        turn_clock: TurnClock,
    ) -> None:
        self.store = store
        self.credentials = credentials
        self._feed = feed
        self._background = background
        self._clock = clock
        self.limits = limits
        self.turn_clock = turn_clock
        self._after_game: AfterGame | None = None

    def on_game_end(self, after_game: AfterGame) -> None:
        """What runs in the background once a game's end is written (the reporting)."""
        self._after_game = after_game

    def now_ms(self) -> int:
        return self._clock.now_ms()

    async def seat_of(self, credential: str) -> MemberSeat:
        seat = await self.credentials.find(credential) if credential else None
        if seat is None:
            raise NoMember()
        return seat

    @asynccontextmanager
    async def open_as(self, credential: str) -> AsyncIterator[RoomWork]:
        """The member's room under its lock: `no_member`, then `room_gone`."""
        seat = await self.seat_of(credential)
        async with self.open(seat.room_key, seat.user_id) as work:
            if work.room.member(seat.user_id) is None:
                raise NoMember()
            yield work

    @asynccontextmanager
    async def open(self, key: str, user_id: int = 0) -> AsyncIterator[RoomWork]:
        async with self.store.lock(key):
            record = await self.store.get(key)
            if record is None:
                raise RoomGone()
            yield RoomWork(self, record, self._clock.now_ms(), user_id)

    async def commit(self, record: RoomRecord, now_ms: int, *, notify: bool = True) -> None:
        review = record.room.review(now_ms, self.limits)
        for user_id in review.left:
            record.forget(user_id)
        notify = notify or review.changed
        if notify:
            record.last_active_ms = now_ms  # the last change the members saw
        ended = self._mark_ended(record)
        await self.store.save(record, record.due_ms(now_ms, self.limits))
        for user_id in review.left:
            await self.credentials.revoke(MemberSeat(record.key, user_id))
        if notify:
            try:
                await self._feed.publish(record.key)
            except Busy:
                # The change is written: the request succeeded. Feeds catch up at the
                # next change, and a page that reconnects gets the full view.
                pass
        if ended and self._after_game is not None:
            self._background.spawn(self._after_game(record.copy()))

    async def close(self, record: RoomRecord) -> None:
        """Remove a room with what is left of its members' credentials, and wake its
        feeds (they end: the room is gone)."""
        await self.store.remove(record.key)
        for member in record.room.people:
            await self.credentials.revoke(MemberSeat(record.key, member.user_id))
        try:
            await self._feed.publish(record.key)
        except Busy:
            pass

    def _mark_ended(self, record: RoomRecord) -> bool:
        game = record.room.game
        if game is None or not game.over or record.report is not ReportState.NONE:
            return False
        result = game.result(self.limits.winner_bonus)
        scored = result.counts and any(
            s.total > 0 and game.player(s.seat).bot is None for s in result.standings
        )
        record.report = ReportState.PENDING if result.counts else ReportState.SKIPPED
        if result.counts and not scored:
            record.report = ReportState.SKIPPED
        return result.counts
