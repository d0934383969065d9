"""Every Vietnamese sentence the server says to a player, in one place."""

from __future__ import annotations

ERROR_MESSAGES: dict[str, str] = {
    "bad_request": "Yêu cầu không hợp lệ.",
    "bad_token": "Liên kết trò chơi không hợp lệ. Hãy mở lại trò chơi từ Telegram.",
    "token_expired": "Liên kết trò chơi đã hết hạn. Hãy mở lại trò chơi từ Telegram.",
    "no_session": "Ván chơi không còn nữa. Hãy bắt đầu ván mới.",
    "game_over": "Ván chơi đã kết thúc rồi.",
    "too_fast": "Chậm lại một chút nhé!",
    "busy": "Máy chủ đang bận. Bạn thử lại sau ít phút nhé.",
    "internal": "Máy chủ gặp sự cố. Bạn thử lại sau nhé.",
}

WORD_TOO_LONG = "Từ quá dài: tối đa 64 ký tự và 8 tiếng."
BAD_DIFFICULTY = "Độ khó chỉ có thể là dễ (easy), vừa (medium) hoặc khó (hard)."

REJECTION_MESSAGES: dict[str, str] = {
    "too_few_syllables": "Từ phải có ít nhất 2 tiếng.",
    "not_in_dictionary": "Từ này không có trong từ điển.",
    "wrong_link": "Từ phải bắt đầu bằng “{current}”.",
    "already_used": "Từ này đã được dùng trong ván rồi.",
    "timeout": "Hết giờ rồi!",
}

GAME_DISABLED = "Trò chơi nối từ chưa được cấu hình trên máy chủ này."
