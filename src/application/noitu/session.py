"""A session: one game in progress, who plays it, and which Telegram message it scores on."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from noitu.domain.noitu.game import Game


class ReportState(str, Enum):
    NONE = ""  # still playing
    PENDING = "pending"
    OK = "ok"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """What a score report answered (the ScoreReporter port): its state, and whether the
    score went in above the player's best on the game message's table (B12's "Kỷ lục
    mới!"). With setGameScore's force=false, a score not above the best (a tie
    included) is kept out (BOT_SCORE_NOT_MODIFIED): saved, no record. A first score
    above 0 on a game message is a record; a score of 0 never is."""

    state: ReportState
    new_record: bool = False


@dataclass(frozen=True, slots=True)
class GameMessage:
    """The Telegram message a game was launched from: a chat message or an inline one."""

    chat_id: int | None = None
    message_id: int | None = None
    inline_message_id: str | None = None
    topic_id: int | None = None

    def __post_init__(self) -> None:
        by_chat = self.chat_id is not None and self.message_id is not None
        by_inline = bool(self.inline_message_id)
        if by_chat == by_inline:
            raise ValueError("a game message is either chat_id+message_id or inline_message_id")

    @property
    def key(self) -> str:
        if self.inline_message_id:
            return f"i:{self.inline_message_id}"
        return f"c:{self.chat_id}:{self.message_id}"


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a verified game link says: the player and the game message (spec B8)."""

    user_id: int
    first_name: str
    message: GameMessage
    expires_at: int  # Unix seconds
    room: bool = False  # a room card's link (claim `r: 1`, spec B10)
    daily: bool = False  # a daily game's link (claim `d: 1`, spec B13)

    @property
    def owner(self) -> str:
        return f"{self.user_id}/{self.message.key}"


@dataclass(slots=True)
class Session:
    id: str
    ticket: Ticket
    game: Game
    created_ms: int
    last_active_ms: int
    last_move_ms: int = 0
    report: ReportState = ReportState.NONE
    # The report raised the player's best on the game message's table (`ScoreReport`):
    # the end screen's "Kỷ lục mới!" (B12). The table read afterwards cannot tell it
    # from an earlier game of the same score.
    new_record: bool = False
    # The session whose start ended this one (a start on the same game message, or one
    # that pushed it over the per-user cap): the page offers to go on there.
    replaced_by: str = ""
    # The word of the last `not_in_dictionary` refusal (normalized): the only word this
    # session may report as missing (spec B11).
    refused: str = ""
    # The players' day (`players_day.day_of`) of a daily game (spec B13); 0 for a solo
    # game. The day the game started on: one started at 23:59:50 stays that day's.
    day: int = 0
    version: int = 0  # of the stored copy this one was read from (stores compare it)

    def copy(self) -> Session:
        """An independent session in the same state: what a store keeps and hands out,
        so that a change reaches the store only through a commit. Every field is named
        (a unit test checks that none is missed): `dataclasses.replace` costs 8 times
        as much, and every request copies a session twice."""
        return Session(
            self.id,
            self.ticket,
            self.game.copy(),
            self.created_ms,
            self.last_active_ms,
            self.last_move_ms,
            self.report,
            self.new_record,
            self.replaced_by,
            self.refused,
            self.day,
            self.version,
        )

    @property
    def user_id(self) -> int:
        return self.ticket.user_id

    @property
    def owner(self) -> str:
        return self.ticket.owner

    @property
    def is_playing(self) -> bool:
        return not self.game.is_over
