"""The words the players bring, in the browser (spec B11): a phone player is refused
"trà sữa" (absent from the shipped dictionary too), taps "Báo thiếu từ" and sees the
thanks; the operator adds it with `noitu words add`; within 5 s the same player plays
it in the same game; the public words page lists it and passes axe. The same in a
group room (B10), with "trà chanh": the one refused reports it, and once it is added
the room takes it on that player's turn.

The tests share the module's server, so each reports a word of its own: either may run
first, or alone."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from e2e_harness import Game, Tokens, audit, axe_violations, join_room, room_tokens
from playwright.sync_api import expect

from support.dictionaries import write
from support.process import ServerProcess

NOITU = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "noitu")
# The opening is "uống trà" (its last syllable starts the most words); "trà sữa" and
# "trà chanh" are missing, as they are from the shipped dictionary.
TEA = """\
#@source e2e
uống trà\t1
trà đá\t1
trà xanh\t1
đá bóng\t1
sữa chua\t1
chanh leo\t1
xanh lá\t2
"""
REACH_S = 5.0  # B11: an added word plays on every instance within 5 s


@pytest.fixture(scope="module")
def server_settings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    # Long turns: the operator's CLI, started beside the server, must not outlast the
    # player's turn on a busy machine (the reach is timed from its end).
    return {"NOITU_DICTIONARY": write(tmp_path_factory.mktemp("tea"), TEA), "NOITU_TURN_SECONDS": "120"}


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
    add_word(server, "trà sữa")

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


def add_word(server: ServerProcess, word: str) -> None:
    """The operator adds a word with the CLI, beside the running server."""
    added = subprocess.run(
        [NOITU, "words", "add", word], env=server.env, capture_output=True, text=True, check=True
    )
    assert added.stdout == f"added: {word} (tier 4)\n"


NOT_IN_DICTIONARY = "Từ này không có trong từ điển."


def room_move(game: Game, word: str) -> bool:
    """Send a word in the room and wait until the page shows the answer: True when the
    room took it (the input empties), False when it is not in the dictionary. The
    server's answer says which to wait for (a second refusal looks like the first)."""
    game.by_id("room-word-input").fill(word)
    with game.page.expect_response(lambda r: r.url.endswith("/api/room/move")) as response:
        game.by_id("room-send").click()
    result = response.value.json()["result"]
    if result["accepted"]:
        expect(game.by_id("room-word-input")).to_have_value("")
        return True
    assert result["reason"] == "not_in_dictionary", result
    expect(game.by_id("room-reject")).to_have_text(NOT_IN_DICTIONARY)
    return False


def test_a_room_player_reports_a_word_the_operator_adds_and_the_room_plays_it(
    open_page, server: ServerProcess, tokens: Tokens
) -> None:
    word = "trà chanh"
    an_token, binh_token = room_tokens(tokens, ["An", "Bình"])
    an = join_room(open_page, server, an_token)
    binh = join_room(open_page, server, binh_token)
    expect(an.page.locator("#room-players li")).to_have_count(2)
    an.by_id("room-start").click()
    expect(an.by_id("room-status")).to_have_text("Đến lượt bạn!")
    expect(an.by_id("room-current")).to_have_text("trà")

    assert not room_move(an, word)
    report = an.by_id("room-word-report-button")
    expect(report).to_be_visible()
    expect(report).to_have_text("Báo thiếu từ")
    report.click()
    expect(an.by_id("room-word-report-message")).to_have_text(
        f"Cảm ơn bạn! Từ «{word}» đã được gửi để xem xét."
    )
    expect(report).to_be_hidden()
    expect(binh.by_id("room-word-report")).to_be_hidden()  # a refusal is its sender's alone
    expect(an.by_id("room-status")).to_have_text("Đến lượt bạn!")
    audit(an, "a room, the report's thanks")

    add_word(server, word)
    added_at = time.monotonic()
    while not room_move(an, word):
        assert time.monotonic() - added_at < REACH_S, "the added word did not play within 5 s"
        time.sleep(0.5)
    expect(binh.page.locator("#room-chain li").first).to_have_attribute("data-word", word)
    expect(binh.by_id("room-status")).to_have_text("Đến lượt bạn!")
    expect(binh.by_id("room-current")).to_have_text("chanh")
    expect(an.by_id("room-word-report")).to_be_hidden()
