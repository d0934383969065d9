"""What the bot says in chats, in Vietnamese: short and friendly."""

from __future__ import annotations

from noitu.application.noitu.messages import GAME_DISABLED

COMMAND_DESCRIPTION = "Chơi nối từ với bot"
NO_GAMES_IN_CHANNELS = (
    "Kênh không chơi được trò chơi. Hãy gửi /noitu trong nhóm hoặc nhắn riêng với bot nhé!"
)
SEND_FAILED = "Không gửi được trò chơi. Bạn thử lại sau nhé!"
NO_GAME_MESSAGE = "Không tìm thấy tin nhắn trò chơi. Hãy gửi /noitu để chơi lại nhé!"

__all__ = [
    "COMMAND_DESCRIPTION",
    "GAME_DISABLED",
    "NO_GAMES_IN_CHANNELS",
    "NO_GAME_MESSAGE",
    "SEND_FAILED",
]
