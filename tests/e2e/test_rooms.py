"""Room mode in the browser (spec B10): three people on phones play one room — join,
the host starts, words in turn, one runs out of time, the standings — while a fourth
watches; every screen is axe-clean. The server has short turns (7 s, 1 s of grace)."""

from __future__ import annotations

import itertools
import time

import pytest
from e2e_harness import Game, OpenPage, Tokens, axe_violations
from playwright.sync_api import expect

from noitu.application.noitu.session import GameMessage, Ticket
from support.process import ServerProcess

TURN_SECONDS = 7
_users = itertools.count(5001)
_cards = itertools.count(1)


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    return {"NOITU_TURN_SECONDS": str(TURN_SECONDS), "NOITU_GRACE_SECONDS": "1"}


def room_tokens(tokens: Tokens, names: list[str]) -> list[str]:
    """Room links of one new card, one per person (the claim r: 1)."""
    card = next(_cards)
    return [
        tokens.signer.issue(Ticket(next(_users), name, GameMessage(chat_id=-900, message_id=card),
                                   int(time.time()) + 3600, room=True))
        for name in names
    ]


def join(open_page, server: ServerProcess, token: str) -> Game:
    opened: OpenPage = open_page()
    game = Game(opened.page, server.base)
    game.open(token)
    game.expect_screen("room")
    return game


def send(game: Game, word: str) -> None:
    game.by_id("room-word-input").fill(word)
    game.by_id("room-send").click()
    expect(game.by_id("room-word-input")).to_have_value("")


def audit(game: Game, where: str) -> None:
    game.page.wait_for_timeout(300)
    assert axe_violations(game.page) == [], where


def test_three_phones_play_a_room_and_a_fourth_watches(open_page, server: ServerProcess, tokens: Tokens) -> None:
    an_token, binh_token, chi_token, dung_token = room_tokens(tokens, ["An", "Bình", "Chi", "Dũng"])
    an = join(open_page, server, an_token)
    expect(an.by_id("room-host")).to_be_visible()
    binh = join(open_page, server, binh_token)
    chi = join(open_page, server, chi_token)
    expect(binh.by_id("room-host")).to_be_hidden()
    # The host's page learnt of both joins from the feed alone.
    expect(an.page.locator("#room-players li")).to_have_count(3)
    audit(an, "lobby, host")
    audit(binh, "lobby, guest")

    an.by_id("room-start").click()
    for game in (an, binh, chi):
        expect(game.screen("room")).to_have_attribute("data-status", "playing")
    expect(an.by_id("room-status")).to_have_text("Đến lượt bạn!")
    expect(binh.by_id("room-status")).to_have_text("Lượt của An.")
    expect(binh.by_id("room-word-input")).to_be_disabled()

    dung = join(open_page, server, dung_token)  # joins mid-game: watches
    expect(dung.screen("room")).to_have_attribute("data-you", "")
    expect(dung.by_id("room-move-form")).to_be_hidden()

    send(an, "đầu tiên")
    expect(binh.by_id("room-status")).to_have_text("Đến lượt bạn!")
    expect(dung.page.locator("#room-chain li").first).to_have_attribute("data-word", "đầu tiên")
    audit(binh, "playing, on turn")
    send(binh, "tiên sinh")
    expect(chi.by_id("room-status")).to_have_text("Đến lượt bạn!")
    # Chi lets the clock run out; the server puts Chi out with no page asking.
    chi_row = an.page.locator('#room-players li[data-seat="3"]')
    expect(chi_row).to_have_attribute("data-out", "timeout", timeout=(TURN_SECONDS + 4) * 1000)
    expect(chi.by_id("room-status")).to_contain_text("Bạn đã bị loại")
    expect(an.by_id("room-status")).to_have_text("Đến lượt bạn!")
    send(an, "sinh viên")
    send(binh, "viên chức")  # nothing starts with "chức": Bình wins at once

    for game in (an, binh, chi, dung):
        expect(game.by_id("room-result")).to_be_visible()
        expect(game.by_id("room-winner")).to_have_text("Bình thắng sau 4 từ!")
        seats = game.page.locator("#room-standings li")
        expect(seats).to_have_count(3)
        assert [seats.nth(i).get_attribute("data-seat") for i in range(3)] == ["2", "1", "3"]
    expect(binh.page.locator("#room-standings li").first).to_contain_text("thưởng 50")
    audit(chi, "standings")
    audit(dung, "standings, watcher")
    # Back in the lobby, the watcher has a seat at the next game.
    expect(dung.screen("room")).to_have_attribute("data-you", "4")
    expect(an.by_id("room-host")).to_be_visible()


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
    host.by_id("room-bot-level").select_option("easy")
    host.by_id("room-bot-button").click()
    expect(guest.page.locator("#room-players li")).to_have_count(3)
    host.by_id("room-start").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "playing")
    audit(guest, "dark game, waiting for the host's word")


def test_a_web_view_without_websockets_follows_the_room_by_event_stream(
    open_page, server: ServerProcess, tokens: Tokens
) -> None:
    host_token, guest_token = room_tokens(tokens, ["Lan", "Minh"])
    host = join(open_page, server, host_token)
    opened: OpenPage = open_page()
    opened.page.add_init_script("window.WebSocket = undefined;")
    guest = Game(opened.page, server.base)
    guest.open(guest_token)
    guest.expect_screen("room")
    host.by_id("room-start").click()
    expect(guest.screen("room")).to_have_attribute("data-status", "playing")
    send(host, "đầu tiên")
    expect(guest.by_id("room-status")).to_have_text("Đến lượt bạn!")
    assert opened.page.evaluate("() => typeof window.WebSocket") == "undefined"
