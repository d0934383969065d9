"""What the bot says in chats, in Vietnamese: short and friendly."""

from __future__ import annotations

from noitu.application.noitu.messages import GAME_DISABLED

COMMAND_DESCRIPTION = "Chơi nối từ với bot"
NO_GAMES_IN_CHANNELS = (
    "Kênh không chơi được trò chơi. Hãy gửi /noitu trong nhóm hoặc nhắn riêng với bot nhé!"
)
SEND_FAILED = "Không gửi được trò chơi. Bạn thử lại sau nhé!"
NO_GAME_MESSAGE = "Không tìm thấy tin nhắn trò chơi. Hãy gửi /noitu để chơi lại nhé!"

# Nối từ hôm nay (spec B13).
DAILY_COMMAND_DESCRIPTION = "Nối từ hôm nay: một ván chung cho mọi người mỗi ngày"
DAILY_OFF = "Nối từ hôm nay đang tắt trên máy chủ này. Gửi /noitu để chơi ván thường nhé!"

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

# The words the players bring (spec B11).
REPORT_COMMAND_DESCRIPTION = "Báo một từ còn thiếu"
LOOKUP_COMMAND_DESCRIPTION = "Xem một từ có trong trò chơi không"
REPORT_USAGE = "Gõ /baotu rồi đến từ còn thiếu, ví dụ: /baotu trà sữa"
LOOKUP_USAGE = "Gõ /tu rồi đến từ cần xem, ví dụ: /tu trà sữa"
WORD_IN_GAME = "«{word}» có trong trò chơi."
VARIANT_IN_GAME = "«{asked}» có trong trò chơi, viết là «{word}»."
ADDED_ON = " Từ này đã được thêm ngày {date}."
WORD_NOT_IN_GAME = "«{word}» chưa có trong trò chơi. Gửi /baotu {word} để báo thiếu từ nhé!"
REVIEW_TITLE = "Từ được báo thiếu: «{word}»"
REVIEW_COUNT = "Số người báo: {count}"
REVIEW_NEAREST = "Từ gần nhất: {words}"
REVIEW_NO_NEAREST = "Từ gần nhất: (không có)"
REVIEW_ADD = "Thêm"
REVIEW_SKIP = "Bỏ qua"
REVIEW_ADDED_BY = "Đã thêm bởi {name}."
REVIEW_SKIPPED_BY = "Đã bỏ qua bởi {name}."
REVIEW_ADMINS_ONLY = "Chỉ quản trị viên của nhóm này mới bấm được."
REVIEW_DONE = "Xong!"
