"""The ports of the words the players bring (spec B11), one small Protocol each."""

from __future__ import annotations

from typing import Protocol

from noitu.domain.noitu.additions import WordChange


class AdditionsStore(Protocol):
    """The operators' decisions on words, durable and in one order for every instance:
    a log that only grows. A change's number is its place in the log, from 1."""

    async def append(self, change: WordChange) -> int:
        """Keep a change; its number."""
        ...

    async def changes_since(self, version: int, limit: int) -> list[WordChange]:
        """The changes numbered version + 1, version + 2, … (at most `limit`)."""
        ...
