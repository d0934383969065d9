"""Every Vietnamese sentence nối từ says to a player besides its errors, in one place."""

from __future__ import annotations

from noitu.domain.noitu.rules import (
    MAX_TYPED_CHARACTERS,
    MAX_TYPED_TOKENS,
    MIN_SYLLABLES,
)

WORD_TOO_LONG = f"Từ quá dài: tối đa {MAX_TYPED_CHARACTERS} ký tự và {MAX_TYPED_TOKENS} tiếng."
BAD_DIFFICULTY = "Độ khó chỉ có thể là dễ (easy), vừa (medium) hoặc khó (hard)."

REJECTION_MESSAGES: dict[str, str] = {
    "too_few_syllables": f"Từ phải có ít nhất {MIN_SYLLABLES} tiếng.",
    "not_in_dictionary": "Từ này không có trong từ điển.",
    "wrong_link": "Từ phải bắt đầu bằng “{current}”.",
    "already_used": "Từ này đã được dùng trong ván rồi.",
    "timeout": "Hết giờ rồi!",
}

GAME_DISABLED = "Trò chơi nối từ chưa được cấu hình trên máy chủ này."

# Nối từ hôm nay (spec B13): the share text holds no word of the game.
DAILY_SHARE = "Nối từ hôm nay {date} · {words} từ · {score} điểm · {streak} ngày liền"
NOT_DAILY = "Ván này không phải ván nối từ hôm nay."
DAILY_OFF = "Ván nối từ hôm nay đang tắt trên máy chủ này."
