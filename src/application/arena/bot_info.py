"""What a viewer is told about an uploaded bot, and who the viewer is (spec B5).

The bot use cases share these: `viewer_of` turns the owner key a request carries into
the stored hash (no key: an anonymous viewer; a malformed one: `BadOwnerKey`), and
`info_of` builds the view of a record for that viewer. Only the owner sees the source's
size and the compiler's messages; a private bot of someone else does not exist for the
viewer (`visible_bot` answers `BotNotFound`, exactly as for an unknown id).
"""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.arena.errors import BadOwnerKey, BotNotFound, NotOwner
from noitu.application.arena.ports import Language
from noitu.application.arena.records import (
    BotRecord,
    BuildStatus,
    is_bot_id,
    is_owner_key,
    owner_hash,
)
from noitu.application.arena.storage import BotCatalogue


@dataclass(frozen=True, slots=True)
class BotInfo:
    id: str
    name: str
    language: Language
    public: bool
    created_ms: int
    build: BuildStatus
    mine: bool
    #: The owner's alone; None for anybody else.
    build_messages: str | None
    source_bytes: int | None


def viewer_of(owner_key: str | None) -> str | None:
    """The stored hash of the request's owner key; None without one."""
    if owner_key is None:
        return None
    if not is_owner_key(owner_key):
        raise BadOwnerKey()
    return owner_hash(owner_key)


def info_of(bot: BotRecord, viewer: str | None) -> BotInfo:
    mine = viewer is not None and bot.owner == viewer
    return BotInfo(
        id=bot.id,
        name=bot.name,
        language=bot.language,
        public=bot.public,
        created_ms=bot.created_ms,
        build=bot.build,
        mine=mine,
        build_messages=bot.build_messages if mine else None,
        source_bytes=bot.source_bytes if mine else None,
    )


async def visible_bot(catalogue: BotCatalogue, bot_id: str, viewer: str | None) -> BotRecord:
    """The bot if the viewer may know of it: theirs, or public."""
    bot = await catalogue.get_bot(bot_id) if is_bot_id(bot_id) else None
    if bot is None or not (bot.public or bot.owner == viewer):
        raise BotNotFound()
    return bot


async def owned_bot(catalogue: BotCatalogue, bot_id: str, viewer: str | None) -> BotRecord:
    """The viewer's own bot; someone else's public bot is `NotOwner`, the rest unknown."""
    bot = await visible_bot(catalogue, bot_id, viewer)
    if bot.owner != viewer:
        raise NotOwner()
    return bot
