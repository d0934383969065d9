"""The words the players bring, in the browser (spec B11): a phone player is refused
"trà sữa" (absent from the shipped dictionary too), taps "Báo thiếu từ" and sees the
thanks; the operator adds it with `noitu words add`; within 5 s the same player plays
it in the same game; the public words page lists it and passes axe."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from e2e_harness import Game, Tokens, axe_violations
from playwright.sync_api import expect

from support.dictionaries import write
from support.process import ServerProcess

NOITU = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "noitu")
# The opening is "uống trà" (its last syllable starts the most words); "trà sữa" is
# missing, as it is from the shipped dictionary.
TEA = """\
#@source e2e
uống trà\t1
trà đá\t1
trà xanh\t1
đá bóng\t1
sữa chua\t1
xanh lá\t2
"""
REACH_S = 5.0  # B11: an added word plays on every instance within 5 s


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return {"NOITU_DICTIONARY": write(tmp_path_factory.mktemp("tea"), TEA)}


def test_a_player_reports_a_word_the_operator_adds_and_the_player_plays_it(
    game: Game, tokens: Tokens, server: ServerProcess
) -> None:
    game.open(tokens.new())
    game.by_id("start-button").click()
    game.expect_screen("play")
    expect(game.by_id("current-syllable")).to_have_text("trà")

    game.send("trà sữa")
    expect(game.by_id("reject-message")).to_have_attribute("data-reason", "not_in_dictionary")
    report = game.by_id("word-report-button")
    expect(report).to_be_visible()
    expect(report).to_have_text("Báo thiếu từ")
    report.click()
    expect(game.by_id("word-report-message")).to_have_text(
        "Cảm ơn bạn! Từ «trà sữa» đã được gửi để xem xét."
    )
    expect(report).to_be_hidden()
    assert axe_violations(game.page) == []

    pending = subprocess.run(
        [NOITU, "words", "pending"], env=server.env, capture_output=True, text=True, check=True
    )
    assert pending.stdout.splitlines()[1].split()[:3] == ["trà", "sữa", "1"]
    added = subprocess.run(
        [NOITU, "words", "add", "trà sữa"], env=server.env, capture_output=True, text=True, check=True
    )
    assert added.stdout == "added: trà sữa (tier 4)\n"

    added_at = time.monotonic()
    while True:
        game.send("trà sữa")
        expect(game.by_id("send-button")).to_be_enabled()
        if "trà sữa" in game.chain_words():
            break
        assert time.monotonic() - added_at < REACH_S, "the added word did not play within 5 s"
        time.sleep(0.5)
    game.expect_bot("sữa chua")
    expect(game.by_id("word-report")).to_be_hidden()

    game.page.goto(f"{server.base}/games/noitu/words")
    expect(game.page.locator('[data-testid="added-words"] li').first).to_contain_text("trà sữa")
    assert axe_violations(game.page) == []
