"""A recording Bot API session for tests without Telegram.

It records every call as a method name and its fields, answers canned results, and turns
canned error answers into aiogram's real error types through `check_response`, the way
the real session does.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict, deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import pytest
from aiogram import Bot
from aiogram.client.default import Default
from aiogram.client.session.base import BaseSession
from aiogram.methods import TelegramMethod

BOT_USER = {"id": 123456, "is_bot": True, "first_name": "Nối từ", "username": "NoiTuBot"}


@dataclass(frozen=True)
class Fail:
    """A canned error answer: an HTTP status and Telegram's description."""

    status: int
    description: str
    retry_after: int | None = None


HANG = object()  # a canned answer that never comes


@dataclass(frozen=True)
class Call:
    method: str
    fields: dict[str, Any]


def _plain(value: Any) -> Any:
    """Drops unset fields (None, or a bot default), at every depth."""
    if isinstance(value, dict):
        return {
            k: _plain(v) for k, v in value.items() if v is not None and not isinstance(v, Default)
        }
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _fields(method: TelegramMethod[Any]) -> dict[str, Any]:
    return _plain(method.model_dump(warnings=False))


class RecordingSession(BaseSession):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.canned: dict[str, deque[Any]] = defaultdict(deque)
        self.updates: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed = False

    def answer(self, method: str, *answers: Any) -> None:
        self.canned[method].extend(answers)

    def named(self, method: str) -> list[dict[str, Any]]:
        return [call.fields for call in self.calls if call.method == method]

    async def _default(self, name: str, method: TelegramMethod[Any]) -> Any:
        if name == "getMe":
            return BOT_USER
        if name in ("sendGame", "sendMessage"):
            fields = _fields(method)
            message: dict[str, Any] = {
                "message_id": 900 + len(self.calls),
                "date": 1,
                "chat": {"id": fields["chat_id"], "type": "group", "title": "x"},
            }
            if name == "sendGame":
                message["game"] = {"title": "Nối từ", "description": "", "photo": []}
            else:
                message["text"] = fields["text"]
            return message
        if name == "getUpdates":
            try:
                return [await asyncio.wait_for(self.updates.get(), 0.05)]
            except TimeoutError:
                return []
        return True

    async def make_request(
        self, bot: Bot, method: TelegramMethod[Any], timeout: int | None = None
    ) -> Any:
        name = method.__api_method__
        self.calls.append(Call(name, _fields(method)))
        canned = self.canned[name].popleft() if self.canned[name] else None
        if canned is HANG:
            await asyncio.sleep(3600)
        if isinstance(canned, Exception):
            raise canned
        if isinstance(canned, Fail):
            body: dict[str, Any] = {
                "ok": False,
                "error_code": canned.status,
                "description": canned.description,
            }
            if canned.retry_after is not None:
                body["parameters"] = {"retry_after": canned.retry_after}
            self.check_response(bot, method, canned.status, json.dumps(body))
            pytest.fail("check_response should have raised")
        result = canned if canned is not None else await self._default(name, method)
        response = self.check_response(bot, method, 200, json.dumps({"ok": True, "result": result}))
        return response.result

    async def stream_content(self, *args: Any, **kwargs: Any) -> AsyncGenerator[bytes, None]:
        yield b""

    async def close(self) -> None:
        self.closed = True
