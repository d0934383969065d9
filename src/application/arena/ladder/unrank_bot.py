"""B8 "Entry": an owner takes a bot off the ladder. It stays public, its ladder results
stay in the history (its opponents' ratings depend on them), and ranking it again
brings back its rating. Unranking a bot that is not ranked changes nothing."""

from __future__ import annotations

import msgspec

from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.ladder.ports import LadderBots, LadderMembers


class UnrankBotCommand(msgspec.Struct, frozen=True):
    bot_id: str
    owner_key: str | None = None


class UnrankedBot(msgspec.Struct, frozen=True):
    bot_id: str
    was_ranked: bool


class UnrankBot:
    def __init__(self, bots: LadderBots, members: LadderMembers) -> None:
        self._bots = bots
        self._members = members

    async def __call__(self, command: UnrankBotCommand) -> UnrankedBot:
        bot = await owned_bot(self._bots, command.bot_id, viewer_of(command.owner_key))  # type: ignore[arg-type]
        return UnrankedBot(bot.id, await self._members.unrank(bot.id))
