"""A turn that runs out, on a server with a short clock (7 s turns, 1 s of grace).

The page turns urgent in the last 5 s, so a 7 s turn shows both sides of that line.
"""

from __future__ import annotations

import re

import pytest
from e2e_harness import Game, PageWatch, Tokens
from playwright.sync_api import expect

TURN_SECONDS = 7
URGENT = re.compile(r"(^|\s)urgent(\s|$)")


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    return {"NOITU_TURN_SECONDS": str(TURN_SECONDS), "NOITU_GRACE_SECONDS": "1"}


def test_a_turn_that_runs_out_ends_the_game_on_time(game: Game, watch: PageWatch, tokens: Tokens) -> None:
    game.open(tokens.new())
    expect(game.by_id("rules-turn-seconds")).to_have_text(str(TURN_SECONDS))
    game.start()
    timer_box = game.by_id("timer-box")
    bar = game.by_id("countdown-bar")

    # Early in the turn: the full count, and no urgent style yet.
    assert TURN_SECONDS - 2 <= game.number("countdown") <= TURN_SECONDS
    expect(timer_box).not_to_have_class(URGENT, timeout=1_000)
    expect(bar).not_to_have_class(URGENT, timeout=1_000)

    # The last seconds: the timer and its bar turn urgent while the game goes on.
    expect(timer_box).to_have_class(URGENT, timeout=TURN_SECONDS * 1_000)
    expect(bar).to_have_class(URGENT)
    game.expect_screen("play")
    assert game.number("countdown") <= 5

    # At zero the page asks the server, which settles the turn after its grace.
    game.expect_end("lost", "timeout", timeout=(TURN_SECONDS + 8) * 1_000)
    expect(game.by_id("end-reason")).to_have_text(f"Hết giờ — bạn chưa nối kịp trong {TURN_SECONDS} giây.")
    assert game.suggestions() == ["đầu bếp", "đầu tiên", "đầu óc"]
    expect(game.by_id("score-report")).to_have_attribute("data-state", "skipped")
    assert watch.api_calls("state"), "the page asked the server once its clock ran out"
    assert watch.api_calls("move") == []
