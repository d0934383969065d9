"""Remove the failed builds that have served their purpose (spec B5, ours).

A failed build does not count toward an owner's `MAX_BOTS_PER_OWNER`; it is kept so
its owner can read the compiler's messages, for `FAILED_BUILD_KEPT_MS` after its upload,
and only the owner's newest `MAX_FAILED_BUILDS_PER_OWNER` of them. The sweep runs at
start-up (everyone's) and whenever an owner uploads (that owner's). A failed build is
never seated, so no match is using what is removed. The row goes first, then the files
(files a failure leaves without a row are removed at the next start).
"""

from __future__ import annotations

from noitu.application.arena.limits import FAILED_BUILD_KEPT_MS, MAX_FAILED_BUILDS_PER_OWNER
from noitu.application.arena.records import BotRecord
from noitu.application.arena.storage import ArenaFiles, BotCatalogue
from noitu.application.ports import Clock


class SweepFailedBuilds:
    def __init__(self, catalogue: BotCatalogue, files: ArenaFiles, clock: Clock) -> None:
        self._catalogue = catalogue
        self._files = files
        self._clock = clock

    async def __call__(self, owner: str | None = None) -> int:
        """Remove the failed builds past their time or beyond the newest ones kept (of
        `owner`, or of every owner); how many were removed."""
        expired = self._clock.now_ms() - FAILED_BUILD_KEPT_MS  # and before
        kept: dict[str, int] = {}
        removed = 0
        for bot in await self._catalogue.failed_builds(owner):  # newest first
            kept[bot.owner] = kept.get(bot.owner, 0) + 1
            if bot.created_ms > expired and kept[bot.owner] <= MAX_FAILED_BUILDS_PER_OWNER:
                continue
            if await self._remove(bot):
                removed += 1
        return removed

    async def _remove(self, bot: BotRecord) -> bool:
        if not await self._catalogue.delete_bot(bot.id, bot.owner):
            return False  # its owner deleted it meanwhile
        await self._files.delete_bot_files(bot.id)
        return True
