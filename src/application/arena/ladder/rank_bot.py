"""B8 "Entry": an owner ranks one of their built bots. Ranked means public in B5's
sense (anyone may seat it; its source and stderr stay the owner's); at most three
ranked bots per owner (`too_many_ranked`). A bot that never played on the ladder starts
with its placement pairings; one ranked again keeps its rating and its placement's end.

Ranking counts toward the client address's uploads a minute (B10, `Admission`): owner
keys are free, so the cap per owner alone would let one address fill the table with
bots of its own. Ranking a bot already ranked changes nothing and counts nothing.
"""

from __future__ import annotations

import msgspec

from noitu.application.arena.admission import AddressAction, Admission
from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.errors import BotNotBuilt, BotNotFound
from noitu.application.arena.ladder.errors import TooManyRanked
from noitu.application.arena.ladder.ports import LadderBots, LadderMembers, LadderStandings
from noitu.application.arena.records import BuildStatus
from noitu.domain.arena.ladder.members import MAX_RANKED_PER_OWNER, Member, address_digest
from noitu.domain.arena.ladder.placement import FIRST_PLACEMENT_STEP


class RankBotCommand(msgspec.Struct, frozen=True):
    bot_id: str
    owner_key: str | None = None
    #: The client's address (B10); "": not a network client, not limited by address.
    address: str = ""


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
        self,
        bots: LadderBots,
        members: LadderMembers,
        standings: LadderStandings,
        admission: Admission | None = None,
    ) -> None:
        """`admission` holds the per-address limits (none: not limited)."""
        self._bots = bots
        self._members = members
        self._standings = standings
        self._admission = admission

    async def __call__(self, command: RankBotCommand) -> RankedBot:
        bot = await owned_bot(self._bots, command.bot_id, viewer_of(command.owner_key))  # type: ignore[arg-type]
        if bot.build is not BuildStatus.OK:
            raise BotNotBuilt()
        known = await self._members.get(bot.id)
        if known is not None:
            return RankedBot.of(known)
        if self._admission is not None:
            await self._admission.admit(AddressAction.RANK, command.address)
        played = (await self._standings.load((bot.id,))).of(bot.id).games
        member = Member(
            bot=bot.id, owner=bot.owner, created_ms=bot.created_ms,
            placement_step=FIRST_PLACEMENT_STEP if played == 0 else None,
            ranked_from=address_digest(command.address),
        )
        if not await self._members.rank(member, max_per_owner=MAX_RANKED_PER_OWNER):
            raise TooManyRanked()
        if not await self._bots.set_public(bot.id, bot.owner, True):
            await self._members.unrank(bot.id)  # deleted meanwhile: nothing half-done
            raise BotNotFound()
        return RankedBot.of(member)
