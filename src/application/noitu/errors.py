"""The errors only nối từ's use cases answer with (spec "HTTP API")."""

from __future__ import annotations

from noitu.application.errors import SHARED_ERRORS, BadRequest, Busy, GameError

__all__ = ["NOITU_ERRORS", "BadRequest", "BadToken", "Busy", "GameError", "GameOver",
           "NoSession", "TokenExpired", "TooFast"]


class BadToken(GameError):
    code = "bad_token"
    default_message = "Liên kết trò chơi không hợp lệ. Hãy mở lại trò chơi từ Telegram."


class TokenExpired(GameError):
    code = "token_expired"
    default_message = "Liên kết trò chơi đã hết hạn. Hãy mở lại trò chơi từ Telegram."


class NoSession(GameError):
    code = "no_session"
    default_message = "Ván chơi không còn nữa. Hãy bắt đầu ván mới."


class GameOver(GameError):
    code = "game_over"
    default_message = "Ván chơi đã kết thúc rồi."


class TooFast(GameError):
    code = "too_fast"
    default_message = "Chậm lại một chút nhé!"


NOITU_ERRORS: tuple[type[GameError], ...] = (
    *SHARED_ERRORS, BadToken, TokenExpired, NoSession, GameOver, TooFast,
)
