"""Delete one's bot and its files (spec B5).

A bot seated in a live match is not deleted (`bot_in_match`): its match is using its
artefact; the owner deletes it once the match has ended. Finished matches keep their
seats with the name the bot had. The row goes first, so no record ever names files that
are gone; files a failure leaves without a row are removed at the next start. A ranked
bot leaves the ladder's table (B8); its ladder results stay, as its opponents' ratings
depend on them.
"""

from __future__ import annotations

from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.errors import BotInMatch, BotNotFound
from noitu.application.arena.ladder.ports import LadderMembers
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.storage import ArenaFiles, BotCatalogue, MatchArchive


class DeleteBot:
    def __init__(
        self,
        catalogue: BotCatalogue,
        matches: MatchArchive,
        files: ArenaFiles,
        members: LadderMembers,
    ) -> None:
        self._catalogue = catalogue
        self._matches = matches
        self._files = files
        self._members = members

    async def __call__(self, bot_id: str, owner_key: str | None) -> None:
        bot = await owned_bot(self._catalogue, bot_id, viewer_of(owner_key))
        for match in await self._matches.live_matches():
            if any(s.kind is SeatKind.UPLOAD and s.ref == bot.id for s in match.seats):
                raise BotInMatch()
        if not await self._catalogue.delete_bot(bot.id, bot.owner):
            raise BotNotFound()  # deleted meanwhile
        await self._members.unrank(bot.id)
        await self._files.delete_bot_files(bot.id)
