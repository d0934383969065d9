"""What the bot says in chats, in Vietnamese: short and friendly."""

from __future__ import annotations

from noitu.application.noitu.messages import GAME_DISABLED

COMMAND_DESCRIPTION = "Chơi nối từ với bot"
NO_GAMES_IN_CHANNELS = (
    "Kênh không chơi được trò chơi. Hãy gửi /noitu trong nhóm hoặc nhắn riêng với bot nhé!"
)
SEND_FAILED = "Không gửi được trò chơi. Bạn thử lại sau nhé!"
NO_GAME_MESSAGE = "Không tìm thấy tin nhắn trò chơi. Hãy gửi /noitu để chơi lại nhé!"

# Group rooms (spec B10).
ROOM_COMMAND_DESCRIPTION = "Mở phòng nối từ cho cả nhóm"
TOP_COMMAND_DESCRIPTION = "Bảng xếp hạng nối từ của nhóm"
ROOMS_ARE_FOR_GROUPS = (
    "Phòng nối từ dành cho nhóm. Hãy thêm bot vào nhóm rồi gửi /noituphong nhé! "
    "Muốn chơi một mình thì gửi /noitu."
)
LEADERBOARD_IS_FOR_GROUPS = "Bảng xếp hạng chỉ có trong nhóm. Hãy gửi /noitutop trong nhóm nhé!"
EMPTY_LEADERBOARD = "Nhóm chưa chơi ván phòng nào. Gửi /noituphong để mở phòng nhé!"
LEADERBOARD_TITLE = "🏆 Bảng xếp hạng nối từ của nhóm"
LEADERBOARD_ROW = "{rank}. {name}: {wins} thắng, điểm cao nhất {best}, {games} ván"
UNKNOWN_NAME = "Người chơi {user_id}"

__all__ = [
    "COMMAND_DESCRIPTION",
    "GAME_DISABLED",
    "NO_GAMES_IN_CHANNELS",
    "NO_GAME_MESSAGE",
    "SEND_FAILED",
]
