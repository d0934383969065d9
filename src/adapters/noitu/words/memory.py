"""The additions and reports stores in this process's memory (tests)."""

from __future__ import annotations

from noitu.domain.noitu.additions import WordChange
from noitu.domain.noitu.reports import Filed, PendingWord, Receipt, Report


class InMemoryAdditions:
    def __init__(self) -> None:
        self._log: list[WordChange] = []

    async def append(self, change: WordChange) -> int:
        self._log.append(change)
        return len(self._log)

    async def changes_since(self, version: int, limit: int) -> list[WordChange]:
        return self._log[version : version + limit]


class _Pending:
    __slots__ = ("first_ms", "last_ms", "message_id", "reporters", "shown_ms")

    def __init__(self, first_ms: int) -> None:
        self.first_ms = first_ms
        self.last_ms = first_ms
        self.reporters: dict[int, int | None] = {}  # user -> the chat of their report
        self.message_id: int | None = None
        self.shown_ms = 0


class InMemoryReports:
    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}  # first reported first
        self._rejected: set[str] = set()
        self._daily: dict[tuple[int, int], int] = {}  # (user, day) -> reports

    @staticmethod
    def _view(word: str, item: _Pending) -> PendingWord:
        return PendingWord(
            word, len(item.reporters), item.first_ms, item.last_ms, item.message_id, item.shown_ms
        )

    async def file(self, report: Report, day: int, daily_cap: int, max_pending: int) -> Receipt:
        key = (report.user_id, day)
        if self._daily.get(key, 0) >= daily_cap:
            return Receipt(Filed.TOO_MANY)
        self._daily = {k: v for k, v in self._daily.items() if k[1] >= day - 1}
        self._daily[key] = self._daily.get(key, 0) + 1
        if report.word in self._rejected:
            return Receipt(Filed.REJECTED)
        item = self._pending.get(report.word)
        new = item is None
        if item is None:
            item = self._pending[report.word] = _Pending(report.at_ms)
            if len(self._pending) > max_pending:
                oldest = next(
                    (w for w, p in self._pending.items() if len(p.reporters) <= 1 and w != report.word),
                    None,
                )
                if oldest is not None:
                    del self._pending[oldest]
        item.last_ms = report.at_ms
        item.reporters[report.user_id] = report.chat_id
        return Receipt(Filed.PENDING, self._view(report.word, item), new)

    async def pending(self) -> list[PendingWord]:
        return [self._view(w, p) for w, p in self._pending.items()]

    async def settle(self, word: str, rejected: bool) -> PendingWord | None:
        if rejected:
            self._rejected.add(word)
        else:
            self._rejected.discard(word)
        item = self._pending.pop(word, None)
        return None if item is None else self._view(word, item)

    async def shown(self, word: str, message_id: int, at_ms: int) -> None:
        item = self._pending.get(word)
        if item is not None:
            item.message_id = message_id
            item.shown_ms = at_ms


class InMemoryRefusals:
    """The last refused word of each member, the most recent `limit` members."""

    def __init__(self, limit: int = 10_000) -> None:
        self._words: dict[str, str] = {}
        self._limit = limit

    async def remember(self, member: str, word: str) -> None:
        self._words.pop(member, None)
        self._words[member] = word
        if len(self._words) > self._limit:
            del self._words[next(iter(self._words))]

    async def recall(self, member: str) -> str | None:
        return self._words.get(member)
