"""The game page against one real server (the little dictionary, local play mode).

The dictionary (tests/support/dictionaries.py) makes every game deterministic: the
bot opens with "mở đầu"; "đầu mối" → "mối tình" → "tình yêu" wins; "đầu óc" wins at
once; "đầu bếp" → "bếp núc" leaves the player in a true dead end.
"""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from e2e_harness import ARTIFACTS, GAME_PATH, GAMES_JS, Game, OpenPage, PageWatch, Tokens
from support.process import ServerProcess

SCREENSHOTS = ARTIFACTS / "screenshots"
DEAD_END_TEXT = "Không còn từ nào để nối — đây là thế bí thật sự."


def local_play_link(server: ServerProcess) -> str:
    found = re.search(r"http://127\.0\.0\.1:\d+/games/noitu/\?t=\S+", server.output())
    assert found, server.output()
    return found.group(0)


def test_the_token_leaves_the_address_bar_and_a_reload_resumes_the_game(
    game: Game, watch: PageWatch, server: ServerProcess
) -> None:
    link = local_play_link(server)  # the link `noitu serve` prints in local play mode
    token = parse_qs(urlsplit(link).query)["t"][0]

    game.page.goto(link + "#tgShareScoreUrl=x")
    game.expect_screen("start")
    clean = f"{server.base}{GAME_PATH}#tgShareScoreUrl=x"
    assert game.page.evaluate("() => window.location.href") == clean
    assert game.page.url == clean
    assert game.storage("noitu.token") == token

    game.start()
    session = game.storage("noitu.session")
    assert session and re.fullmatch(r"[0-9a-f]{32}", session)

    game.page.reload()
    game.expect_screen("play")
    assert game.page.url == clean
    assert game.storage("noitu.session") == session
    expect(game.by_id("bot-word")).to_contain_text("mở đầu")
    assert game.chain_words() == ["mở đầu"]
    assert len(watch.api_calls("start")) == 1, "the reload resumed; it did not start again"
    assert watch.api_calls("state"), "the reload asked the server for the session"

    game.send("đầu óc")  # the game still works after the reload: "óc" is a dead end for the bot
    game.expect_end("won", "bot_stuck")

    first, *later = watch.requests
    assert token in first.url
    for request in later:
        assert token not in request.url, request.url
        assert "referer" not in request.headers, (request.url, request.headers.get("referer"))


def test_a_game_won_against_the_bot(game: Game, watch: PageWatch, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    assert game.number("score") == 0

    sent = time.monotonic()
    game.send("đầu mối")
    game.expect_bot("mối tình")
    assert time.monotonic() - sent >= 0.6, "the bot's word shows after a short pause"
    expect(game.by_id("current-syllable")).to_have_text("tình")
    assert game.chain_words() == ["mối tình", "đầu mối", "mở đầu"]  # newest first
    mine = game.page.locator('#chain > li[data-by="player"]')
    expect(mine).to_have_count(1)
    points = int(mine.locator(".chain-points").inner_text().lstrip("+"))
    assert points > 0
    assert game.number("score") == points
    expect(game.page.locator('#chain > li[data-by="bot"] .chain-points')).to_have_count(0)

    game.send("tình yêu")
    game.expect_end("won", "bot_stuck")
    expect(game.by_id("end-title")).to_have_text("Bạn thắng rồi!")
    expect(game.by_id("end-reason")).to_contain_text("Máy hết từ")
    final = game.number("final-score")
    assert final > points
    # In local play the reporter only logs the score and answers ok.
    expect(game.by_id("score-report")).to_have_attribute("data-state", "ok", timeout=10_000)
    expect(game.by_id("score-report")).to_have_text("Đã lưu điểm lên bảng xếp hạng.")
    expect(game.by_id("suggestions")).to_be_hidden()
    expect(game.by_id("share-button")).to_be_hidden()  # games.js did not load
    assert game.chain_words("end-chain") == ["tình yêu", "mối tình", "đầu mối", "mở đầu"]
    assert len(watch.api_calls("move")) == 2

    game.by_id("play-again").click()
    game.expect_screen("start")
    expect(game.by_id("session-message")).to_be_hidden()
    assert game.storage("noitu.session") is None


def test_a_rejected_word_shows_its_message_next_to_the_input(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    word_input = game.by_id("word-input")
    reject = game.by_id("reject-message")

    game.send("sinh viên")
    expect(reject).to_have_attribute("data-reason", "wrong_link")
    expect(reject).to_contain_text("đầu")
    expect(word_input).to_have_value("sinh viên")
    expect(word_input).to_have_attribute("aria-invalid", "true")
    game.expect_screen("play")
    assert game.chain_words() == ["mở đầu"]
    assert game.number("score") == 0
    # The message sits right under the input, where the player is looking.
    field_box = word_input.bounding_box()
    message_box = reject.bounding_box()
    assert field_box and message_box
    assert 0 <= message_box["y"] - (field_box["y"] + field_box["height"]) < 80

    game.send("đầu gối")
    expect(reject).to_have_attribute("data-reason", "not_in_dictionary")
    expect(word_input).to_have_value("đầu gối")

    game.send("đầu")
    expect(reject).to_have_attribute("data-reason", "too_few_syllables")

    game.send("đầu óc")
    game.expect_end("won", "bot_stuck")


def test_giving_up_needs_two_taps(game: Game, watch: PageWatch, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    button = game.by_id("give-up-button")

    button.click()
    expect(button).to_have_attribute("data-armed", "true")
    expect(button).to_have_text("Chắc chưa? Bấm lần nữa")
    game.expect_screen("play")
    # Left alone, the armed button reverts after 3 s, and nothing was sent.
    expect(button).not_to_have_attribute("data-armed", "true", timeout=4_500)
    expect(button).to_have_text("Chịu thua")
    game.expect_screen("play")
    assert watch.api_calls("give-up") == []

    button.click()
    expect(button).to_have_attribute("data-armed", "true")
    game.expect_screen("play")
    button.click()
    game.expect_end("lost", "gave_up")
    assert len(watch.api_calls("give-up")) == 1
    expect(game.by_id("end-title")).to_have_text("Bạn thua mất rồi")
    expect(game.by_id("end-reason")).to_have_text("Bạn đã chịu thua.")
    expect(game.by_id("suggestions")).to_be_visible()
    assert game.suggestions() == ["đầu bếp", "đầu tiên", "đầu óc"]
    expect(game.page.locator("#suggestions li").first).to_contain_text("người nấu ăn chính")
    assert game.number("final-score") == 0
    expect(game.by_id("score-report")).to_have_attribute("data-state", "skipped")


def test_a_true_dead_end_ends_as_no_legal_move_with_no_suggestions(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    game.send("đầu bếp")
    game.expect_bot("bếp núc")
    expect(game.by_id("current-syllable")).to_have_text("núc")

    game.give_up_twice()
    game.expect_end("lost", "no_legal_move")
    expect(game.by_id("end-reason")).to_contain_text("“núc”")
    expect(game.page.locator("#suggestions .dead-end")).to_have_text(DEAD_END_TEXT)
    assert game.suggestions() == []
    assert game.number("final-score") > 0
    expect(game.by_id("score-report")).to_have_attribute("data-state", "ok", timeout=10_000)


def test_without_a_token_the_page_explains_how_to_open_the_game(game: Game, watch: PageWatch) -> None:
    game.open()
    game.expect_screen("notoken")
    expect(game.screen("notoken")).to_contain_text("Mở trò chơi từ Telegram")
    expect(game.screen("notoken")).to_contain_text("/noitu")
    assert game.storage("noitu.token") is None
    assert not [r.url for r in watch.requests if "/api/" in r.url]


def test_the_share_button_appears_when_telegram_games_js_loads(game: Game, tokens: Tokens) -> None:
    stub = (
        "window.TelegramGameProxy = { shareScore: function () {"
        " document.documentElement.setAttribute('data-shared', 'yes'); } };"
    )
    game.page.route(
        GAMES_JS,
        lambda route: route.fulfill(status=200, content_type="application/javascript", body=stub),
    )
    game.open(tokens.new())
    game.start()
    game.send("đầu óc")
    game.expect_end("won", "bot_stuck")
    share = game.by_id("share-button")
    expect(share).to_be_visible()
    share.click()
    expect(game.page.locator("html")).to_have_attribute("data-shared", "yes")


def test_the_watch_sees_csp_violations(game: Game, watch: PageWatch, tokens: Tokens) -> None:
    """Proves that the clean-console check every test ends with is not vacuous."""
    response = game.page.goto(game.url(tokens.new()))
    assert response is not None
    policy = response.headers.get("content-security-policy", "")
    assert "script-src 'self' https://telegram.org" in policy
    assert "unsafe" not in policy
    game.expect_screen("start")
    assert watch.problems == []

    game.page.evaluate(
        "() => { const s = document.createElement('style');"
        " s.textContent = 'body { color: red; }'; document.head.appendChild(s); }"
    )
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(watch.problems) < 2:
        game.page.wait_for_timeout(50)
    assert any("Content Security Policy" in p for p in watch.problems), watch.problems
    assert any("[csp-violation] style-src" in p for p in watch.problems), watch.problems
    watch.problems.clear()


@pytest.mark.parametrize("width,height", [(360, 740), (1280, 800)])
def test_screenshots_of_the_start_play_and_end_screens(
    open_page, server: ServerProcess, tokens: Tokens, width: int, height: int
) -> None:
    opened: OpenPage = open_page({"width": width, "height": height})
    game = Game(opened.page, server.base)
    size = f"{width}x{height}"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        game.page.screenshot(path=str(SCREENSHOTS / f"{name}-{size}.png"), animations="disabled")

    game.open(tokens.new())
    game.expect_screen("start")
    shot("start")

    game.start()
    game.send("đầu mối")
    game.expect_bot("mối tình")
    game.by_id("word-input").fill("tình yêu")
    shot("play")

    game.by_id("word-input").press("Enter")
    game.expect_end("won", "bot_stuck")
    expect(game.by_id("score-report")).to_have_attribute("data-state", "ok", timeout=10_000)
    shot("end")

    # Not for the docs: the lost end screen with suggestions, and the no-token screen.
    game.by_id("play-again").click()
    game.start()
    game.give_up_twice()
    game.expect_end("lost", "gave_up")
    shot("extra-end-lost")
    game.page.evaluate("() => window.sessionStorage.clear()")
    game.open()
    game.expect_screen("notoken")
    shot("extra-notoken")
