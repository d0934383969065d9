"""The errors a use case can answer with; each has a stable code (spec "HTTP API")."""

from __future__ import annotations

from noitu.application.noitu.messages import ERROR_MESSAGES


class GameError(Exception):
    code = "internal"

    def __init__(self, message: str | None = None) -> None:
        self.message = message or ERROR_MESSAGES[self.code]
        super().__init__(self.message)


class BadRequest(GameError):
    code = "bad_request"


class BadToken(GameError):
    code = "bad_token"


class TokenExpired(GameError):
    code = "token_expired"


class NoSession(GameError):
    code = "no_session"


class GameOver(GameError):
    code = "game_over"


class TooFast(GameError):
    code = "too_fast"


class Busy(GameError):
    code = "busy"
