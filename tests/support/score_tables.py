"""A fake Bot API that keeps game high-score tables as Telegram does: setGameScore with
force=false (a score not higher answers BOT_SCORE_NOT_MODIFIED), getGameHighScores (the
top 3, and the user with two neighbours on each side)."""

from __future__ import annotations

import itertools
from typing import Any

from aiogram import Bot
from aiogram.methods import TelegramMethod

from support.telegram import Fail, RecordingSession, fields_of, game_message_of


class ScoreTableSession(RecordingSession):
    def __init__(self, names: dict[int, str] | None = None) -> None:
        super().__init__()
        self.names = names or {}
        self.tables: dict[str, dict[int, tuple[int, int]]] = {}  # user -> (score, order)
        self._order = itertools.count()

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        name = method.__api_method__
        if name in ("setGameScore", "getGameHighScores") and not self.canned[name]:
            fields = fields_of(method)
            table = self.tables.setdefault(game_message_of(fields).key, {})
            if name == "setGameScore":
                user, score = fields["user_id"], fields["score"]
                if user in table and score <= table[user][0] and not fields.get("force"):
                    self.answer(name, Fail(400, "Bad Request: BOT_SCORE_NOT_MODIFIED"))
                else:
                    table[user] = (score, next(self._order))
            else:
                self.answer(name, self._rows(table, fields["user_id"]))
        return await super().make_request(bot, method, timeout)

    def _rows(self, table: dict[int, tuple[int, int]], user: int) -> list[dict[str, Any]]:
        ranked = sorted(table.items(), key=lambda item: (-item[1][0], item[1][1]))
        shown = set(range(min(3, len(ranked))))
        for index, (who, _) in enumerate(ranked):
            if who == user:
                shown.update(range(max(0, index - 2), min(len(ranked), index + 3)))
        return [
            {
                "position": index + 1,
                "user": {
                    "id": ranked[index][0],
                    "is_bot": False,
                    "first_name": self.names.get(ranked[index][0], f"Người {ranked[index][0]}"),
                },
                "score": ranked[index][1][0],
            }
            for index in sorted(shown)
        ]
