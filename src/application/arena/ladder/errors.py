"""The ladder's refusals (spec B8). Each code is stable and gets one row in the HTTP
adapter's table when the ladder's routes are added."""

from __future__ import annotations

from noitu.application.errors import Busy, GameError


class TooManyRanked(GameError):
    code = "too_many_ranked"
    default_message = "Bạn đã xếp hạng đủ số bot cho phép. Bỏ xếp hạng một bot rồi thử lại nhé."


class NotRanked(GameError):
    code = "not_ranked"
    default_message = "Bot này chưa có trên bảng xếp hạng."


class BotRanked(GameError):
    """B8: a ranked bot is public; it cannot be made private while ranked."""

    code = "bot_ranked"
    default_message = "Bot đang có trên bảng xếp hạng nên phải công khai. Bỏ xếp hạng trước nhé."


class LadderBusy(Busy):
    """The scheduler's lease is held elsewhere right now; asking again soon works."""

    default_message = "Bảng xếp hạng đang được cập nhật. Bạn thử lại sau ít giây nhé."


LADDER_ERRORS: tuple[type[GameError], ...] = (TooManyRanked, NotRanked, BotRanked, LadderBusy)
