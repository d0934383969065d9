"""B8 "Entry": an owner ranks one of their built bots. Ranked means public in B5's
sense (anyone may seat it; its source and stderr stay the owner's); at most three
ranked bots per owner (`too_many_ranked`). A bot that never played on the ladder starts
with its placement pairings; one ranked again keeps its rating and its placement's end.
"""

from __future__ import annotations

import msgspec

from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.errors import BotNotBuilt, BotNotFound
from noitu.application.arena.ladder.errors import TooManyRanked
from noitu.application.arena.ladder.ports import LadderBots, LadderMembers, LadderStandings
from noitu.application.arena.records import BuildStatus
from noitu.domain.arena.ladder.members import MAX_RANKED_PER_OWNER, Member
from noitu.domain.arena.ladder.placement import FIRST_PLACEMENT_STEP


class RankBotCommand(msgspec.Struct, frozen=True):
    bot_id: str
    owner_key: str | None = None


class RankedBot(msgspec.Struct, frozen=True):
    """A ranked bot's standing on the ladder's entry side (its owner's view)."""

    bot_id: str
    suspended: bool
    failures_in_row: int
    in_placement: bool

    @classmethod
    def of(cls, member: Member) -> RankedBot:
        return cls(
            member.bot, member.suspended, member.failures_in_row,
            member.placement_step is not None,
        )


class RankBot:
    def __init__(
        self, bots: LadderBots, members: LadderMembers, standings: LadderStandings
    ) -> None:
        self._bots = bots
        self._members = members
        self._standings = standings

    async def __call__(self, command: RankBotCommand) -> RankedBot:
        bot = await owned_bot(self._bots, command.bot_id, viewer_of(command.owner_key))  # type: ignore[arg-type]
        if bot.build is not BuildStatus.OK:
            raise BotNotBuilt()
        known = await self._members.get(bot.id)
        if known is not None:
            return RankedBot.of(known)
        played = (await self._standings.load((bot.id,))).of(bot.id).games
        member = Member(
            bot=bot.id, owner=bot.owner, created_ms=bot.created_ms,
            placement_step=FIRST_PLACEMENT_STEP if played == 0 else None,
        )
        if not await self._members.rank(member, max_per_owner=MAX_RANKED_PER_OWNER):
            raise TooManyRanked()
        if not await self._bots.set_public(bot.id, bot.owner, True):
            await self._members.unrank(bot.id)  # deleted meanwhile: nothing half-done
            raise BotNotFound()
        return RankedBot.of(member)
