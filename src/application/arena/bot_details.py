"""One bot as the viewer may see it (spec B5): the owner sees everything of it but the
source itself, anyone else a public bot's public facts, and a private bot of someone
else is not found."""

from __future__ import annotations

from noitu.application.arena.bot_info import BotInfo, info_of, viewer_of, visible_bot
from noitu.application.arena.storage import BotCatalogue


class BotDetails:
    def __init__(self, catalogue: BotCatalogue) -> None:
        self._catalogue = catalogue

    async def __call__(self, bot_id: str, owner_key: str | None) -> BotInfo:
        viewer = viewer_of(owner_key)
        return info_of(await visible_bot(self._catalogue, bot_id, viewer), viewer)
