"""What a bot author meets on the arena page, in Chromium (issue 30, section 5): a
replay stepped through on a 360×740 phone keeps the whole board and the step buttons on
screen; an owner's suspended bot says "tạm dừng" and its page says what can be done
about it; the owner key is shown on asking, copied, and pasted on another device, where
the page then lists that owner's bots.

The suspension is served as a fixture in the ladder's documented shapes (the real
table's rows, one of them marked suspended): a live server suspends a bot only after
failed ladder matches, which takes long and is checked by the ladder's own tests.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from arena_page import MINIMAL_BOT, ArenaPage
from playwright.sync_api import Route, expect
from test_arena_page import arena, audit, check_overflow, replay_file

from support.process import ServerProcess

SMALL_PHONE = {"width": 360, "height": 740}
LADDER = re.compile(r".*/arena/api/ladder$")
BOT_RATING = re.compile(r".*/arena/api/ladder/bots/([^/?]+)$")

IN_VIEW = """
(ids) => ids.map((id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
})
"""


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    """Each page is a client of its own address: the server trusts this machine as its proxy."""
    return {"NOITU_TRUSTED_PROXY": "127.0.0.1"}


def in_view(page: ArenaPage, *ids: str) -> list[bool]:
    return page.page.evaluate(IN_VIEW, list(ids))


def test_stepping_a_replay_on_a_phone_keeps_the_board_and_the_step_buttons_on_screen(
    open_page, server: ServerProcess, tmp_path: Path
) -> None:
    page = arena(open_page, server, SMALL_PHONE)
    page.open_home()
    page.by_id("replay-file").set_input_files(str(replay_file(tmp_path)))
    page.expect_phase("FINISHED")
    expect(page.by_id("replay-box")).to_be_visible()
    steps = ("replay-start", "replay-prev", "replay-play", "replay-next", "replay-end")
    # As the replay opens, and after the person scrolled a little, and then on each step.
    assert in_view(page, "board", *steps) == [True] * 6, "the replay's first screen"
    page.page.mouse.wheel(0, 120)
    page.page.wait_for_function("() => window.scrollY > 0")
    for _ in range(3):
        scrolled = page.page.evaluate("() => window.scrollY")
        before = page.by_id("replay-position").inner_text()
        page.by_id("replay-prev").click()
        expect(page.by_id("replay-position")).not_to_have_text(before)
        assert page.page.evaluate("() => window.scrollY") == scrolled, "a step scrolled the page"
        assert in_view(page, "board", *steps) == [True] * 6, f"after a step, at {before}"
    page.expect_counters_follow_the_replay()
    check_overflow(page, "a replay on a 360×740 phone")
    audit(page, "a replay on a 360×740 phone")
    page.shot("phone-360-replay")


def mark_suspended(route: Route, bot: str) -> None:
    """The real table, with `bot` on it and suspended (as after its failed matches)."""
    table = route.fetch().json()
    rows = [row for row in table["rows"] if row["botId"] != bot]
    rows.append({
        "rank": len(rows) + 1, "botId": bot, "name": "Bot hay lỗi", "language": "python",
        "builtin": False, "mu": 22.5, "sigma": 7.9, "ordinal": -1.2, "games": 4, "wins": 0,
        "draws": 0, "losses": 4, "lastGameMs": 1_760_000_000_000, "suspended": True,
    })
    route.fulfill(status=200, content_type="application/json", body=json.dumps({**table, "rows": rows}))


def test_a_suspended_bot_and_the_owner_key_moved_to_another_device(
    open_page, server: ServerProcess
) -> None:
    permissions = ["clipboard-read", "clipboard-write"]
    page = arena(open_page, server, SMALL_PHONE, permissions=permissions)
    page.open_home()
    expect(page.page.get_by_test_id("ladder-guide-link")).to_have_attribute("href", "/bot-guide.html#xep-hang")
    expect(page.by_id("owner-key-none")).to_be_visible()
    expect(page.by_id("owner-key-have")).to_be_hidden()
    verdict = page.upload(MINIMAL_BOT, name="Bot hay lỗi")
    expect(verdict).to_have_attribute("data-build", "ok")
    key = page.owner_key()
    assert key and re.fullmatch(r"[0-9a-f]{32}", key)

    # The key: masked but for its tail, shown on asking, copied whole.
    shown = page.by_id("owner-key-text")
    expect(page.by_id("owner-key-have")).to_be_visible()
    expect(shown).to_have_attribute("data-masked", "true")
    expect(shown).not_to_contain_text(key)
    expect(shown).to_contain_text(key[-4:])
    page.by_id("owner-key-show").click()
    expect(shown).to_have_text(key)
    expect(page.by_id("owner-key-show")).to_have_attribute("aria-pressed", "true")
    page.by_id("owner-key-copy").click()
    expect(page.by_id("owner-key-status")).to_contain_text("Đã sao chép")
    assert page.page.evaluate("() => navigator.clipboard.readText()") == key
    page.by_id("owner-key-show").click()
    expect(shown).to_have_attribute("data-masked", "true")

    # Suspended on the ladder: "tạm dừng" in my bots, not "chạy được · đang xếp hạng".
    bot = page.page.locator("#my-bots > li").first.get_attribute("data-bot-id")
    assert bot
    page.page.route(LADDER, lambda route: mark_suspended(route, bot))
    page.by_id("ladder-refresh").click()
    mine = page.page.locator(f'#my-bots > li[data-bot-id="{bot}"]')
    expect(mine).to_have_attribute("data-suspended", "true")
    expect(mine.locator(".bot-head")).to_contain_text("tạm dừng")
    expect(mine).not_to_contain_text("đang xếp hạng")
    expect(mine).not_to_contain_text("chạy được")
    check_overflow(page, "my bots with a suspended bot and the owner key")
    audit(page, "my bots with a suspended bot and the owner key")
    page.shot("phone-360-suspended-and-key")

    # Its page tells the owner today's truth: upload the fixed file as a new bot.
    row: dict[str, Any] = {}

    def rating(route: Route) -> None:
        if route.request.method != "GET":
            route.fallback()
            return
        row.update(next(r for r in page.page.request.get(page.base + "/arena/api/ladder").json()["rows"]
                        if r["botId"] == "random"))
        row.update({"botId": bot, "name": "Bot hay lỗi", "builtin": False, "suspended": True})
        route.fulfill(status=200, content_type="application/json", body=json.dumps({"row": row, "ratings": []}))

    page.page.route(BOT_RATING, rating)
    mine.locator("a.bot-name").click()
    expect(page.by_id("view-bot")).to_have_attribute("data-owner", "true")
    owner_words = page.by_id("bot-suspended-owner")
    expect(owner_words).to_be_visible()
    expect(owner_words).to_contain_text("tải tệp đã sửa lên thành một bot mới")
    expect(owner_words).to_contain_text("cho bot này rời bảng")
    expect(owner_words).to_contain_text("Cho chơi tiếp")
    expect(page.by_id("bot-suspended")).not_to_contain_text("Sửa lỗi rồi bấm")
    expect(page.page.get_by_test_id("resume-bot")).to_be_visible()
    check_overflow(page, "a suspended bot's page, to its owner")
    audit(page, "a suspended bot's page, to its owner")

    # Another device: no key, then a mistyped key, then the key pasted as copied.
    other = arena(open_page, server, SMALL_PHONE)
    other.open_home()
    expect(other.by_id("owner-key-none")).to_be_visible()
    expect(other.by_id("my-bots-empty")).to_be_visible()
    other.by_id("owner-key-input").fill(key[:-1] + "z")
    other.by_id("owner-key-use").click()
    expect(other.by_id("owner-key-error")).to_contain_text("32 ký tự")
    assert other.owner_key() is None
    other.by_id("owner-key-input").fill("f" * 32)  # well formed, but no bot of it
    other.by_id("owner-key-use").click()
    expect(other.by_id("owner-key-error")).to_contain_text("không có bot nào")
    assert other.owner_key() is None
    other.by_id("owner-key-input").fill(f"  {key.upper()} ")
    other.by_id("owner-key-use").click()
    expect(other.page.locator(f'#my-bots > li[data-bot-id="{bot}"]')).to_be_visible()
    expect(other.by_id("owner-key-status")).to_contain_text("1 bot")
    expect(other.by_id("owner-key-error")).to_be_hidden()
    assert other.owner_key() == key
    expect(other.by_id("owner-key-have")).to_be_visible()
    expect(other.by_id("owner-key-text")).to_contain_text(key[-4:])
    check_overflow(other, "another device after pasting the owner key")
    audit(other, "another device after pasting the owner key")
