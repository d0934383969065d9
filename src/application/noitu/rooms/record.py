"""A room as the store keeps it: the domain room, its card and its bookkeeping."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from noitu.application.noitu.session import GameMessage, ReportState
from noitu.domain.noitu.room import Room, RoomLimits


def credential_tag(credential: str) -> str:
    """What a room keeps of a member's current credential: enough to tell a feed opened
    with an older one (replaced by a new join), not enough to act as the member."""
    return hashlib.blake2b(credential.encode(), digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class RoomCard:
    """A room card `/noituphong` sent: where it is, and when it was made and last
    played (a card is kept 30 days after its last Play)."""

    chat_id: int
    message_id: int
    topic_id: int | None
    made_ms: int
    last_play_ms: int

    @property
    def message(self) -> GameMessage:
        return GameMessage(chat_id=self.chat_id, message_id=self.message_id, topic_id=self.topic_id)

    @property
    def key(self) -> str:
        return self.message.key


@dataclass(frozen=True, slots=True)
class MemberSeat:
    """What a member credential names: the room (the card's key) and the person."""

    room_key: str
    user_id: int


@dataclass(slots=True)
class RoomRecord:
    key: str  # the card's message key: one room per card
    card: GameMessage
    room: Room
    last_active_ms: int  # the last change: an empty room without a game closes after it
    games: int = 0  # games started here; the report of the latest is `report`
    report: ReportState = ReportState.NONE
    last_move_ms: dict[int, int] = field(default_factory=dict)  # per member (300 ms)
    #: Per member, the `credential_tag` of its current credential (from its last join).
    credential_tags: dict[int, str] = field(default_factory=dict)
    version: int = 0  # of the stored copy this one was read from

    @property
    def chat_id(self) -> int:
        return self.card.chat_id or 0

    def copy(self) -> RoomRecord:
        return replace(
            self, room=self.room.copy(), last_move_ms=dict(self.last_move_ms),
            credential_tags=dict(self.credential_tags),
        )

    def forget(self, user_id: int) -> None:
        """What the record keeps of a member who is gone."""
        self.last_move_ms.pop(user_id, None)
        self.credential_tags.pop(user_id, None)

    def closable(self, now_ms: int, limits: RoomLimits) -> bool:
        """No member and no game for `idle_close_ms` (the bot alone keeps no room open)."""
        room = self.room
        return (
            not room.people and not room.playing
            and now_ms - self.last_active_ms >= limits.idle_close_ms
        )

    def due_ms(self, now_ms: int, limits: RoomLimits) -> int | None:
        """The first time after `now_ms` something happens to the room by itself: the bot
        seat's word, a turn running out, a presence rule, the room closing; or None."""
        room = self.room
        times = []
        if room.game is not None and (game_due := room.game.due_ms()) is not None:
            times.append(game_due)
        if (review := room.next_review_ms(now_ms, limits)) is not None:
            times.append(review)
        if not room.people and not room.playing:
            times.append(self.last_active_ms + limits.idle_close_ms)
        return min(times) if times else None
