"""Make one's bot public (anyone may seat it) or private again (spec B5). A bot whose
build failed cannot be made public: nobody could seat it. A ranked bot cannot be made
private (B8, `bot_ranked`): the check runs again after the write, and a bot ranked
meanwhile is made public again, so a ranking racing this never ends private."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.bot_info import BotInfo, info_of, owned_bot, viewer_of
from noitu.application.arena.errors import BotNotBuilt, BotNotFound
from noitu.application.arena.ladder.errors import BotRanked
from noitu.application.arena.ladder.ports import LadderMembers
from noitu.application.arena.records import BuildStatus
from noitu.application.arena.storage import BotCatalogue


@dataclass(frozen=True, slots=True)
class PublishBotCommand:
    bot_id: str
    public: bool
    owner_key: str | None = None


class PublishBot:
    def __init__(self, catalogue: BotCatalogue, members: LadderMembers) -> None:
        self._catalogue = catalogue
        self._members = members

    async def __call__(self, command: PublishBotCommand) -> BotInfo:
        viewer = viewer_of(command.owner_key)
        bot = await owned_bot(self._catalogue, command.bot_id, viewer)
        if command.public and bot.build is not BuildStatus.OK:
            raise BotNotBuilt()
        if not command.public and await self._members.get(bot.id) is not None:
            raise BotRanked()
        if not await self._catalogue.set_public(bot.id, bot.owner, command.public):
            raise BotNotFound()  # deleted meanwhile
        if not command.public and await self._members.get(bot.id) is not None:
            await self._catalogue.set_public(bot.id, bot.owner, True)  # ranked meanwhile
            raise BotRanked()
        changed = await self._catalogue.get_bot(bot.id)
        if changed is None:
            raise BotNotFound()
        return info_of(changed, viewer)
