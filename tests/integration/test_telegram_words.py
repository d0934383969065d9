"""The words the players bring in Telegram (spec B11), the Bot API faked by a recording
session: /baotu, the admin chat's message, later reports editing it at most once a
minute, the buttons pressed by an administrator and by someone else, and /tu."""

from __future__ import annotations

from typing import Any

import pytest

from noitu.adapters.noitu.telegram.words import players_date
from support.fakes import FakeClock
from support.telegram import TelegramWorld, person

ADMIN_CHAT = {"id": -100900, "type": "supergroup", "title": "Quản trị"}


class World(TelegramWorld):
    """Telegram on, with an admin chat for the words players report."""

    def admin_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.session.named("sendMessage") if m["chat_id"] == ADMIN_CHAT["id"]]


@pytest.fixture
def world(clock: FakeClock) -> World:
    return World(clock, NOITU_ADMIN_CHAT=str(ADMIN_CHAT["id"]))


async def test_a_report_reaches_the_admin_chat_once_and_later_reports_edit_it(world):
    reply = await world.reply("/baotu Trà  sữa")
    assert reply == "Cảm ơn bạn! Từ «trà sữa» đã được gửi để xem xét."
    [posted] = world.admin_messages()
    assert posted["text"].splitlines() == [
        "Từ được báo thiếu: «trà sữa»", "Số người báo: 1", "Từ gần nhất: (không có)",
    ]
    buttons = posted["reply_markup"]["inline_keyboard"][0]
    assert [(b["text"], b["callback_data"]) for b in buttons] == [
        ("Thêm", "words:add"), ("Bỏ qua", "words:skip"),
    ]
    world.clock.advance(10_000)
    await world.reply("/baotu trà sữa", user=2)
    assert len(world.admin_messages()) == 1
    assert world.session.named("editMessageText") == []  # within the minute
    world.clock.advance(60_000)
    await world.reply("/baotu trà sữa", user=3)
    [edited] = world.session.named("editMessageText")
    assert edited["chat_id"] == ADMIN_CHAT["id"]
    assert "Số người báo: 3" in edited["text"].splitlines()

    await world.reply("/baotu đầu gối")
    nearest = world.admin_messages()[-1]["text"].splitlines()[2]
    assert nearest == "Từ gần nhất: đầu bếp, đầu tiên, đầu óc, đầu mối"  # common first


async def test_the_answers_for_a_known_word_an_unfit_one_and_no_word(world):
    assert await world.reply("/baotu hoà bình") == "Từ «hòa bình» đã có trong trò chơi rồi."
    assert await world.reply("/baotu trà") == "Từ cần có ít nhất 2 tiếng."
    assert (await world.reply("/baotu")).startswith("Gõ /baotu")
    assert world.admin_messages() == []


async def test_only_the_admin_chats_administrators_can_add(world):
    await world.reply("/baotu trà sữa")
    [posted] = world.admin_messages()
    [pending] = await world.container.pending_words()()
    message = (pending.message_id, ADMIN_CHAT, posted["text"])
    world.session.answer("getChatMember", {"status": "member", "user": person(7)})
    refused = await world.press("words:add", 7, *message)
    assert refused["show_alert"] and refused["text"] == "Chỉ quản trị viên của nhóm này mới bấm được."
    assert world.container.lexicon().resolve("trà sữa") is None
    assert (await world.reply("/tu trà sữa")).startswith("«trà sữa» chưa có trong trò chơi.")

    world.session.answer("getChatMember", {"status": "creator", "user": person(5), "is_anonymous": False})
    done = await world.press("words:add", 5, *message)
    assert done["text"] == "Xong!"
    [edited] = world.session.named("editMessageText")
    assert edited["text"].endswith("\n\nĐã thêm bởi Bạn 5.")
    assert "reply_markup" not in edited
    assert [c.fields["user_id"] for c in world.session.calls if c.method == "getChatMember"] == [7, 5]
    assert await world.container.pending_words()() == []
    date = players_date(world.clock.now_ms())
    assert await world.reply("/tu trà sữa") == f"«trà sữa» có trong trò chơi. Từ này đã được thêm ngày {date}."


async def test_skip_rejects_the_word(world):
    await world.reply("/baotu mây trôi")
    [posted] = world.admin_messages()
    [pending] = await world.container.pending_words()()
    message = (pending.message_id, ADMIN_CHAT, posted["text"])
    world.session.answer("getChatMember", {"status": "creator", "user": person(5), "is_anonymous": False})
    await world.press("words:skip", 5, *message)
    assert world.session.named("editMessageText")[0]["text"].endswith("Đã bỏ qua bởi Bạn 5.")
    assert await world.container.pending_words()() == []
    await world.reply("/baotu mây trôi", user=9)
    assert len(world.admin_messages()) == 1  # a rejected word is not posted again


async def test_tu_answers_for_a_known_word_a_variant_and_a_missing_one(world):
    assert await world.reply("/tu hòa bình") == "«hòa bình» có trong trò chơi."
    assert await world.reply("/tu Hoà Bình") == "«hoà bình» có trong trò chơi, viết là «hòa bình»."
    assert await world.reply("/tu lí do") == "«lí do» có trong trò chơi, viết là «lý do»."
    missing = await world.reply("/tu tắc đường")
    assert missing == "«tắc đường» chưa có trong trò chơi. Gửi /baotu tắc đường để báo thiếu từ nhé!"
