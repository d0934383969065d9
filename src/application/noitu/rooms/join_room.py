"""JoinRoom: a room link makes its holder a member of the card's room (B10). A join
counts against the 10-starts limit, unless its holder is already a member (joining
again): then it only replaces the credential, and the old one's feeds close."""

from __future__ import annotations

import random

from noitu.application.noitu.errors import TooFast
from noitu.application.noitu.ports import StartRateLimiter, TokenVerifier
from noitu.application.noitu.rooms.commands import JoinRoomCommand
from noitu.application.noitu.rooms.errors import Busy, NotARoomLink, TooManyRooms, refused
from noitu.application.noitu.rooms.ports import AddRoom
from noitu.application.noitu.rooms.record import MemberSeat, RoomRecord, credential_tag
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.rooms.view import JoinView, RoomViews
from noitu.domain.noitu.room import Room
from noitu.domain.noitu.room_game import RoomRuleBroken
from noitu.domain.noitu.rules import SessionLimits


def new_credential(id_source: random.Random) -> str:
    """128 random bits, hex: the member's alone."""
    return f"{id_source.getrandbits(128):032x}"


class JoinRoom:
    def __init__(
        self,
        rooms: Rooms,
        views: RoomViews,
        tokens: TokenVerifier,
        start_limiter: StartRateLimiter,
        session_limits: SessionLimits,
        id_source: random.Random,
    ) -> None:
        self._rooms = rooms
        self._views = views
        self._tokens = tokens
        self._start_limiter = start_limiter
        self._session_limits = session_limits
        self._id_source = id_source

    async def __call__(self, command: JoinRoomCommand) -> JoinView:
        now = self._rooms.now_ms()
        ticket = self._tokens.verify(command.token, now // 1000)
        card = ticket.message
        if not ticket.room or card.chat_id is None:
            raise NotARoomLink()
        store, limits = self._rooms.store, self._rooms.limits
        key, user = card.key, ticket.user_id
        async with store.lock(key):
            record = await store.get(key)
            member = record.room.member(user) if record is not None else None
            if member is None or member.is_bot:
                await self._count_start(user, now)
            if record is None:
                record = RoomRecord(key=key, card=card, room=Room(), last_active_ms=now)
                added = await store.add(record, limits.max_rooms, limits.max_rooms_per_chat)
                if added is AddRoom.TOO_MANY_IN_CHAT:
                    raise TooManyRooms()
                if added is AddRoom.TOO_MANY:
                    raise Busy()
            try:
                record.room.join(user, ticket.first_name, limits, now)
            except RoomRuleBroken as broken:
                raise refused(broken.refusal) from None
            credential = new_credential(self._id_source)
            record.credential_tags[user] = credential_tag(credential)
            await self._rooms.credentials.replace(credential, MemberSeat(key, user))
            await self._rooms.commit(record, now)
            return JoinView(credential, self._views.of(record, user, now))

    async def _count_start(self, user_id: int, now_ms: int) -> None:
        if not await self._start_limiter.allow(user_id, now_ms):
            raise TooFast(retry_after_ms=self._session_limits.start_window_ms)
