"""A bot's uploaded file, for its owner only (spec B5)."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.bot_info import owned_bot, viewer_of
from noitu.application.arena.errors import BotNotFound
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.ports import Language
from noitu.application.arena.storage import ArenaFiles, BotCatalogue


@dataclass(frozen=True, slots=True)
class BotSourceFile:
    language: Language
    file_name: str
    data: bytes


class BotSource:
    def __init__(self, catalogue: BotCatalogue, files: ArenaFiles) -> None:
        self._catalogue = catalogue
        self._files = files

    async def __call__(self, bot_id: str, owner_key: str | None) -> BotSourceFile:
        bot = await owned_bot(self._catalogue, bot_id, viewer_of(owner_key))
        try:
            data = await self._files.read_source(bot.source_file)
        except FileNotFoundError:  # deleted meanwhile
            raise BotNotFound() from None
        # Handed back under the language's own name, never the name it was uploaded with.
        return BotSourceFile(bot.language, LANGUAGES[bot.language].source_name, data)
