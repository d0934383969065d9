"""A room as the store keeps it: the domain room, its card and its bookkeeping."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from noitu.application.noitu.session import GameMessage, ReportState
from noitu.domain.noitu.room import Room


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
    version: int = 0  # of the stored copy this one was read from

    @property
    def chat_id(self) -> int:
        return self.card.chat_id or 0

    def copy(self) -> RoomRecord:
        return replace(self, room=self.room.copy(), last_move_ms=dict(self.last_move_ms))

    def settle_due_ms(self, grace_ms: int) -> int | None:
        """When the turn being played runs out (deadline + grace), or None."""
        game = self.room.game
        if game is None or game.over:
            return None
        return game.deadline_ms + grace_ms
