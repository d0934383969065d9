"""The reported words waiting for the operators (spec B11: `noitu words pending`)."""

from __future__ import annotations

from noitu.application.noitu.words.report_ports import ReportsStore
from noitu.domain.noitu.reports import PendingWord


class PendingWords:
    def __init__(self, reports: ReportsStore) -> None:
        self._reports = reports

    async def __call__(self) -> list[PendingWord]:
        return await self._reports.pending()
