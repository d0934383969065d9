"""Nối từ hôm nay (B13) in local play, on a phone: the daily link `noitu serve` prints,
today's game played to the end, its share text copied, a second start the same day
showing the finished game, and the Clipboard API refused; axe-clean."""

from __future__ import annotations

import re
from typing import Any

from e2e_harness import Game, OpenPage, axe_violations
from playwright.sync_api import expect

from support.process import ServerProcess

SHARE = re.compile(r"Nối từ hôm nay \d\d/\d\d · 1 từ · (\d+) điểm · 1 ngày liền")
# Where the page's Clipboard API refuses (a browser without it, or a denied permission).
REFUSING_CLIPBOARD = """
Object.defineProperty(navigator, "clipboard", {
  value: { writeText: function () { return Promise.reject(new Error("refused")); } }
});
"""


def daily_link(server: ServerProcess) -> str:
    found = re.search(r"nối từ hôm nay: (http://127\.0\.0\.1:\d+/games/noitu/\?t=\S+)", server.output())
    assert found, server.output()
    return found.group(1)


def test_today_s_game_is_played_once_shared_and_shown_again(
    open_page: Any, server: ServerProcess
) -> None:
    link = daily_link(server)
    first: OpenPage = open_page(permissions=["clipboard-read", "clipboard-write"])
    game = Game(first.page, server.base)
    game.page.goto(link)
    game.expect_screen("start")
    expect(game.by_id("daily-note")).to_be_visible()
    expect(game.by_id("difficulty-box")).to_be_hidden()
    assert axe_violations(game.page) == [], "the daily start screen"

    game.start()
    game.send("đầu óc")  # "óc" starts no word: the bot is stuck
    game.expect_end("won", "bot_stuck")
    share = game.by_id("daily-share")
    expect(share).to_have_value(SHARE)
    text = share.input_value()
    score = game.number("final-score")
    assert SHARE.fullmatch(text) and int(SHARE.fullmatch(text).group(1)) == score
    words = game.chain_words("end-chain")
    assert words and not any(word in text for word in words), "the share text shows no word"
    expect(game.by_id("daily-streak")).to_have_text("Chuỗi ngày chơi: 1 ngày liền")
    expect(game.by_id("play-again")).to_be_hidden()
    expect(game.by_id("record")).to_have_attribute("data-state", "ready")  # B12's block

    game.by_id("daily-copy").click()
    expect(game.by_id("daily-copy-note")).to_contain_text("Đã sao chép")
    assert game.page.evaluate("() => navigator.clipboard.readText()") == text
    assert axe_violations(game.page) == [], "the daily end screen"

    # Start again the same day, from a fresh page: the finished game, not a new one.
    second: OpenPage = open_page()
    second.page.add_init_script(REFUSING_CLIPBOARD)
    again = Game(second.page, server.base)
    again.page.goto(link)
    again.expect_screen("start")
    again.by_id("start-button").click()
    again.expect_end("won", "bot_stuck")
    assert again.number("final-score") == score
    assert again.chain_words("end-chain") == words
    expect(again.by_id("daily-share")).to_have_value(text)

    # The Clipboard API refused: the text is selected for the player to copy.
    again.by_id("daily-copy").click()
    expect(again.by_id("daily-copy-note")).to_contain_text("Hãy chọn đoạn trên")
    selected = again.page.evaluate(
        "() => { const box = document.getElementById('daily-share');"
        " return [box.selectionStart, box.selectionEnd, document.activeElement === box]; }"
    )
    assert selected == [0, len(text), True]
