"""An axe-core audit of every screen, in the light and the dark colour scheme: zero
violations (WCAG 2.x A and AA, contrast included, and axe's best practices).

axe-core comes from npm (tests/e2e/package.json, installed by `npm ci`); the tests
evaluate it in the page, which never loads it itself.
"""

from __future__ import annotations

import pytest
from e2e_harness import GAME_PATH, Game, OpenPage, Tokens, axe_violations
from playwright.sync_api import expect

from support.process import ServerProcess

CONFLICT = r"Failed to load resource: the server responded with a status of 409 \(Conflict\)"


def audit(game: Game, where: str) -> None:
    game.page.wait_for_timeout(300)  # let the rows' entry animation finish
    assert axe_violations(game.page) == [], where


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_screen_passes_axe(open_page, server: ServerProcess, tokens: Tokens, scheme: str) -> None:
    opened: OpenPage = open_page(color_scheme=scheme)
    game = Game(opened.page, server.base)
    assert game.page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")

    game.open()
    game.expect_screen("notoken")
    audit(game, "notoken")

    game.open(tokens.new(ttl_s=-60))
    game.expect_screen("start")
    expect(game.by_id("start-error")).to_be_visible()
    audit(game, "start, with the expired-link warning")

    game.open(tokens.new())
    game.expect_screen("start")
    audit(game, "start")

    game.start()
    game.send("đầu tiên")
    game.expect_bot("tiên sinh")
    game.page.locator('#chain > li[data-word="đầu tiên"] .meaning-toggle').click()
    game.arm_give_up()
    audit(game, "play, a meaning open, give-up armed")

    game.send("sinh viên")
    game.expect_bot("viên chức")
    game.give_up_twice()
    game.expect_end("lost", "no_legal_move")
    audit(game, "end, lost in a dead end")

    game.by_id("play-again").click()
    game.start()
    game.give_up_twice()
    game.expect_end("lost", "gave_up")
    expect(game.page.locator("#suggestions li")).to_have_count(3)
    game.page.locator("#end-recap summary").click()
    audit(game, "end, lost with suggestions and the chain open")

    game.by_id("play-again").click()
    game.start()
    game.send("đầu óc")
    game.expect_end("won", "bot_stuck")
    audit(game, "end, won")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_replaced_game_passes_axe(open_page, server: ServerProcess, tokens: Tokens, scheme: str) -> None:
    token = tokens.new()
    older, newer = open_page(color_scheme=scheme), open_page(color_scheme=scheme)
    first, second = Game(older.page, server.base), Game(newer.page, server.base)
    first.open(token)
    first.start()
    second.open(token)
    second.start()
    older.watch.allow("the replaced game is over", CONFLICT, f"{server.base}{GAME_PATH}api/move")
    first.send("đầu mối")
    first.expect_end("lost", "gave_up")
    expect(first.by_id("continue-button")).to_be_visible()
    audit(first, "end, replaced by a newer game")
