"""The page with the shipped dictionary, which has no meanings: no "Nghĩa" anywhere.

(With a dictionary that has meanings, test_page.py shows the toggle working.)
"""

from __future__ import annotations

import pytest
from e2e_harness import Game, Tokens
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    return {"NOITU_DICTIONARY": ""}  # the shipped noitu.assets/dictionary.txt


def test_no_meaning_toggle_without_meanings(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.expect_screen("start")
    game.by_id("start-button").click()
    game.expect_screen("play")
    expect(game.page.locator("#chain > li")).to_have_count(1)
    expect(game.page.locator(".meaning-toggle")).to_have_count(0)

    game.give_up_twice()
    game.expect_end("lost", "gave_up")  # the opening always has replies
    expect(game.page.locator("#suggestions li")).to_have_count(3)
    expect(game.page.locator("#suggestions .meaning-list")).to_have_count(0)
    expect(game.page.locator(".meaning-toggle")).to_have_count(0)
    expect(game.page.get_by_text("Chưa có nghĩa")).to_have_count(0)
