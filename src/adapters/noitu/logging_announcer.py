"""A room announcer that only writes the text to the log (local play mode)."""

from __future__ import annotations

import structlog

from noitu.application.noitu.session import GameMessage

log = structlog.get_logger("noitu.rooms")


class LoggingRoomAnnouncer:
    async def announce(self, card: GameMessage, text: str) -> None:
        log.info("room_announcement", game_message=card.key, text=text)
