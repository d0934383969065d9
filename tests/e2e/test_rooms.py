"""Room mode in the browser (spec B10): three people on phones play one room — join,
the host starts, words in turn, one runs out of time, the standings — while a fourth
watches; every screen is axe-clean. The server has short turns (7 s, 1 s of grace)."""

from __future__ import annotations

import re

import pytest
from e2e_harness import (
    GAME_PATH,
    Game,
    OpenPage,
    Tokens,
    audit,
    join_room,
    room_tokens,
    send_room_word,
)
from playwright.sync_api import expect

from support.process import ServerProcess

TURN_SECONDS = 7


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    return {"NOITU_TURN_SECONDS": str(TURN_SECONDS), "NOITU_GRACE_SECONDS": "1"}


def test_three_phones_play_a_room_and_a_fourth_watches(open_page, server: ServerProcess, tokens: Tokens) -> None:
    an_token, binh_token, chi_token, dung_token, em_token = room_tokens(tokens, ["An", "Bình", "Chi", "Dũng", "Em"])
    an = join_room(open_page, server, an_token)
    expect(an.by_id("room-host")).to_be_visible()
    binh = join_room(open_page, server, binh_token)
    chi = join_room(open_page, server, chi_token)
    expect(binh.by_id("room-host")).to_be_hidden()
    # The host's page learnt of both joins from the feed alone.
    expect(an.page.locator("#room-players li")).to_have_count(3)
    audit(an, "lobby, host")
    audit(binh, "lobby, guest")

    expect(an.page.locator(".brand-sub")).to_have_text("Đấu chữ cùng cả nhóm")
    an.by_id("room-start").click()
    for game in (an, binh, chi):
        expect(game.screen("room")).to_have_attribute("data-status", "playing")
    expect(an.by_id("room-status")).to_have_text("Đến lượt bạn!")
    expect(an.page).to_have_title("(!) Đến lượt bạn · Nối từ")  # seen from another tab too
    expect(binh.by_id("room-status")).to_have_text("Lượt của An.")
    expect(binh.page).to_have_title("Nối từ")
    expect(binh.by_id("room-word-input")).to_be_disabled()
    expect(binh.by_id("room-countdown-bar")).to_be_visible()

    dung = join_room(open_page, server, dung_token)  # joins mid-game: watches
    expect(dung.screen("room")).to_have_attribute("data-you", "")
    expect(dung.by_id("room-move-form")).to_be_hidden()

    send_room_word(an, "đầu tiên")
    expect(binh.by_id("room-status")).to_have_text("Đến lượt bạn!")
    expect(binh.page).to_have_title("(!) Đến lượt bạn · Nối từ")
    expect(an.page).to_have_title("Nối từ")
    expect(dung.page.locator("#room-chain li").first).to_have_attribute("data-word", "đầu tiên")
    audit(binh, "playing, on turn")
    send_room_word(binh, "tiên sinh")
    expect(chi.by_id("room-status")).to_have_text("Đến lượt bạn!")
    # Chi lets the clock run out; the server puts Chi out with no page asking.
    chi_row = an.page.locator('#room-players li[data-seat="3"]')
    expect(chi_row).to_have_attribute("data-out", "timeout", timeout=(TURN_SECONDS + 4) * 1000)
    expect(chi.by_id("room-status")).to_contain_text("Bạn đã bị loại")
    expect(an.by_id("room-status")).to_have_text("Đến lượt bạn!")
    send_room_word(an, "sinh viên")
    send_room_word(binh, "viên chức")  # nothing starts with "chức": Bình wins at once

    titles = {an: "Bạn về thứ 2", binh: "Bạn thắng!", chi: "Bạn về thứ 3", dung: "Ván vừa kết thúc"}
    for game, title in titles.items():
        expect(game.by_id("room-result")).to_be_visible()
        expect(game.by_id("room-result-title")).to_have_text(title)
        expect(game.by_id("room-winner")).to_have_text("Bình thắng sau 4 từ!")
        expect(game.by_id("room-reason")).to_have_text("Không còn từ nào bắt đầu bằng “chức” để nối.")
        seats = game.page.locator("#room-standings li")
        expect(seats).to_have_count(3)
        assert [seats.nth(i).get_attribute("data-seat") for i in range(3)] == ["2", "1", "3"]
        assert [seats.nth(i).locator(".room-rank").inner_text() for i in range(3)] == ["1.", "2.", "3."]
    expect(binh.by_id("room-result")).to_have_attribute("data-kind", "won")
    assert binh.by_id("room-result-title").evaluate("(el) => getComputedStyle(el).color") == binh.page.evaluate(
        "() => getComputedStyle(document.querySelector('.brand-title')).color"
    ), "the winner's title is in the accent colour, not the error red"
    expect(binh.page.locator("#room-standings li").first).to_contain_text("thưởng 50")
    expect(chi.page.locator('#room-standings li[data-seat="3"]')).to_contain_text("hết giờ")
    audit(chi, "standings")
    audit(dung, "standings, watcher")
    # Back in the lobby, the watcher has a seat at the next game.
    expect(dung.screen("room")).to_have_attribute("data-you", "4")
    expect(an.by_id("room-host")).to_be_visible()
    # A newcomer sees the result as the last game's, its words folded away.
    em = join_room(open_page, server, em_token)
    expect(em.by_id("room-result-title")).to_have_text("Kết quả ván trước")
    expect(em.by_id("room-recap")).to_be_visible()
    expect(em.by_id("room-old-chain")).to_be_hidden()
    expect(em.by_id("room-chain")).to_be_hidden()
    em.page.locator("#room-recap summary").click()
    expect(em.page.locator("#room-old-chain li").first).to_have_attribute("data-word", "viên chức")
    audit(em, "a newcomer, the last game's result and words")


def test_the_lobby_and_a_started_game_pass_axe_in_the_dark(open_page, server: ServerProcess, tokens: Tokens) -> None:
    host_token, guest_token = room_tokens(tokens, ["Hà", "Khoa"])
    games = []
    for token in (host_token, guest_token):
        opened: OpenPage = open_page(color_scheme="dark")
        game = Game(opened.page, server.base)
        game.open(token)
        game.expect_screen("room")
        games.append(game)
    host, guest = games
    audit(host, "dark lobby, host")
    # Choosing the bot's level is enough: no separate "Lưu".
    host.by_id("room-bot-level").select_option("easy")
    expect(guest.page.locator("#room-players li")).to_have_count(3)
    expect(guest.page.locator('#room-players li[data-seat="3"] .room-name')).to_have_text("Bot (dễ)")
    host.by_id("room-start").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "playing")
    expect(guest.page.locator("#room-players li")).to_have_count(3)
    audit(guest, "dark game, waiting for the host's word")


def test_a_web_view_without_websockets_follows_the_room_by_event_stream(
    open_page, server: ServerProcess, tokens: Tokens
) -> None:
    host_token, guest_token = room_tokens(tokens, ["Lan", "Minh"])
    host = join_room(open_page, server, host_token)
    opened: OpenPage = open_page()
    opened.page.add_init_script("window.WebSocket = undefined;")
    guest = Game(opened.page, server.base)
    guest.open(guest_token)
    guest.expect_screen("room")
    host.by_id("room-start").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "playing")
    send_room_word(host, "đầu tiên")
    expect(guest.by_id("room-status")).to_have_text("Đến lượt bạn!")
    assert opened.page.evaluate("() => typeof window.WebSocket") == "undefined"


SMALL_PHONE = {"width": 360, "height": 740}
TOO_MANY = r"Failed to load resource: the server responded with a status of 429 \(Too Many Requests\)"
BAD_REQUEST = r"Failed to load resource: the server responded with a status of 400 \(Bad Request\)"
LONG_NAME = "Nguyễn Thị Minh Khai Phương"
# The points' top against the seat number's: one line when they sit within a few pixels.
SAME_LINE = """(row) => Math.abs(row.querySelector('.room-points').getBoundingClientRect().top -
                        row.querySelector('.room-seat').getBoundingClientRect().top) < 4"""


def test_a_small_phone_rides_out_a_limit_a_lost_link_a_leave_and_a_second_tab(
    open_page, server: ServerProcess, tokens: Tokens
) -> None:
    host_token, guest_token = room_tokens(tokens, [LONG_NAME, "Bình"])
    join_url = f"{server.base}{GAME_PATH}api/room/join"

    # The first join meets a limit: the page says when to try again, and its button does.
    first: OpenPage = open_page(SMALL_PHONE)
    first.watch.allow("the test's 429 on the first join", TOO_MANY, join_url)
    first.page.route(join_url, lambda route: route.fulfill(
        status=429, headers={"Retry-After": "2"}, content_type="application/json",
        body='{"error": "too_fast", "message": "Chậm lại một chút nhé!"}'), times=1)
    host = Game(first.page, server.base)
    host.open(host_token)
    host.expect_screen("room")
    expect(host.screen("room")).to_have_attribute("data-away", "join_failed")
    expect(host.by_id("room-away-text")).to_have_text("Chậm lại một chút nhé! Thử lại sau 2 giây nhé.")
    expect(host.by_id("room-live")).to_be_hidden()  # no empty headings, no empty status
    rejoin = host.by_id("room-rejoin")
    expect(rejoin).to_be_disabled()
    audit(host, "a join refused by a limit")
    expect(rejoin).to_have_text("Thử lại", timeout=4_000)
    rejoin.click()
    expect(host.by_id("room-live")).to_be_visible()
    expect(host.screen("room")).not_to_have_attribute("data-away", re.compile(".+"))

    second: OpenPage = open_page(SMALL_PHONE)
    guest = Game(second.page, server.base)
    feeds = []  # every feed socket the guest's page opens, passed through to the server

    def pass_through(socket) -> None:
        socket.connect_to_server()
        feeds.append(socket)

    second.page.route_web_socket(re.compile(r".*/api/room/feed.*"), pass_through)
    guest.open(guest_token)
    guest.expect_screen("room")
    expect(host.page.locator("#room-players li")).to_have_count(2)
    host.by_id("room-start").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "playing")

    # A long name keeps its points on its line, on both pages.
    for game in (host, guest):
        row = game.page.locator('#room-players li[data-seat="1"]')
        expect(row.locator(".room-points")).to_be_visible()
        assert row.evaluate(SAME_LINE), "the points went to a second line"

    # A word too long is refused under the input; the HUD does not move.
    first.watch.allow("a word of nine syllables", BAD_REQUEST, f"{server.base}{GAME_PATH}api/room/move")
    hud_top = host.by_id("room-hud").evaluate("(el) => el.getBoundingClientRect().top")
    host.by_id("room-word-input").fill("một hai ba bốn năm sáu bảy tám chín")
    host.by_id("room-send").click()
    expect(host.by_id("room-reject")).to_contain_text("Từ quá dài")
    expect(host.by_id("room-error")).to_be_hidden()
    assert host.by_id("room-hud").evaluate("(el) => el.getBoundingClientRect().top") == hud_top
    reject_top = host.by_id("room-reject").evaluate("(el) => el.getBoundingClientRect().top")
    input_top = host.by_id("room-word-input").evaluate("(el) => el.getBoundingClientRect().top")
    assert reject_top > input_top, "the refusal sits under the input"
    host.page.wait_for_timeout(Game.MOVE_SPACING_S * 1000)  # the refused word counts for the 300 ms
    send_room_word(host, "đầu tiên")

    # The guest's network goes: the page says so at once, and recovers by itself.
    second.page.context.set_offline(True)
    banner = guest.by_id("network-error")
    expect(banner).to_be_visible()
    expect(guest.by_id("network-error-text")).to_have_text("Mất kết nối, đang kết nối lại…")
    expect(guest.screen("room")).to_have_attribute("data-connection", "down")
    audit(guest, "the feed down")
    second.page.context.set_offline(False)
    expect(banner).to_be_hidden()
    expect(guest.by_id("room-status")).to_have_text("Đến lượt bạn!")

    # Leaving in a game asks first; then the page says it left, and can come back.
    leave = guest.by_id("room-leave")
    leave.click()
    expect(leave).to_have_attribute("data-armed", "true")
    expect(guest.screen("room")).to_have_attribute("data-status", "playing")
    leave.click()
    expect(guest.screen("room")).to_have_attribute("data-away", "left")
    expect(guest.by_id("room-away-title")).to_have_text("Bạn đã rời phòng")
    expect(guest.by_id("room-live")).to_be_hidden()
    expect(guest.page).to_have_title("Nối từ")
    expect(host.by_id("room-result-title")).to_have_text("Bạn thắng!")  # the last one in
    audit(guest, "left the room")
    guest.by_id("room-rejoin").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "lobby")
    expect(host.page.locator("#room-players li")).to_have_count(2)

    # The same link in a second tab: the server tells the first page's feed (B10,
    # revised), which stops for good and offers to play here again.
    third: OpenPage = open_page(SMALL_PHONE)
    other_tab = Game(third.page, server.base)
    other_tab.open(guest_token)
    other_tab.expect_screen("room")
    feeds[-1].send('{"replaced": true}')
    feeds[-1].close()
    expect(guest.screen("room")).to_have_attribute("data-away", "replaced")
    expect(guest.by_id("room-away-title")).to_have_text("Bạn đã mở phòng ở nơi khác.")
    opened = len(feeds)
    guest.page.wait_for_timeout(1_500)
    assert len(feeds) == opened, "a replaced page does not reconnect"
    guest.by_id("room-rejoin").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "lobby")
    expect(guest.by_id("room-rejoin")).to_be_hidden()
