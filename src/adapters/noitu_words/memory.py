"""The additions store in this process's memory (tests, and a server without a data dir)."""

from __future__ import annotations

from noitu.domain.noitu.additions import WordChange


class InMemoryAdditions:
    def __init__(self) -> None:
        self._log: list[WordChange] = []

    async def append(self, change: WordChange) -> int:
        self._log.append(change)
        return len(self._log)

    async def changes_since(self, version: int, limit: int) -> list[WordChange]:
        return self._log[version : version + limit]
