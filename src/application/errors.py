"""The errors a use case of either game can answer with; each has a stable code, and
the HTTP adapter's one table maps codes to statuses."""

from __future__ import annotations

from typing import ClassVar


class GameError(Exception):
    code: ClassVar[str] = "internal"
    default_message: ClassVar[str] = "Máy chủ gặp sự cố. Bạn thử lại sau nhé."

    def __init__(self, message: str | None = None, *, retry_after_ms: int | None = None) -> None:
        self.message = message or self.default_message
        #: A refusal that lifts by itself (a rate limit): in how many ms asking again
        #: may succeed, at the latest; None when the use case cannot tell.
        self.retry_after_ms = retry_after_ms
        super().__init__(self.message)


class BadRequest(GameError):
    code = "bad_request"
    default_message = "Yêu cầu không hợp lệ."


class Busy(GameError):
    code = "busy"
    default_message = "Máy chủ đang bận. Bạn thử lại sau ít phút nhé."


SHARED_ERRORS: tuple[type[GameError], ...] = (GameError, BadRequest, Busy)
