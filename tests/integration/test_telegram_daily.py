"""The daily game through Telegram (spec B13), the Bot API faked by a recording
session: /noitungay sends the game NOITU_DAILY_GAME names (or says the daily game is
off), Play on it answers a daily link, and the score goes to that message's table."""

from __future__ import annotations

import base64
import json
import os
from typing import Any

import structlog.testing
from aiogram import Bot
from aiogram.types import Update
from litestar.testing import AsyncTestClient

from noitu.adapters.dictionary_file import lexicon_from_lines
from noitu.adapters.telegram.texts import DAILY_OFF, NO_GAMES_IN_CHANNELS
from noitu.entrypoints.app import create_app
from noitu.entrypoints.container import Container
from noitu.entrypoints.settings import load_settings
from support.dictionaries import LITTLE
from support.fakes import CollectingBackground, FakeClock
from support.telegram import Fail, RecordingSession

BOT_TOKEN = "123456:TEST-token"
BASE_URL = "https://noitu.example.com"
FORUM = {"id": -100300, "type": "supergroup", "title": "Diễn đàn", "is_forum": True}
CHANNEL = {"id": -100400, "type": "channel", "title": "Kênh"}
PLAYER = {"id": 42, "is_bot": False, "first_name": "An"}
API = "/games/noitu/api"


class Bot_:
    """The container with Telegram on, its Bot API a recording session."""

    def __init__(self, **env: str) -> None:
        self.session = RecordingSession()
        self.container = Container()
        self.container.settings.override(load_settings({
            "TELEGRAM_BOT_TOKEN": BOT_TOKEN, "GAME_BASE_URL": BASE_URL,
            "NOITU_GAME_SECRET": "s" * 32, "NOITU_ACCESS_LOG": "0", "MODULES": "noitu",
            "NOITU_DATA_DIR": os.environ["NOITU_DATA_DIR"], **env,
        }))
        self.bot = Bot(BOT_TOKEN, session=self.session)
        self.container.telegram_bot.override(self.bot)
        self.container.lexicon.override(lexicon_from_lines(LITTLE.splitlines(), "little"))
        self.container.clock.override(FakeClock())
        self.background = CollectingBackground()
        self.container.background.override(self.background)
        self.updates = 0

    async def feed(self, update: dict[str, Any]) -> None:
        self.updates += 1
        await self.container.telegram_dispatcher().feed_update(
            self.bot,
            Update.model_validate({"update_id": self.updates, **update}, context={"bot": self.bot}),
        )

    async def command(self, text: str, chat: dict[str, Any] = FORUM, **extra: Any) -> None:
        message = {
            "message_id": 10, "date": 1, "chat": chat, "text": text,
            "entities": [{"type": "bot_command", "offset": 0, "length": len(text)}], **extra,
        }
        if chat["type"] == "channel":
            await self.feed({"channel_post": {**message, "sender_chat": chat}})
        else:
            await self.feed({"message": {**message, "from": PLAYER}})

    async def play(self, short_name: str, message_id: int) -> dict[str, Any] | None:
        before = len(self.session.named("answerCallbackQuery"))
        message = {"message_id": message_id, "date": 1, "chat": FORUM}
        await self.feed({"callback_query": {
            "id": f"q{self.updates}", "from": PLAYER, "chat_instance": "ci",
            "game_short_name": short_name, "message": message,
        }})
        answers = self.session.named("answerCallbackQuery")
        return answers[-1] if len(answers) > before else None


def claims_of(url: str) -> dict[str, Any]:
    body = url.split("?t=", 1)[1].split(".")[0]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


async def test_noitungay_sends_the_daily_game_and_its_score_goes_to_that_message() -> None:
    world = Bot_()
    await world.command("/noitungay", is_topic_message=True, message_thread_id=7)
    (sent,) = world.session.named("sendGame")
    assert sent == {"chat_id": -100300, "game_short_name": "noitungay", "message_thread_id": 7}
    message_id = 900  # the recording session's first sent message
    answer = await world.play("noitungay", message_id)
    assert answer is not None and "show_alert" not in answer
    url = answer["url"]
    assert url.startswith(f"{BASE_URL}/games/noitu/?t=")
    claims = claims_of(url)
    assert claims["d"] == 1 and (claims["c"], claims["m"]) == (-100300, message_id)
    token = url.split("?t=", 1)[1]
    async with AsyncTestClient(create_app(world.container)) as client:
        view = (await client.post(f"{API}/start", json={"token": token})).json()
        assert view["day"] and view["difficulty"] == "medium"
        world.container.clock().advance(1_000)
        await client.post(f"{API}/move", json={"session": view["session"], "word": "đầu tiên"})
        ended = (await client.post(f"{API}/give-up", json={"session": view["session"]})).json()
        await world.background.settle()
        assert world.session.named("setGameScore") == [{
            "user_id": 42, "score": ended["score"], "force": False,
            "chat_id": -100300, "message_id": message_id,
        }]
        daily = (await client.post(f"{API}/daily", json={"session": view["session"]})).json()
        assert daily["status"] == "ready" and daily["streak"] == 1
    # The solo game's Play still answers a solo link.
    solo = await world.play("noitu", 901)
    assert solo is not None and "d" not in claims_of(solo["url"])


async def test_the_daily_game_s_short_name_is_the_operator_s() -> None:
    world = Bot_(NOITU_DAILY_GAME="homnay")
    await world.command("/noitungay")
    assert [s["game_short_name"] for s in world.session.named("sendGame")] == ["homnay"]
    answer = await world.play("homnay", 900)
    assert answer is not None and claims_of(answer["url"])["d"] == 1
    assert await world.play("noitungay", 900) is None  # not a game of this bot


async def test_with_the_setting_empty_the_command_says_the_daily_game_is_off() -> None:
    world = Bot_(NOITU_DAILY_GAME="")
    await world.command("/noitungay", is_topic_message=True, message_thread_id=7)
    assert world.session.named("sendGame") == []
    assert world.session.named("sendMessage") == [
        {"chat_id": -100300, "text": DAILY_OFF, "message_thread_id": 7}
    ]
    assert await world.play("noitungay", 900) is None


async def test_a_short_name_telegram_does_not_know_is_off_too_and_logged() -> None:
    world = Bot_()
    world.session.answer("sendGame", Fail(400, "Bad Request: GAME_SHORTNAME_INVALID"))
    with structlog.testing.capture_logs() as logs:
        await world.command("/noitungay")
    assert [m["text"] for m in world.session.named("sendMessage")] == [DAILY_OFF]
    (failed,) = [entry for entry in logs if entry["event"] == "send_game_failed"]
    assert failed["game"] == "noitungay" and "short name noitungay" in failed["hint"]


async def test_a_channel_gets_a_text_as_for_noitu() -> None:
    world = Bot_()
    await world.command("/noitungay", chat=CHANNEL)
    assert world.session.named("sendMessage") == [{"chat_id": -100400, "text": NO_GAMES_IN_CHANNELS}]
