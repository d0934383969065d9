"""Group rooms through Telegram (spec B10), the Bot API faked by a recording session:
/noituphong sends and records a room card, Play by three people answers room links,
they play over HTTP, each person's score goes to the card with setGameScore, the
announcement goes to the card's topic, and /noitutop answers the chat's leaderboard."""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from noitu.adapters.noitu.telegram.texts import (
    EMPTY_LEADERBOARD,
    LEADERBOARD_IS_FOR_GROUPS,
    NO_GAMES_IN_CHANNELS,
    ROOMS_ARE_FOR_GROUPS,
)
from noitu.application.noitu.rooms.messages import announcement
from noitu.entrypoints.app import create_app
from support.fakes import FakeClock
from support.telegram import (
    CHANNEL,
    FORUM,
    GROUP,
    PRIVATE,
    TelegramWorld,
    claims_of,
    token_of,
)

TOPIC = 77
ROOM = "/games/noitu/api/room"


@pytest.fixture
def world(clock: FakeClock) -> TelegramWorld:
    return TelegramWorld(clock)


async def test_a_group_plays_from_the_card_to_the_announcement_and_the_leaderboard(world):
    client = AsyncTestClient(create_app(world.container))
    async with client:
        in_topic = {"is_topic_message": True, "message_thread_id": TOPIC}
        await world.command("/noituphong", FORUM, **in_topic)
        (sent,) = world.session.named("sendGame")
        assert (sent["chat_id"], sent["game_short_name"], sent["message_thread_id"]) == (
            FORUM["id"], "noitu", TOPIC)
        (card,) = world.session.sent_ids("sendGame")
        urls = [await world.link(card, FORUM, user, **in_topic) for user in (1, 2, 3)]
        for user, url in zip((1, 2, 3), urls, strict=True):
            claims = claims_of(url)
            assert (claims["u"], claims["c"], claims["m"], claims["t"], claims["r"]) == (
                user, FORUM["id"], card, TOPIC, 1)
        members = []
        for url in urls:
            answer = await client.post(f"{ROOM}/join", json={"token": token_of(url)})
            assert answer.status_code == 200, answer.text
            members.append(answer.json()["member"])
        host, guest, _third = members
        assert (await client.post(f"{ROOM}/start", json={"member": host})).status_code == 200
        world.clock.advance(1_000)
        await client.post(f"{ROOM}/move", json={"member": host, "word": "đầu tiên"})
        world.clock.advance(1_000)
        await client.post(f"{ROOM}/move", json={"member": guest, "word": "tiên sinh"})
        world.clock.advance(32_001)  # the third runs out of time, nobody connected
        assert await world.container.group_settle()() == 1
        world.clock.advance(1_000)
        await client.post(f"{ROOM}/move", json={"member": host, "word": "sinh viên"})
        world.clock.advance(1_000)
        done = await client.post(f"{ROOM}/move", json={"member": guest, "word": "viên chức"})
        result = done.json()["state"]["result"]
        assert result["winner"] == 2 and result["words"] == 4
        await world.background.settle()

        totals = {s["seat"]: s["score"] for s in result["standings"]}
        scores = world.session.named("setGameScore")
        assert sorted((s["user_id"], s["score"], s["chat_id"], s["message_id"], s["force"])
                      for s in scores) == [
            (1, totals[1], FORUM["id"], card, False), (2, totals[2], FORUM["id"], card, False),
        ]  # the third scored nothing: no report
        texts = [m for m in world.session.named("sendMessage")]
        assert [(m["chat_id"], m["message_thread_id"], m["text"]) for m in texts] == [
            (FORUM["id"], TOPIC, announcement("Bạn 2", 4)),
        ]
        await world.command("/noitutop", FORUM, **in_topic)
        board = world.session.named("sendMessage")[-1]
        assert board["message_thread_id"] == TOPIC
        lines = board["text"].splitlines()
        assert lines[1].startswith("1. Bạn 2: 1 thắng") and lines[2].startswith("2. Bạn 1: 0 thắng")
        assert len(lines) == 4


async def test_where_noituphong_and_noitutop_answer(world):
    await world.command("/noituphong", PRIVATE)
    await world.command("/noituphong", CHANNEL)
    await world.command("/noituphong@OtherBot", GROUP)
    await world.command("/noitutop", PRIVATE)
    await world.command("/noitutop", CHANNEL)
    await world.command("/noitutop", GROUP)
    assert world.session.named("sendGame") == []
    assert [m["text"] for m in world.session.named("sendMessage")] == [
        ROOMS_ARE_FOR_GROUPS, NO_GAMES_IN_CHANNELS, LEADERBOARD_IS_FOR_GROUPS,
        LEADERBOARD_IS_FOR_GROUPS, EMPTY_LEADERBOARD,
    ]


async def test_play_on_a_plain_game_message_opens_the_solo_game(world):
    await world.command("/noitu", GROUP)
    await world.command("/noituphong", GROUP)
    solo_id, card_id = world.session.sent_ids("sendGame")
    assert "r" not in claims_of(await world.link(solo_id, GROUP))
    assert claims_of(await world.link(card_id, GROUP))["r"] == 1


async def test_the_commands_are_in_the_bots_command_list(world):
    runner = world.container.telegram_runner()
    await runner._set_commands()
    (listed,) = world.session.named("setMyCommands")
    assert [c["command"] for c in listed["commands"]] == [
        "noitu", "noitungay", "noituphong", "noitutop", "baotu", "tu",
    ]
