"""The operator turns reported words down (spec B11: the CLI and the admin chat)."""

from __future__ import annotations

from noitu.application.noitu.words.report_ports import ReportsStore
from noitu.domain.noitu.reports import PendingWord
from noitu.domain.noitu.spelling import normalize


class RejectWords:
    """Each word leaves the pending ones and is remembered as rejected: later reports
    of it are thanked and not stored. Answers what was pending (None: nothing was)."""

    def __init__(self, reports: ReportsStore) -> None:
        self._reports = reports

    async def __call__(self, words: tuple[str, ...]) -> list[tuple[str, PendingWord | None]]:
        settled = []
        for raw in words:
            word = normalize(raw)
            settled.append((word, await self._reports.settle(word, rejected=True)))
        return settled
