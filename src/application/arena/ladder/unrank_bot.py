"""B8 "Entry": an owner takes a bot off the ladder. It stays public, its ladder results
stay in the history (its opponents' ratings depend on them), and ranking it again
brings back its rating. Unranking a bot that is not ranked changes nothing.

A match it plays now ends as it would and is rated; its ladder matches not started yet
(waiting for a slot or a worker) end unplayed and unrated (`WaitingLadderMatches`), and
the ladder's driver begins none of those it still had to begin (issue 30: an unranked
bot started a rated match 31 s later)."""

from __future__ import annotations

import msgspec

from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.ladder.ports import (
    LadderBots,
    LadderMembers,
    WaitingLadderMatches,
)


class UnrankBotCommand(msgspec.Struct, frozen=True):
    bot_id: str
    owner_key: str | None = None


class UnrankedBot(msgspec.Struct, frozen=True):
    bot_id: str
    was_ranked: bool


class UnrankBot:
    def __init__(
        self,
        bots: LadderBots,
        members: LadderMembers,
        waiting: WaitingLadderMatches | None = None,
    ) -> None:
        """`waiting`: where the ladder's matches wait (the ladder's slots; None where no
        ladder plays)."""
        self._bots = bots
        self._members = members
        self._waiting = waiting

    async def __call__(self, command: UnrankBotCommand) -> UnrankedBot:
        bot = await owned_bot(self._bots, command.bot_id, viewer_of(command.owner_key))  # type: ignore[arg-type]
        was_ranked = await self._members.unrank(bot.id)
        if self._waiting is not None:
            await self._waiting.cancel_waiting(bot.id)
        return UnrankedBot(bot.id, was_ranked)
