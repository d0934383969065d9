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
from e2e_harness import ARTIFACTS, GAME_PATH, GAMES_JS, Game, OpenPage, PageWatch, Tokens
from playwright.sync_api import expect

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
    points = int(mine.locator('.chain-points > [aria-hidden="true"]').inner_text().lstrip("+"))
    assert points > 0
    assert game.number("score") == points
    expect(game.page.locator('#chain > li[data-by="bot"] .chain-points')).to_have_count(0)

    game.send("tình yêu")
    game.expect_end("won", "bot_stuck")
    expect(game.by_id("end-reason")).to_have_attribute("data-replaced", "false")
    expect(game.by_id("continue-button")).to_be_hidden()
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
    expect(game.by_id("start-button")).to_be_focused()
    expect(game.by_id("start-button")).to_have_accessible_description("")
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


# ---- the bot's points, meanings, the link's expiry, the turn length ----------------------


def visible_points(item) -> str:
    """The points as shown (the recap's rows sit in a closed <details>: text, not layout)."""
    return item.locator('[aria-hidden="true"]').text_content() or ""


def test_the_bots_points_show_on_its_rows_apart_from_the_score(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    opening = game.page.locator('#chain > li[data-word="mở đầu"]')
    expect(opening.locator(".chain-bot-points")).to_have_count(0)  # the opening scores nothing

    game.send("đầu mối")
    game.expect_bot("mối tình")
    bot_row = game.page.locator('#chain > li[data-word="mối tình"]')
    badge = bot_row.locator(".chain-bot-points")
    expect(badge).to_be_visible()
    shown = visible_points(badge)
    assert re.fullmatch(r"máy \+\d+", shown), shown
    bot_points = int(shown.split("+")[1])
    assert bot_points > 0
    # Screen readers hear that these points are not the player's.
    expect(badge.locator(".visually-hidden")).to_have_text(
        f"Máy được {bot_points} điểm, không tính vào điểm của bạn"
    )
    # Muted, smaller than the player's points, and not added to the score.
    player_badge = game.page.locator('#chain > li[data-word="đầu mối"] .chain-points')
    mine = int(visible_points(player_badge).lstrip("+"))
    assert game.number("score") == mine
    styles = game.page.evaluate(
        """() => {
          const bot = getComputedStyle(document.querySelector(".chain-bot-points"));
          const me = getComputedStyle(document.querySelector(".chain-points"));
          const muted = getComputedStyle(document.querySelector(".hud-label")).color;
          return { bot: bot.color, me: me.color, muted: muted,
                   botSize: parseFloat(bot.fontSize), meSize: parseFloat(me.fontSize) };
        }"""
    )
    assert styles["bot"] == styles["muted"] != styles["me"], styles
    assert styles["botSize"] < styles["meSize"], styles

    game.send("tình yêu")
    game.expect_end("won", "bot_stuck")
    end_badge = game.page.locator('#end-chain > li[data-word="mối tình"] .chain-bot-points')
    assert visible_points(end_badge) == f"máy +{bot_points}"
    assert game.number("final-score") == game.page.locator("#end-chain .chain-points").evaluate_all(
        "(badges) => badges.reduce((sum, b) => sum + Number(b.firstChild.textContent.slice(1)), 0)"
    )


def test_the_meaning_toggle_shows_only_for_words_with_meanings(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    opening = game.page.locator('#chain > li[data-word="mở đầu"]')
    expect(opening.locator(".meaning-toggle")).to_have_count(0)  # the little dictionary has none for it

    game.send("đầu tiên")  # "đầu tiên" has a meaning; the bot's "tiên sinh" has none
    game.expect_bot("tiên sinh")
    expect(game.page.locator('#chain > li[data-word="tiên sinh"] .meaning-toggle')).to_have_count(0)
    toggle = game.page.locator('#chain > li[data-word="đầu tiên"] .meaning-toggle')
    expect(toggle).to_have_text("Nghĩa")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    panel = game.page.locator('#chain > li[data-word="đầu tiên"] .meanings')
    expect(panel).to_be_hidden()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(panel).to_be_visible()
    expect(panel).to_contain_text("thứ nhất")
    toggle.click()
    expect(panel).to_be_hidden()

    game.give_up_twice()
    game.expect_end("lost", "gave_up")
    # Suggestions: a meaning under the word that has one, nothing under the others.
    assert game.suggestions() == ["sinh viên"]
    expect(game.page.locator("#suggestions .meaning-list")).to_have_count(0)
    expect(game.page.locator("#end-chain .meaning-toggle")).to_have_count(1)
    expect(game.page.get_by_text("Chưa có nghĩa")).to_have_count(0)


def test_suggestions_show_meanings_only_where_the_dictionary_has_them(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.start()
    game.give_up_twice()
    game.expect_end("lost", "gave_up")
    assert game.suggestions() == ["đầu bếp", "đầu tiên", "đầu óc"]
    items = game.page.locator("#suggestions li")
    expect(items.nth(0).locator(".meaning-list")).to_contain_text("người nấu ăn chính")
    expect(items.nth(1).locator(".meaning-list")).to_contain_text("thứ nhất")
    expect(items.nth(2).locator(".meaning-list")).to_have_count(0)
    expect(game.page.get_by_text("Chưa có nghĩa")).to_have_count(0)


EXPIRED_TEXT = "Đường dẫn vào trò chơi đã hết hạn. Hãy đóng trang này và bấm Chơi lần nữa trong Telegram."
BAD_TEXT = "Đường dẫn vào trò chơi không hợp lệ. Hãy đóng trang này và bấm Chơi lần nữa trong Telegram."


def test_an_expired_link_is_reported_on_the_start_screen_at_once(game: Game, watch: PageWatch, tokens: Tokens) -> None:
    game.open(tokens.new(ttl_s=-60))
    game.expect_screen("start")
    error = game.by_id("start-error")
    expect(error).to_be_visible()
    expect(error).to_have_text(EXPIRED_TEXT)
    # "Bắt đầu" could only be refused: it is off, and the server's clock agrees.
    expect(game.by_id("start-button")).to_be_disabled()
    game.page.wait_for_timeout(500)
    expect(game.by_id("start-button")).to_be_disabled()
    assert watch.api_calls("start") == [], "the page read the expiry itself"


def test_a_device_clock_hours_ahead_does_not_lock_a_good_link_out(
    game: Game, watch: PageWatch, tokens: Tokens
) -> None:
    game.page.clock.set_fixed_time(time.time() + 10 * 3600)  # the link has an hour left
    game.open(tokens.new())
    game.expect_screen("start")
    # The device calls the link expired; the server's clock (the Date of a small file it serves) does not.
    expect(game.by_id("start-button")).to_be_enabled()
    expect(game.by_id("start-error")).to_be_hidden()
    game.by_id("start-button").click()
    game.expect_screen("play")


def test_an_unreadable_link_is_reported_on_the_start_screen_at_once(game: Game, watch: PageWatch) -> None:
    game.open("not-a-game-link")
    game.expect_screen("start")
    expect(game.by_id("start-error")).to_have_text(BAD_TEXT)
    assert watch.api_calls("start") == []


def test_a_link_that_runs_out_on_the_start_screen_says_so(game: Game, watch: PageWatch, tokens: Tokens) -> None:
    game.open(tokens.new(ttl_s=2))
    game.expect_screen("start")
    error = game.by_id("start-error")
    expect(error).to_be_hidden()
    expect(error).to_have_text(EXPIRED_TEXT, timeout=6_000)
    expect(error).to_be_visible()
    assert watch.api_calls("start") == []


def test_a_good_link_shows_no_warning_and_the_rules_say_the_servers_turn(game: Game, tokens: Tokens) -> None:
    game.open(tokens.new())
    game.expect_screen("start")
    expect(game.by_id("start-error")).to_be_hidden()
    expect(game.by_id("rules-turn-seconds")).to_have_text("30")
    expect(game.screen("start")).to_contain_text("Mỗi lượt có 30 giây")


# ---- a game replaced by a newer start (the same link in two tabs) ------------------------

CONFLICT = r"Failed to load resource: the server responded with a status of 409 \(Conflict\)"


def test_a_game_replaced_in_another_tab_says_so_and_continues_in_the_newer_one(
    open_page, server: ServerProcess, tokens: Tokens
) -> None:
    token = tokens.new()
    first_tab, second_tab = open_page(), open_page()
    first, second = Game(first_tab.page, server.base), Game(second_tab.page, server.base)
    first.open(token)
    first.start()
    second.open(token)
    second.start()  # the same game message: this start replaces the first tab's game
    newer = second.storage("noitu.session")
    assert newer and newer != first.storage("noitu.session")

    # Playing on in the first tab: the server says that game is over …
    first_tab.watch.allow("the replaced game is over", CONFLICT, f"{server.base}{GAME_PATH}api/move")
    first.send("đầu mối")
    first.expect_end("lost", "gave_up")
    # … and the page says why, instead of "Bạn đã chịu thua."
    reason = first.by_id("end-reason")
    expect(reason).to_have_attribute("data-replaced", "true")
    expect(first.by_id("end-title")).to_have_text("Đã có ván mới")
    expect(reason).to_contain_text("bắt đầu một ván mới")
    expect(reason).not_to_contain_text("chịu thua")
    expect(first.by_id("suggestions")).to_be_hidden()
    continue_button = first.by_id("continue-button")
    expect(continue_button).to_be_visible()
    expect(continue_button).to_have_text("Tiếp tục ván mới")
    expect(continue_button).to_be_focused()

    continue_button.click()
    first.expect_screen("play")
    assert first.storage("noitu.session") == newer
    assert first.chain_words() == ["mở đầu"]
    expect(first.by_id("word-input")).to_be_focused()
    first.send("đầu óc")
    first.expect_end("won", "bot_stuck")
    expect(first.by_id("continue-button")).to_be_hidden()
    expect(first.by_id("end-reason")).to_have_attribute("data-replaced", "false")

    # The second tab was on that same game: it catches up when it asks.
    second_tab.watch.allow("that game is over now", CONFLICT, f"{server.base}{GAME_PATH}api/move")
    second.send("đầu tiên")
    second.expect_end("won", "bot_stuck")


# ---- the network banner (the kernel's, shared with the arena's page) -------------------------

#: Chromium's console line for an answer that is not a success.
FAILED_LOAD = r"Failed to load resource: the server responded with a status of \d+ .*"


def test_a_proxy_s_page_instead_of_an_answer_shows_the_banner_and_retry_starts_the_game(
    game: Game, watch: PageWatch, tokens: Tokens, server: ServerProcess
) -> None:
    start = f"{server.base}{GAME_PATH}api/start"
    watch.allow("the test answers the start with a proxy's 404 page", FAILED_LOAD, start)
    game.page.route(start, lambda route: route.fulfill(status=404, content_type="text/html", body="<p>proxy</p>"))
    game.open(tokens.new())
    game.expect_screen("start")
    game.by_id("start-button").click()
    banner = game.by_id("network-error")
    expect(banner).to_be_visible()
    expect(game.by_id("network-error-text")).to_have_text(
        "Mất kết nối với máy chủ. Kiểm tra mạng rồi bấm Thử lại nhé."
    )
    expect(game.by_id("retry-button")).to_be_visible()
    game.page.unroute(start)
    game.by_id("retry-button").click()
    expect(banner).to_be_hidden()
    game.expect_screen("play")
    expect(game.by_id("current-syllable")).to_have_text("đầu")
