"""The rules state the server's turn length (here NOITU_TURN_SECONDS=5), on the start
screen already, before any game view has told the page."""

from __future__ import annotations

import pytest
from e2e_harness import Game, Tokens
from playwright.sync_api import expect

TURN_SECONDS = 5


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    return {"NOITU_TURN_SECONDS": str(TURN_SECONDS)}


def test_the_rules_say_the_servers_turn_length(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.expect_screen("start")
    expect(game.by_id("rules-turn-seconds")).to_have_text(str(TURN_SECONDS))
    expect(game.screen("start")).to_contain_text(f"Mỗi lượt có {TURN_SECONDS} giây")
    expect(game.screen("start")).not_to_contain_text("30 giây")

    game.start()
    assert game.number("countdown") <= TURN_SECONDS
    game.give_up_twice()
    game.expect_end("lost", "gave_up")
    game.by_id("play-again").click()
    game.expect_screen("start")
    expect(game.screen("start")).to_contain_text(f"Mỗi lượt có {TURN_SECONDS} giây")
