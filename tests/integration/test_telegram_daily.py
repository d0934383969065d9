"""The daily game through Telegram (spec B13), the Bot API faked by a recording
session: /noitungay sends the game NOITU_DAILY_GAME names (or says the daily game is
off), Play on it answers a daily link, and the score goes to that message's table."""

from __future__ import annotations

import structlog.testing
from litestar.testing import AsyncTestClient

from noitu.adapters.noitu.telegram.texts import DAILY_OFF, NO_GAMES_IN_CHANNELS
from noitu.entrypoints.app import create_app
from support.telegram import (
    CHANNEL,
    FORUM,
    LINK_PREFIX,
    Fail,
    TelegramWorld,
    claims_of,
    token_of,
)

USER = 42
API = "/games/noitu/api"


async def test_noitungay_sends_the_daily_game_and_its_score_goes_to_that_message() -> None:
    world = TelegramWorld()
    await world.command("/noitungay", FORUM, USER, is_topic_message=True, message_thread_id=7)
    (sent,) = world.session.named("sendGame")
    assert sent == {"chat_id": -100300, "game_short_name": "noitungay", "message_thread_id": 7}
    (message_id,) = world.session.sent_ids("sendGame")
    url = await world.link(message_id, FORUM, USER, "noitungay")
    assert url.startswith(LINK_PREFIX)
    claims = claims_of(url)
    assert claims["d"] == 1 and (claims["c"], claims["m"]) == (-100300, message_id)
    token = token_of(url)
    async with AsyncTestClient(create_app(world.container)) as client:
        view = (await client.post(f"{API}/start", json={"token": token})).json()
        assert view["day"] and view["difficulty"] == "medium"
        world.clock.advance(1_000)
        await client.post(f"{API}/move", json={"session": view["session"], "word": "đầu tiên"})
        ended = (await client.post(f"{API}/give-up", json={"session": view["session"]})).json()
        await world.background.settle()
        assert world.session.named("setGameScore") == [{
            "user_id": USER, "score": ended["score"], "force": False,
            "chat_id": -100300, "message_id": message_id,
        }]
        daily = (await client.post(f"{API}/daily", json={"session": view["session"]})).json()
        assert daily["status"] == "ready" and daily["streak"] == 1
    # The solo game's Play still answers a solo link.
    assert "d" not in claims_of(await world.link(message_id + 1, FORUM, USER))


async def test_the_daily_game_s_short_name_is_the_operator_s() -> None:
    world = TelegramWorld(NOITU_DAILY_GAME="homnay")
    await world.command("/noitungay", FORUM, USER)
    assert [s["game_short_name"] for s in world.session.named("sendGame")] == ["homnay"]
    (message_id,) = world.session.sent_ids("sendGame")
    assert claims_of(await world.link(message_id, FORUM, USER, "homnay"))["d"] == 1
    assert await world.play(message_id, FORUM, USER, "noitungay") is None  # not this bot's


async def test_with_the_setting_empty_the_command_says_the_daily_game_is_off() -> None:
    world = TelegramWorld(NOITU_DAILY_GAME="")
    await world.command("/noitungay", FORUM, USER, is_topic_message=True, message_thread_id=7)
    assert world.session.named("sendGame") == []
    assert world.session.named("sendMessage") == [
        {"chat_id": -100300, "text": DAILY_OFF, "message_thread_id": 7}
    ]
    assert await world.play(900, FORUM, USER, "noitungay") is None


async def test_a_short_name_telegram_does_not_know_is_off_too_and_logged() -> None:
    world = TelegramWorld()
    world.session.answer("sendGame", Fail(400, "Bad Request: GAME_SHORTNAME_INVALID"))
    with structlog.testing.capture_logs() as logs:
        await world.command("/noitungay", FORUM, USER)
    assert [m["text"] for m in world.session.named("sendMessage")] == [DAILY_OFF]
    (failed,) = [entry for entry in logs if entry["event"] == "send_game_failed"]
    assert failed["game"] == "noitungay" and "short name noitungay" in failed["hint"]


async def test_a_channel_gets_a_text_as_for_noitu() -> None:
    world = TelegramWorld()
    await world.command("/noitungay", CHANNEL, USER)
    assert world.session.named("sendMessage") == [{"chat_id": -100400, "text": NO_GAMES_IN_CHANNELS}]
