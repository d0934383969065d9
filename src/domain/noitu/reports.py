"""Reports of missing words (spec B11): what a report is, the daily cap, the pending cap.

Pure: time is int milliseconds; the day a report counts on is Vietnam's calendar day.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from noitu.domain.noitu.players_day import DAY_MS, VIETNAM_UTC_OFFSET_MS, day_of, next_day_ms

DAILY_REPORTS = 20  # words one user may report a day (`too_many_reports` beyond)
MAX_PENDING_WORDS = 10_000  # past this, the oldest words reported once are dropped
ADMIN_EDIT_EVERY_MS = 60_000  # a later report edits the admin message at most this often

__all__ = [
    "ADMIN_EDIT_EVERY_MS", "DAILY_REPORTS", "DAY_MS", "MAX_PENDING_WORDS",
    "VIETNAM_UTC_OFFSET_MS", "Filed", "PendingWord", "Receipt", "Report", "next_day_ms",
    "report_day",
]


def report_day(now_ms: int) -> int:
    """The number of the players' calendar day a report made now counts on."""
    return day_of(now_ms)


@dataclass(frozen=True)
class Report:
    word: str  # normalized (B2), fit (B1's filter) and not in the game
    user_id: int
    chat_id: int | None
    at_ms: int


@dataclass(frozen=True)
class PendingWord:
    word: str
    reporters: int  # distinct users
    first_ms: int
    last_ms: int
    message_id: int | None = None  # the admin chat's message about it, once posted
    shown_ms: int = 0  # when that message last showed the count


class Filed(str, Enum):
    PENDING = "pending"  # stored (a new word, or one more report of a pending one)
    REJECTED = "rejected"  # the operators turned it down before: thanked, not stored
    TOO_MANY = "too_many"  # the user's daily cap


@dataclass(frozen=True)
class Receipt:
    filed: Filed
    pending: PendingWord | None = None
    new: bool = False  # the first report of this word: the admin chat hears of it
