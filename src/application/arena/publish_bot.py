"""Make one's bot public (anyone may seat it) or private again (spec B5). A bot whose
build failed cannot be made public: nobody could seat it."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.bot_info import BotInfo, info_of, owned_bot, viewer_of
from noitu.application.arena.errors import BotNotBuilt, BotNotFound
from noitu.application.arena.records import BuildStatus
from noitu.application.arena.storage import BotCatalogue


@dataclass(frozen=True, slots=True)
class PublishBotCommand:
    bot_id: str
    public: bool
    owner_key: str | None = None


class PublishBot:
    def __init__(self, catalogue: BotCatalogue) -> None:
        self._catalogue = catalogue

    async def __call__(self, command: PublishBotCommand) -> BotInfo:
        viewer = viewer_of(command.owner_key)
        bot = await owned_bot(self._catalogue, command.bot_id, viewer)
        if command.public and bot.build is not BuildStatus.OK:
            raise BotNotBuilt()
        if not await self._catalogue.set_public(bot.id, bot.owner, command.public):
            raise BotNotFound()  # deleted meanwhile
        changed = await self._catalogue.get_bot(bot.id)
        if changed is None:
            raise BotNotFound()
        return info_of(changed, viewer)
