"""The bots of the owner whose key the request carries, newest first (spec B5)."""

from __future__ import annotations

from noitu.application.arena.bot_info import BotInfo, info_of, viewer_of
from noitu.application.arena.storage import BotCatalogue


class MyBots:
    def __init__(self, catalogue: BotCatalogue) -> None:
        self._catalogue = catalogue

    async def __call__(self, owner_key: str | None) -> list[BotInfo]:
        """No key yet (a browser that never uploaded): no bots."""
        viewer = viewer_of(owner_key)
        if viewer is None:
            return []
        return [info_of(bot, viewer) for bot in await self._catalogue.bots_of(viewer)]
