"""The store of reported words (spec B11), one small Protocol."""

from __future__ import annotations

from typing import Protocol

from noitu.domain.noitu.reports import PendingWord, Receipt, Report


class ReportsStore(Protocol):
    """Pending words with their reporters, the words the operators rejected, and each
    user's reports per day; shared by every instance."""

    async def file(self, report: Report, day: int, daily_cap: int, max_pending: int) -> Receipt:
        """In one step: refuse past the user's `daily_cap` reports on `day`; count the
        report; thank without storing a rejected word; else keep it pending (a new word
        past `max_pending` drops the oldest word reported only once)."""
        ...

    async def pending(self) -> list[PendingWord]:
        """Every pending word, the first reported first."""
        ...

    async def settle(self, word: str, rejected: bool) -> PendingWord | None:
        """Take a word out of the pending ones (added or rejected); a rejected word is
        remembered, an added one forgotten from the rejected. What was pending, if any."""
        ...

    async def shown(self, word: str, message_id: int, at_ms: int) -> None:
        """The admin chat's message about a pending word now shows its count."""
        ...


class ReviewChat(Protocol):
    """The operators' chat (NOITU_ADMIN_CHAT): one message per reported word."""

    async def post(self, pending: PendingWord, nearest: list[str]) -> int | None:
        """Post a newly reported word with its buttons; the message id (None: not sent)."""
        ...

    async def update(self, pending: PendingWord, nearest: list[str]) -> bool:
        """Edit the word's message with its new count; whether it was edited."""
        ...


class RefusalMemory(Protocol):
    """The word each room member was last refused as not in the dictionary (a room's
    record is the rooms' own; this stays beside it, for a while)."""

    async def remember(self, member: str, word: str) -> None: ...

    async def recall(self, member: str) -> str | None: ...
