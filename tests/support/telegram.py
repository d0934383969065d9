"""The Telegram test harness, one home for every Telegram test.

- `RecordingSession`: the Bot API without Telegram. It records every call as a method
  name and its fields, answers canned results, and turns canned error answers into
  aiogram's real error types through `check_response`, the way the real session does.
- Update builders (`command`, `play`, `press`, `message`, `person`) and the chats and
  people they use, as Telegram sends them.
- `TelegramWorld`: the container with Telegram on, its Bot API a recording session, fed
  updates through the app's own dispatcher.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections import defaultdict, deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

import pytest
from aiogram import Bot, Dispatcher
from aiogram.client.default import Default
from aiogram.client.session.base import BaseSession
from aiogram.methods import TelegramMethod
from aiogram.types import Update

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.application.noitu.session import GameMessage
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.dictionaries import LITTLE
from support.fakes import CollectingBackground, FakeClock

BOT_TOKEN = "123456:TEST-token"
BASE_URL = "https://noitu.example.com"
LINK_PREFIX = f"{BASE_URL}/games/noitu/?t="  # what Play answers: the page with a signed token
BOT_USER = {"id": 123456, "is_bot": True, "first_name": "Nối từ", "username": "NoiTuBot"}
GAME = {"title": "Nối từ", "description": "", "photo": []}

PRIVATE = {"id": 42, "type": "private", "first_name": "An"}
GROUP = {"id": -100200, "type": "group", "title": "Nhóm"}
SUPERGROUP = {"id": -100200, "type": "supergroup", "title": "Nhóm"}  # no forum: no topics
FORUM = {"id": -100300, "type": "supergroup", "title": "Diễn đàn", "is_forum": True}
CHANNEL = {"id": -100400, "type": "channel", "title": "Kênh"}


def person(user_id: int, first_name: str | None = None) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": first_name or f"Bạn {user_id}"}


PLAYER = person(42, "An")  # the private chat's person


# --- updates, as Telegram sends them ---------------------------------------------------


def message(message_id: int, chat: dict[str, Any], date: int = 1, **extra: Any) -> dict[str, Any]:
    """A message; date 0 makes it one the bot can no longer see (InaccessibleMessage)."""
    return {"message_id": message_id, "date": date, "chat": chat, **extra}


def command(
    text: str = "/noitu",
    chat: dict[str, Any] = PRIVATE,
    *,
    update_id: int = 1,
    sender: dict[str, Any] = PLAYER,
    **extra: Any,
) -> dict[str, Any]:
    """A command message; in a channel a channel post, signed by the channel."""
    entity = {"type": "bot_command", "offset": 0, "length": len(text.split()[0])}
    sent = {**message(10, chat), "text": text, "entities": [entity], **extra}
    if chat["type"] == "channel":
        return {"update_id": update_id, "channel_post": {**sent, "sender_chat": chat}}
    return {"update_id": update_id, "message": {**sent, "from": sender}}


def play(
    *,
    update_id: int = 1,
    query_id: str = "q1",
    sender: dict[str, Any] = PLAYER,
    short_name: str = "noitu",
    **where: Any,
) -> dict[str, Any]:
    """Play pressed on a game: `where` is its `message` or its `inline_message_id`."""
    query = {
        "id": query_id, "from": sender, "chat_instance": "ci", "game_short_name": short_name,
        **where,
    }
    return {"update_id": update_id, "callback_query": query}


def press(
    data: str,
    on: dict[str, Any],
    *,
    update_id: int = 1,
    query_id: str = "q1",
    sender: dict[str, Any] = PLAYER,
) -> dict[str, Any]:
    """An inline button with callback `data` pressed on the message `on`."""
    query = {"id": query_id, "from": sender, "chat_instance": "ci", "data": data, "message": on}
    return {"update_id": update_id, "callback_query": query}


async def feed(bot: Bot, dispatcher: Dispatcher, update: dict[str, Any]) -> None:
    await dispatcher.feed_update(bot, Update.model_validate(update, context={"bot": bot}))


def game_message_of(fields: dict[str, Any]) -> GameMessage:
    """The game message a call's fields name (setGameScore, getGameHighScores): a chat's
    message or an inline one, never both."""
    return GameMessage(
        chat_id=fields.get("chat_id"),
        message_id=fields.get("message_id"),
        inline_message_id=fields.get("inline_message_id"),
    )


def token_of(url: str) -> str:
    assert url.startswith(LINK_PREFIX), url
    return url[len(LINK_PREFIX) :]


def claims_of(url: str) -> dict[str, Any]:
    """The signed claims of a game link, read without checking the signature."""
    body = token_of(url).split(".")[0]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


# --- the Bot API ---------------------------------------------------------------------


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


def fields_of(method: TelegramMethod[Any]) -> dict[str, Any]:
    return _plain(method.model_dump(warnings=False))


class RecordingSession(BaseSession):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.canned: dict[str, deque[Any]] = defaultdict(deque)
        self.updates: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sent: list[tuple[str, int]] = []  # (method, message id) of each message sent
        self.closed = False

    def answer(self, method: str, *answers: Any) -> None:
        self.canned[method].extend(answers)

    def named(self, method: str) -> list[dict[str, Any]]:
        return [call.fields for call in self.calls if call.method == method]

    def sent_ids(self, method: str) -> list[int]:
        """The ids of the messages this session answered `method` (sendGame, sendMessage)
        with, in order."""
        return [message_id for name, message_id in self.sent if name == method]

    async def _default(self, name: str, method: TelegramMethod[Any]) -> Any:
        if name == "getMe":
            return BOT_USER
        if name in ("sendGame", "sendMessage"):
            fields = fields_of(method)
            message_id = 900 + len(self.calls)
            self.sent.append((name, message_id))
            chat = {"id": fields["chat_id"], "type": "group", "title": "x"}
            if name == "sendGame":
                return message(message_id, chat, game=GAME, **{"from": BOT_USER})
            return message(message_id, chat, text=fields["text"], **{"from": BOT_USER})
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
        self.calls.append(Call(name, fields_of(method)))
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


# --- the app with Telegram on ----------------------------------------------------------


class TelegramWorld:
    """The container with Telegram on: its Bot API a recording session, the little
    dictionary, a fake clock, and background work each update waits for. `env` adds to or
    overrides the settings. Updates go through the app's own dispatcher, numbered in turn;
    `user` is a person's id (`person(user)` sends it)."""

    def __init__(self, clock: FakeClock | None = None, **env: str) -> None:
        self.session = RecordingSession()
        self.clock = clock or FakeClock()
        self.container = Container()
        self.container.settings.override(load_settings({
            "TELEGRAM_BOT_TOKEN": BOT_TOKEN, "GAME_BASE_URL": BASE_URL,
            "NOITU_GAME_SECRET": "s" * 32, "NOITU_ACCESS_LOG": "0", "MODULES": "noitu",
            "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"], **env,
        }))
        self.bot = Bot(BOT_TOKEN, session=self.session)
        self.container.telegram_bot.override(self.bot)
        self.container.lexicon.override(lexicon_from_lines(LITTLE.splitlines(), "little"))
        self.container.clock.override(self.clock)
        self.background = CollectingBackground()
        self.container.background.override(self.background)
        self.updates = 0

    async def feed(self, update: dict[str, Any]) -> None:
        """Feeds `update` under the next update id, then waits for the work it spawned."""
        self.updates += 1
        dispatcher = self.container.telegram_dispatcher()
        await feed(self.bot, dispatcher, {**update, "update_id": self.updates})
        await self.background.settle()

    async def command(
        self, text: str, chat: dict[str, Any] = GROUP, user: int = 1, **extra: Any
    ) -> None:
        await self.feed(command(text, chat, sender=person(user), **extra))

    async def reply(self, text: str, chat: dict[str, Any] = GROUP, user: int = 1) -> str:
        """The text of the one message the command gets in its chat."""
        before = len(self.session.named("sendMessage"))
        await self.command(text, chat, user)
        sent = self.session.named("sendMessage")[before:]
        (answer,) = [m["text"] for m in sent if m["chat_id"] == chat["id"]]
        return answer

    async def _answered(self, update: dict[str, Any]) -> dict[str, Any] | None:
        """The callback query's answer, if it got one (never more than one)."""
        before = len(self.session.named("answerCallbackQuery"))
        await self.feed(update)
        answers = self.session.named("answerCallbackQuery")[before:]
        assert len(answers) <= 1, answers
        return answers[0] if answers else None

    async def play(
        self,
        message_id: int,
        chat: dict[str, Any],
        user: int = 1,
        short_name: str = "noitu",
        **extra: Any,
    ) -> dict[str, Any] | None:
        """Play pressed on the game message `message_id`: its answer, None if none."""
        on = message(message_id, chat, **extra)
        query_id = f"q{self.updates + 1}"
        return await self._answered(
            play(query_id=query_id, sender=person(user), short_name=short_name, message=on)
        )

    async def link(
        self,
        message_id: int,
        chat: dict[str, Any],
        user: int = 1,
        short_name: str = "noitu",
        **extra: Any,
    ) -> str:
        """The game link Play answers, which must be one (no alert)."""
        answer = await self.play(message_id, chat, user, short_name, **extra)
        assert answer is not None and "show_alert" not in answer, answer
        return answer["url"]

    async def press(
        self, data: str, user: int, message_id: int, chat: dict[str, Any], text: str
    ) -> dict[str, Any]:
        """An inline button pressed on the bot's message: its answer, which must be one."""
        on = message(message_id, chat, text=text, **{"from": BOT_USER})
        query_id = f"q{self.updates + 1}"
        answer = await self._answered(press(data, on, query_id=query_id, sender=person(user)))
        assert answer is not None
        return answer
