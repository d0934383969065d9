"""B8 "Failures": the owner of a suspended bot resumes it, which resets its count of
failed ladder matches in a row; the scheduler may pick it again. Resuming a ranked bot
that is not suspended only resets the count."""

from __future__ import annotations

import msgspec

from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.ladder.errors import NotRanked
from noitu.application.arena.ladder.ports import LadderBots, LadderMembers
from noitu.application.arena.ladder.rank_bot import RankedBot
from noitu.domain.arena.ladder.members import Member


class ResumeBotCommand(msgspec.Struct, frozen=True):
    bot_id: str
    owner_key: str | None = None


class ResumeBot:
    def __init__(self, bots: LadderBots, members: LadderMembers) -> None:
        self._bots = bots
        self._members = members

    async def __call__(self, command: ResumeBotCommand) -> RankedBot:
        bot = await owned_bot(self._bots, command.bot_id, viewer_of(command.owner_key))  # type: ignore[arg-type]
        resumed = await self._members.update(bot.id, Member.resumed)
        if resumed is None:
            raise NotRanked()
        return RankedBot.of(resumed)
