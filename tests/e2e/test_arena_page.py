"""The arena page "Vào trận" in Chromium, against a real `noitu serve` with its sandbox:
upload (the verdict, the compiler's messages), a bot's match against the server's
tactical bot watched live to the end and replayed, a bot that fails (BOT_FAILED, its
code, and for its owner the detail and stderr), a person placing, moving by tap and by
keyboard and surrendering, the board turned for P2, an axe-core audit of each screen in
light and dark, and nothing overflowing on narrow screens.

Screenshots of the main screens go to /tmp/arena-shots/ (ARENA_SHOTS), never into the
repository.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from arena_page import BOTS, BROKEN_BOT, DESKTOP, MATCH_S, MINIMAL_BOT, PHONE, ArenaPage
from e2e_harness import OpenPage, axe_violations
from playwright.sync_api import expect

from support.process import ServerProcess

DEVICES = {"phone": PHONE, "desktop": DESKTOP}

# As in test_narrow_screens: nothing sideways outside the viewport, no box whose content
# spills out of it (unless it clips on purpose).
OVERFLOW = """
() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width) {
    problems.push("page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  for (const el of document.querySelectorAll(".app *")) {
    if (!el.getClientRects().length || el.closest(".visually-hidden")) continue;
    const style = getComputedStyle(el);
    const rect = el.getBoundingClientRect();
    if (rect.left < -0.5 || rect.right > width + 0.5) {
      problems.push(name(el) + " reaches " + Math.round(rect.left) + ".." + Math.round(rect.right) + " of " + width);
    }
    const clips = style.overflowX !== "visible";
    if (!clips && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
      problems.push(name(el) + " content " + el.scrollWidth + " > box " + el.clientWidth);
    }
  }
  return problems;
}
"""


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    """Each page is a client of its own address (B10): the server trusts this machine as
    its proxy, and every browser context sends its own X-Forwarded-For."""
    return {"NOITU_TRUSTED_PROXY": "127.0.0.1"}


CLIENTS = itertools.count(1)


def arena(open_page, server: ServerProcess, viewport=PHONE, **options) -> ArenaPage:
    opened: OpenPage = open_page(viewport, **options)
    number = next(CLIENTS)
    address = f"198.51.{number // 250}.{number % 250 + 1}"
    opened.page.context.set_extra_http_headers({"X-Forwarded-For": address})
    return ArenaPage(opened.page, server.base)


def audit(page: ArenaPage, where: str) -> None:
    page.page.wait_for_timeout(400)  # let the last move's animation finish
    assert axe_violations(page.page) == [], where


def check_overflow(page: ArenaPage, where: str) -> None:
    assert page.page.evaluate(OVERFLOW) == [], where


# Presses "Trực tiếp" whenever the live board is behind; true once the result shows.
CATCH_UP = """
() => {
  const live = document.getElementById("pace-live");
  if (live && !live.disabled && !document.getElementById("pace-box").hidden) {
    live.click();
  }
  return !document.getElementById("result-box").hidden;
}
"""


def watch_to_the_end(page: ArenaPage, moves: bool = True) -> None:
    """Until the result shows (jumping to the newest, not waiting for the live board's
    pace) and the replay is loaded (with moves to scrub through)."""
    page.page.wait_for_function(CATCH_UP, polling=200, timeout=MATCH_S * 1000)
    expect(page.by_id("result-box")).to_be_visible()
    page.expect_phase("FINISHED")
    expect(page.by_id("replay-position")).to_have_text(re.compile(r"^\d+/\d+$"), timeout=15_000)
    if moves:
        expect(page.by_id("replay-range")).not_to_have_attribute("max", "0")


def person_against_random(page: ArenaPage) -> str:
    """A person (P1) against builtin:random, placed and ready; returns the room's code."""
    page.open_home()
    code = page.create_room("person", "builtin:random", name="Lan")
    page.place_randomly_and_ready()
    page.wait_my_turn()
    return code


@pytest.mark.parametrize("device", list(DEVICES))
def test_upload_a_bot_watch_it_play_tactical_to_the_end_and_replay_it(
    open_page, server: ServerProcess, device: str
) -> None:
    page = arena(open_page, server, DEVICES[device])
    page.open_home()
    page.shot(f"{device}-home")

    verdict = page.upload(MINIMAL_BOT, name="Bot tối giản")
    expect(verdict).to_have_attribute("data-build", "ok")
    expect(page.by_id("upload-verdict-title")).to_contain_text("Biên dịch xong")
    expect(page.by_id("upload-messages")).to_be_hidden()
    assert re.fullmatch(r"[0-9a-f]{32}", page.owner_key() or "")
    bot = page.page.locator("#my-bots > li").first
    expect(bot).to_have_attribute("data-build", "ok")
    expect(bot).to_contain_text("Bot tối giản")
    bot_id = bot.get_attribute("data-bot-id")
    expect(page.by_id("seat-select")).to_have_value(f"upload:{bot_id}")
    page.shot(f"{device}-uploaded")

    page.create_room(f"upload:{bot_id}", "builtin:tactical")
    expect(page.by_id("seat-bottom")).to_have_attribute("data-side", "P1")
    expect(page.by_id("seat-bottom")).to_contain_text("Bot tối giản")
    expect(page.by_id("seat-top")).to_contain_text("tactical")
    page.shot(f"{device}-room-live")
    watch_to_the_end(page)
    expect(page.by_id("result-title")).not_to_be_empty()
    expect(page.by_id("turn-counter")).to_have_text(re.compile(r"^Lượt \d+/200$"))
    page.shot(f"{device}-finished")

    scrubber = page.by_id("replay-range")
    last = int(scrubber.get_attribute("max") or "0")
    assert last == page.turn() > 0
    expect(scrubber).to_have_value(str(last))
    page.by_id("replay-start").click()
    expect(scrubber).to_have_value("0")
    expect(page.by_id("replay-position")).to_have_text(f"0/{last}")
    expect(page.page.locator("#board .piece")).to_have_count(36)  # the setup: 18 a side
    page.by_id("replay-next").click()
    expect(scrubber).to_have_value("1")
    expect(page.page.locator("#board .cell.last-to")).to_have_count(1)
    page.by_id("replay-play").click()
    expect(page.by_id("replay-play")).to_have_attribute("aria-pressed", "true")
    page.page.wait_for_function("() => Number(document.getElementById('replay-range').value) >= 3")
    page.by_id("replay-play").click()
    expect(page.by_id("replay-play")).to_have_attribute("aria-pressed", "false")
    middle = last // 2
    scrubber.fill(str(middle))
    expect(page.by_id("replay-position")).to_have_text(f"{middle}/{last}")
    page.expect_counters_follow_the_replay()
    page.by_id("replay-prev").click()
    expect(page.by_id("replay-position")).to_have_text(f"{middle - 1}/{last}")
    page.expect_counters_follow_the_replay()
    page.by_id("replay-start").click()
    page.expect_counters_follow_the_replay()
    scrubber.fill(str(middle))
    page.shot(f"{device}-replay")
    page.by_id("replay-end").click()
    expect(scrubber).to_have_value(str(last))

    link = page.by_id("replay-download")
    href = link.get_attribute("href") or ""
    assert re.fullmatch(r"/arena/api/matches/[^/]+/replay", href)
    answer = page.page.request.get(server.base + href)
    assert answer.ok and answer.headers["content-type"].startswith("application/x-ndjson")
    assert answer.text().splitlines()[0].startswith('{"event":"setup"')

    page.by_id("leave-button").click()  # a finished match: straight back to the lobby
    expect(page.by_id("view-home")).to_be_visible()


def test_a_broken_cpp_file_shows_the_compilers_messages(open_page, server: ServerProcess) -> None:
    page = arena(open_page, server)
    page.open_home()
    verdict = page.upload(BROKEN_BOT)
    expect(verdict).to_have_attribute("data-build", "failed")
    expect(page.by_id("upload-verdict-title")).to_contain_text("Biên dịch lỗi")
    messages = page.by_id("upload-messages")
    expect(messages).to_be_visible()
    expect(messages).to_contain_text("error")
    assert messages.evaluate("(el) => getComputedStyle(el).fontFamily").lower().find("mono") >= 0
    # A failed build is listed apart from the bots that work, and says it failed.
    expect(page.page.locator("#my-bots > li")).to_have_count(0)
    expect(page.by_id("failed-bots-group")).to_be_visible()
    failed = page.page.locator("#failed-bots > li")
    expect(failed).to_have_count(1)
    expect(failed.first).to_have_attribute("data-build", "failed")
    expect(failed.first).to_contain_text("lỗi biên dịch")
    # A bot that does not build is offered for no seat.
    failed_id = failed.first.get_attribute("data-bot-id")
    assert page.page.locator(f'#seat-select option[value="upload:{failed_id}"]').count() == 0
    page.shot("phone-compile-error")


def test_the_verdict_says_how_long_the_build_waited_for_its_turn(
    open_page, server: ServerProcess
) -> None:
    page = arena(open_page, server)
    page.open_home()
    is_upload = lambda r: r.url.endswith("/arena/api/bots") and r.request.method == "POST"
    with page.page.expect_response(is_upload) as uploaded:
        expect(page.upload(MINIMAL_BOT)).to_have_attribute("data-build", "ok")
    answer = uploaded.value.json()
    assert answer["buildWaitMs"] < 1000  # nothing else builds here
    expect(page.by_id("upload-waited")).to_be_hidden()  # no wait: nothing said

    # The same answer, as if the build had waited 7.4 s behind others (the server's
    # queue itself is tested in tests/unit and over HTTP).
    page.page.route(
        re.compile(r".*/arena/api/bots$"),
        lambda route: route.fulfill(status=201, json={**answer, "buildWaitMs": 7_400})
        if route.request.method == "POST" else route.continue_(),
    )
    expect(page.upload(MINIMAL_BOT)).to_have_attribute("data-build", "ok")
    expect(page.by_id("upload-waited")).to_be_visible()
    expect(page.by_id("upload-waited")).to_contain_text("đã chờ 7 giây")


def test_the_server_s_languages_built_in_bots_and_figures_reach_the_page(open_page, server: ServerProcess) -> None:
    page = arena(open_page, server)
    page.open_home()
    options = page.page.locator('#opponent-select option[value^="builtin:"]')
    expect(options).to_have_count(3)
    assert options.evaluate_all("all => all.map(o => o.value)") == [
        "builtin:random", "builtin:tactical", "builtin:strong"
    ]
    expect(page.by_id("upload-kinds")).to_have_text("Một tệp .py, .cpp, .java hoặc .jar.")
    expect(page.by_id("upload-file")).to_have_attribute("accept", ".py,.cpp,.cc,.cxx,.java,.jar")
    expect(page.by_id("sandbox-note")).to_have_text(
        "Bot chạy trong hộp cát của máy chủ: 0,5 CPU, 384 MB, 2 giây mỗi lượt (lượt đầu 25 giây)."
    )


def test_my_bots_made_public_downloaded_and_deleted(open_page, server: ServerProcess) -> None:
    owner = arena(open_page, server)
    owner.open_home()
    expect(owner.upload(MINIMAL_BOT, name="Bot chia sẻ")).to_have_attribute("data-build", "ok")
    mine = owner.page.locator("#my-bots > li").first
    bot_id = mine.get_attribute("data-bot-id")
    mine.get_by_test_id("toggle-public").click()
    expect(mine.locator(".bot-meta")).to_contain_text("Công khai")
    with owner.page.expect_download() as download:
        owner.page.locator("#my-bots > li").first.get_by_test_id("download-source").click()
    assert download.value.suggested_filename.endswith(".py")
    assert Path(download.value.path()).read_bytes() == MINIMAL_BOT.read_bytes()

    other = arena(open_page, server)
    other.open_home()
    shared = other.page.locator(f'#public-bots > li[data-bot-id="{bot_id}"]')
    expect(shared).to_contain_text("Bot chia sẻ")
    expect(other.page.locator(f'#opponent-select option[value="upload:{bot_id}"]')).to_have_count(1)

    owner.page.locator("#my-bots > li").first.get_by_test_id("delete-bot").click()
    owner.page.get_by_test_id("confirm-yes").click()
    expect(owner.page.locator("#my-bots > li")).to_have_count(0)
    expect(owner.by_id("my-bots-empty")).to_be_visible()


def test_a_failing_bot_shows_bot_failed_its_code_and_to_its_owner_the_stderr(
    open_page, server: ServerProcess
) -> None:
    page = arena(open_page, server)
    page.open_home()
    expect(page.upload(BOTS / "exit_after_one.py", name="Thoát sớm")).to_have_attribute("data-build", "ok")
    bot_id = page.page.locator("#my-bots > li").first.get_attribute("data-bot-id")
    code = page.create_room(f"upload:{bot_id}", "builtin:random")
    watch_to_the_end(page, moves=False)
    # A spectator reads the code and the server's one-line detail (public, B3), not the
    # stderr.
    spectator = arena(open_page, server)
    spectator.open(f"?room={code}")
    expect(spectator.by_id("failure-code")).to_have_text(re.compile(r"^[A-Z_]+$"))
    expect(spectator.by_id("failure-help")).to_contain_text("Chi tiết lỗi")
    expect(spectator.page.get_by_test_id("bot-stderr")).to_have_count(0)
    expect(page.by_id("result-box")).to_have_attribute("data-reason", "BOT_FAILED")
    expect(page.by_id("result-box")).to_have_attribute("data-winner", "P2")
    expect(page.by_id("failure-code")).to_have_text(re.compile(r"^[A-Z_]+$"))
    expect(page.by_id("failure-details")).to_be_visible()
    expect(page.page.get_by_test_id("bot-stderr").first).to_be_visible()
    page.shot("phone-bot-failed")

    # Back to the lobby, then a new room where P1 is a person: nothing of the old room
    # shows, neither while the new one loads nor at its end.
    page.by_id("back-button").click()
    expect(page.by_id("view-home")).to_be_visible()
    page.create_room("person", "builtin:random", name="Lan")
    expect_nothing_of_a_finished_room(page)
    page.place_randomly_and_ready()
    page.wait_my_turn()
    page.surrender()
    expect(page.by_id("failure-box")).to_be_hidden()
    expect(page.by_id("failure-details")).to_be_hidden()
    expect(page.page.get_by_test_id("bot-stderr")).to_have_count(0)
    expect(page.by_id("result-box")).not_to_contain_text("stderr")


def expect_nothing_of_a_finished_room(page: ArenaPage) -> None:
    for name in ("result-box", "failure-box", "failure-details", "replay-box", "pace-box"):
        expect(page.by_id(name)).to_be_hidden()
    expect(page.page.get_by_test_id("bot-stderr")).to_have_count(0)
    expect(page.by_id("replay-position")).to_have_text("0/0")
    expect(page.by_id("last-move")).to_have_text("")
    expect(page.by_id("seat-bottom")).not_to_contain_text("Thoát sớm")
    expect(page.by_id("seat-top")).not_to_contain_text("Thoát sớm")


def test_a_person_places_plays_by_tap_and_keyboard_and_surrenders(open_page, server: ServerProcess) -> None:
    page = arena(open_page, server)
    page.open_home()
    page.create_room("person", "builtin:random", name="Lan")
    page.expect_phase("PLACEMENT", timeout=20_000)
    expect(page.by_id("countdown")).to_have_text(re.compile(r"^(1[01]\d|120|\d{1,2})$"))
    expect(page.by_id("view-room")).to_have_attribute("data-view", "P1")
    # One piece by hand: pick it in the tray, then a square of P1's half.
    page.page.locator("#tray .tray-piece").first.click()
    expect(page.page.locator("#board .cell.placeable")).to_have_count(35)
    page.shot("phone-placement")
    page.cell(7, 2).click()
    expect(page.cell(7, 2).locator(".piece.own")).to_have_count(1)
    expect(page.page.locator("#tray .tray-piece")).to_have_count(17)
    page.by_id("random-button").click()
    expect(page.page.locator("#board .piece.own")).to_have_count(18)
    page.by_id("ready-button").click()

    page.wait_my_turn()
    expect(page.by_id("countdown-line")).to_be_visible()
    page.page.locator("#board .cell.selectable").first.click()
    expect(page.page.locator("#board .cell.target").first).to_be_visible()
    page.shot("phone-my-turn")
    page.page.keyboard.press("Escape")
    expect(page.page.locator("#board .cell.selected")).to_have_count(0)
    page.move_by_tap()
    page.move_by_tap()
    page.move_by_keyboard()
    expect(page.by_id("last-move")).to_contain_text("Lượt")
    page.wait_my_turn()
    page.surrender()
    expect(page.by_id("result-box")).to_have_attribute("data-winner", "P2")
    expect(page.by_id("result-title")).to_have_text("Bạn thua.")
    page.shot("phone-surrendered")


def test_the_board_is_turned_for_p2_and_a_room_is_joined_by_its_code(
    open_page, server: ServerProcess
) -> None:
    host = arena(open_page, server, DESKTOP)
    host.open_home()
    code = host.create_room("builtin:random", "open")
    host.expect_phase("WAITING")
    expect(host.by_id("share-url")).to_have_value(f"{server.base}/arena/?room={code}")

    guest = arena(open_page, server, PHONE)
    guest.open_home()
    expect(guest.page.locator(f'#waiting-rooms li[data-code="{code}"]')).to_be_visible(timeout=10_000)
    guest.by_id("join-code").fill(code.lower())  # typed in lower case
    guest.by_id("join-button").click()
    expect(guest.by_id("view-room")).to_be_visible()
    expect(guest.by_id("room-code")).to_have_text(code)
    expect(guest.by_id("view-room")).to_have_attribute("data-view", "P2")
    expect(guest.by_id("seat-bottom")).to_have_attribute("data-side", "P2")
    order = guest.display_order()
    assert order[0] == (8, 8) and order[-1] == (0, 0)  # rotated 180°
    assert guest.page.locator("#edge-rows .edge-label").all_inner_texts()[0] == "8"
    guest.place_randomly_and_ready()
    # P2's pieces stand above the diagonal (row < col), shown in the lower half.
    board = guest.by_id("board").bounding_box()
    own = guest.page.locator("#board .piece.own").evaluate_all(
        "(pieces) => pieces.map((p) => p.getBoundingClientRect().top + p.getBoundingClientRect().height / 2)"
    )
    assert len(own) == 18 and sum(own) / len(own) > board["y"] + board["height"] / 2
    guest.shot("phone-p2-view")

    # A spectator by the #CODE link sees P1 at the bottom.
    spectator = arena(open_page, server, PHONE)
    spectator.open(f"#{code.lower()}")
    expect(spectator.by_id("room-code")).to_have_text(code)
    expect(spectator.by_id("view-room")).to_have_attribute("data-view", "P1")
    assert spectator.display_order()[0] == (0, 0)

    guest.move_by_tap()
    expect(host.page.locator("#board .cell.last-to")).to_have_count(1, timeout=10_000)
    host.shot("desktop-room-host")
    guest.by_id("leave-button").click()
    guest.page.get_by_test_id("confirm-yes").click()
    expect(guest.by_id("view-home")).to_be_visible()
    expect(spectator.by_id("result-box")).to_have_attribute("data-reason", "SURRENDER", timeout=10_000)
    expect(spectator.by_id("result-box")).to_have_attribute("data-winner", "P1")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_arena_screen_passes_axe(open_page, server: ServerProcess, scheme: str) -> None:
    page = arena(open_page, server, PHONE, color_scheme=scheme)
    page.open_home()
    audit(page, "home")
    expect(page.upload(BROKEN_BOT)).to_have_attribute("data-build", "failed")
    page.page.locator("#failed-bots details summary").first.click()
    audit(page, "home, a failed build with its messages")

    page.create_room("person", "builtin:random")
    page.expect_phase("PLACEMENT", timeout=20_000)
    page.page.locator("#tray .tray-piece").first.click()
    audit(page, "placement, a piece picked")
    page.by_id("random-button").click()
    page.by_id("ready-button").click()
    page.wait_my_turn()
    page.page.locator("#board .cell.selectable").first.click()
    audit(page, "my turn, a piece selected")
    page.page.keyboard.press("Escape")
    page.move_by_tap()
    page.wait_my_turn()
    page.by_id("surrender-button").click()
    audit(page, "the surrender asked to confirm")
    page.page.get_by_test_id("confirm-yes").click()
    page.expect_phase("FINISHED")
    expect(page.by_id("replay-range")).not_to_have_attribute("max", "0", timeout=15_000)
    page.by_id("replay-start").click()
    audit(page, "finished, the replay at its start")
    page.shot(f"phone-finished-{scheme}")

    desktop = arena(open_page, server, DESKTOP, color_scheme=scheme)
    desktop.open_home()
    audit(desktop, "home on a desktop")
    desktop.shot(f"desktop-home-{scheme}")


NARROW = {
    "320px": ({"width": 320, "height": 640}, 1, False),
    "200% zoom on 360px": ({"width": 180, "height": 370}, 2, False),
    "200% zoom on 360px, a wide font": ({"width": 180, "height": 370}, 2, True),
}

# Whatever fonts the machine has, the layout must hold in a wide one: this appends a rule
# to the served arena.css that sets every text in DejaVu Sans (Debian's default, wider
# than most phone fonts; `fonts-dejavu-core` is installed by scripts/setup --test).
WIDE_FONT_RULE = "\n.app, .app * { font-family: 'DejaVu Sans', sans-serif !important; }\n"


def use_a_wide_font(page: ArenaPage) -> None:
    def append_rule(route) -> None:
        served = route.fetch()
        route.fulfill(response=served, body=served.text() + WIDE_FONT_RULE)

    page.page.context.route(re.compile(r".*/arena/arena\.css(\?.*)?$"), append_rule)


@pytest.mark.parametrize("screen", list(NARROW))
def test_nothing_overflows_on_narrow_screens(
    open_page, server: ServerProcess, screen: str, tmp_path: Path
) -> None:
    viewport, scale, wide_font = NARROW[screen]
    page = arena(open_page, server, viewport, device_scale_factor=scale)
    if wide_font:
        use_a_wide_font(page)
    page.open_home()
    if wide_font:
        family = page.page.evaluate("getComputedStyle(document.getElementById('opponent-select')).fontFamily")
        assert "DejaVu Sans" in family
    check_overflow(page, "home")
    expect(page.upload(BROKEN_BOT)).to_have_attribute("data-build", "failed")
    check_overflow(page, "home, the compiler's messages")

    page.create_room("person", "builtin:random", name="Nguyễn Thị Thu Hương Quỳnh Anh")
    page.expect_phase("PLACEMENT", timeout=20_000)
    page.page.locator("#tray .tray-piece").first.click()
    check_overflow(page, "placement")
    page.by_id("random-button").click()
    page.by_id("ready-button").click()
    page.wait_my_turn()
    page.page.locator("#board .cell.selectable").first.click()
    check_overflow(page, "my turn")
    page.page.keyboard.press("Escape")
    page.move_by_tap()
    page.wait_my_turn()
    page.surrender()
    expect(page.by_id("replay-range")).not_to_have_attribute("max", "0", timeout=15_000)
    check_overflow(page, "finished, with the replay")
    page.shot("narrow-" + ("320" if scale == 1 else "zoom200") + ("-wide" if wide_font else "") + "-finished")

    # Watching a bot match: the pace's line and buttons.
    page.by_id("back-button").click()
    page.create_room("builtin:random", "builtin:random")
    expect(page.by_id("pace-state")).to_have_text(re.compile(r"^Chậm \d+ lượt"), timeout=30_000)
    check_overflow(page, "watching, behind the match")
    page.page.wait_for_function(CATCH_UP, polling=200, timeout=MATCH_S * 1000)

    # A replay file from disk, and one that is not a replay.
    page.by_id("back-button").click()
    page.by_id("replay-file").set_input_files(str(replay_file(tmp_path)))
    expect(page.by_id("view-room")).to_have_attribute("data-source", "file")
    check_overflow(page, "a replay file")
    page.by_id("back-button").click()
    broken = tmp_path / "a-rather-long-name-for-a-file-that-is-not-a-replay.jsonl"
    broken.write_text("{}\n")
    page.by_id("replay-file").set_input_files(str(broken))
    expect(page.by_id("replay-file-error")).to_be_visible()
    check_overflow(page, "a broken replay file")


# ---- the result in words, per viewer ---------------------------------------------------

ENDINGS = ["BASE_CAPTURED", "NO_PIECES", "TURN_LIMIT", "BOT_FAILED", "SURRENDER", "TIME_UP"]

# endWords (js/text.js) for every ending, winner P2, seen by P2, by P1 and by nobody,
# and the endings nobody won.
END_WORDS = """
async (endings) => {
  const text = await import("/arena/js/text.js");
  const names = { P1: "Lan", P2: "Mạnh" };
  const out = {};
  for (const reason of endings) {
    const result = { winner: "P2", reason: reason, turns: 12 };
    out[reason] = {
      won: text.endWords(result, ["P2"], names, 200),
      lost: text.endWords(result, ["P1"], names, 200),
      watch: text.endWords(result, [], names, 200),
      both: text.endWords(result, ["P1", "P2"], names, 200)
    };
  }
  out.draw = text.endWords({ winner: null, reason: "TURN_LIMIT", turns: 200 }, ["P1"], names, 200);
  out.abandoned = text.endWords({ winner: null, reason: "ABANDONED", turns: 7 }, [], names, 200);
  return out;
}
"""


def test_every_ending_has_a_sentence_for_the_winner_the_loser_and_a_spectator(
    open_page, server: ServerProcess
) -> None:
    page = arena(open_page, server)
    page.open_home()
    words = page.page.evaluate(END_WORDS, ENDINGS)
    for reason in ENDINGS:
        won, lost, watch = words[reason]["won"], words[reason]["lost"], words[reason]["watch"]
        assert (won["title"], lost["title"]) == ("Bạn thắng!", "Bạn thua."), reason
        assert watch["title"] == "P2 (Mạnh) thắng", reason
        assert words[reason]["both"] == watch, reason  # seated on both sides: as a spectator
        sentences = [won["sentence"], lost["sentence"], watch["sentence"]]
        assert len(set(sentences)) == 3, (reason, sentences)
        for one in sentences:
            assert one.endswith(".") and reason not in one, (reason, one)
            assert "bên kia" not in one and "thắng" not in one, (reason, one)  # the title says who won
        assert "bạn" not in watch["sentence"].lower(), (reason, watch)
        assert "P1" in watch["sentence"] or reason == "TURN_LIMIT", (reason, watch)
    assert words["SURRENDER"]["lost"]["sentence"] == "Bạn đã đầu hàng (12 lượt)."
    assert words["SURRENDER"]["won"]["sentence"] == "Đối thủ đã đầu hàng (12 lượt)."
    assert words["SURRENDER"]["watch"]["sentence"] == "P1 đã đầu hàng (12 lượt)."
    assert words["draw"]["title"] == "Hoà!" and "bằng nhau" in words["draw"]["sentence"]
    assert words["abandoned"]["title"] == "Trận bị huỷ" and "khởi động lại" in words["abandoned"]["sentence"]


def test_a_surrender_reads_right_for_the_one_who_surrendered_and_for_a_spectator(
    open_page, server: ServerProcess
) -> None:
    player = arena(open_page, server)
    code = person_against_random(player)
    spectator = arena(open_page, server, DESKTOP)
    spectator.open(f"?room={code}")
    expect(spectator.by_id("room-code")).to_have_text(code)
    spectator.expect_phase("PLAYING")
    player.surrender()

    expect(player.by_id("result-box")).to_have_attribute("data-role", "lost")
    expect(player.by_id("result-title")).to_have_text("Bạn thua.")
    expect(player.by_id("result-reason")).to_have_text(re.compile(r"^Bạn đã đầu hàng \(\d+ lượt\)\.$"))
    expect(player.by_id("result-box")).not_to_contain_text("bên kia")

    expect(spectator.by_id("result-box")).to_have_attribute("data-reason", "SURRENDER", timeout=10_000)
    expect(spectator.by_id("result-box")).to_have_attribute("data-role", "watch")
    expect(spectator.by_id("result-title")).to_have_text("P2 (random) thắng")
    expect(spectator.by_id("result-reason")).to_have_text(re.compile(r"^P1 đã đầu hàng \(\d+ lượt\)\.$"))
    assert spectator.by_id("result-box").inner_text().count("thắng") == 1
    spectator.shot("desktop-surrender-spectator")


# ---- the live board's pace ---------------------------------------------------------------

# Records every text the turn counter shows, from now on.
RECORD_TURNS = """
() => {
  window.turnsSeen = [];
  const counter = document.getElementById("turn-counter");
  new MutationObserver(() => {
    const seen = window.turnsSeen;
    if (counter.textContent && seen[seen.length - 1] !== counter.textContent) {
      seen.push(counter.textContent);
    }
  }).observe(counter, { childList: true, characterData: true, subtree: true });
}
"""


# The board and the counters beside it, read in one go.
LIVE_COUNTERS = """
() => {
  const text = (selector) => document.querySelector(selector).textContent;
  const toMove = document.querySelector(".seat-bar.to-move");
  return {
    P1: document.querySelectorAll("#board .piece.side-P1").length,
    P2: document.querySelectorAll("#board .piece.side-P2").length,
    left: text("#pieces-left"),
    barP1: text('.seat-bar[data-side="P1"] .seat-count'),
    barP2: text('.seat-bar[data-side="P2"] .seat-count'),
    turn: Number(/Lượt (\\d+)\\//.exec(text("#turn-counter"))[1]),
    toMove: toMove ? toMove.getAttribute("data-side") : "",
    lastMove: text("#last-move")
  };
}
"""


def turns_seen(page: ArenaPage) -> list[int]:
    texts = page.page.evaluate("() => window.turnsSeen")
    return [int(re.match(r"Lượt (\d+)/", text).group(1)) for text in texts]


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_fast_bot_match_is_shown_turn_by_turn_and_live_jumps_to_the_newest(
    open_page, server: ServerProcess, device: str
) -> None:
    # Without motion: a piece arriving fades in, and the board never stops here.
    page = arena(open_page, server, DEVICES[device], reduced_motion="reduce")
    page.open_home()
    code = page.create_room("builtin:random", "builtin:random")
    page.page.evaluate(RECORD_TURNS)
    # The bots finish in a second or two; the board is soon far behind them.
    expect(page.by_id("pace-box")).to_be_visible(timeout=30_000)
    expect(page.by_id("pace-state")).to_have_text(re.compile(r"^Chậm \d+ lượt"), timeout=30_000)
    assert int(page.by_id("pace-box").get_attribute("data-behind") or "0") > 0
    page.page.wait_for_function("() => window.turnsSeen.length >= 4")
    page.by_id("pace-x2").click()
    expect(page.by_id("pace-x2")).to_have_attribute("aria-pressed", "true")
    expect(page.by_id("pace-x1")).to_have_attribute("aria-pressed", "false")
    page.page.wait_for_function("() => window.turnsSeen.length >= 6")
    check_overflow(page, "watching a live match")
    audit(page, "watching a live match, the pace")
    page.shot(f"{device}-pace-behind")
    # Live too, everything beside the board is about the board shown (read at once).
    for _ in range(3):
        now = page.page.evaluate(LIVE_COUNTERS)
        assert now["left"] == f"Quân còn: P1 {now['P1']} · P2 {now['P2']}", now
        assert (now["barP1"], now["barP2"]) == (str(now["P1"]), str(now["P2"])), now
        assert now["toMove"] == ("P1" if now["turn"] % 2 == 0 else "P2"), now
        assert now["lastMove"].startswith(f"Lượt {now['turn']}: "), now
        page.page.wait_for_timeout(100)
    seen = turns_seen(page)
    # Turn by turn: every value shown, in order, none skipped.
    assert seen == list(range(seen[0], seen[0] + len(seen))), seen
    expect(page.by_id("result-box")).to_be_hidden()  # the board has not reached the end yet

    # Once the match is over on the server, "Trực tiếp" shows its end at once.
    expect_finished_on_the_server(page, code)
    page.by_id("pace-live").click()
    page.expect_phase("FINISHED")
    expect(page.by_id("result-box")).to_be_visible()
    expect(page.by_id("pace-box")).to_be_hidden()
    expect(page.by_id("replay-range")).not_to_have_attribute("max", "0", timeout=15_000)
    last = int(page.by_id("replay-range").get_attribute("max") or "0")
    assert page.turn() == last > seen[-1]


def expect_finished_on_the_server(page: ArenaPage, code: str) -> None:
    for _ in range(MATCH_S * 5):
        answer = page.page.request.get(f"{page.base}/arena/api/rooms/{code}")
        if answer.ok and answer.json()["phase"] == "FINISHED":
            return
        page.page.wait_for_timeout(200)
    raise AssertionError(f"room {code} did not finish")


# ---- a replay file from the author's disk ------------------------------------------------


def replay_file(folder: Path) -> Path:
    """A replay written by `noitu arena match` (random against random, seed 5)."""
    target = folder / "seed5.jsonl"
    noitu = Path(sys.executable).with_name("noitu")
    subprocess.run(
        [str(noitu), "arena", "match", "builtin:random", "builtin:random", "--seed", "5",
         "--replay", str(target), "--no-sandbox", "--quiet"],
        check=True, capture_output=True, timeout=120,
    )
    return target


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_replay_file_from_disk_plays_on_the_board_and_a_broken_one_says_why(
    open_page, server: ServerProcess, device: str, tmp_path: Path
) -> None:
    source = replay_file(tmp_path)
    end = source.read_text().splitlines()[-1]
    turns = int(re.search(r'"turns":(\d+)', end).group(1))
    page = arena(open_page, server, DEVICES[device])
    page.open_home()
    requests: list[str] = []
    page.page.on("request", lambda request: requests.append(request.method + " " + request.url))
    page.by_id("replay-file").set_input_files(str(source))
    expect(page.by_id("view-room")).to_have_attribute("data-source", "file")
    page.expect_phase("FINISHED")
    expect(page.by_id("replay-file-note")).to_contain_text("seed5.jsonl")
    expect(page.by_id("replay-position")).to_have_text(f"{turns}/{turns}")
    # The random bots are not seeded: any result, told as to a spectator.
    expect(page.by_id("result-box")).to_have_attribute("data-role", "none" if '"winner":null' in end else "watch")
    expect(page.by_id("seat-top")).to_contain_text("random")
    expect(page.by_id("replay-download-row")).to_be_hidden()
    expect(page.by_id("pace-box")).to_be_hidden()
    page.expect_counters_follow_the_replay()
    page.by_id("replay-start").click()
    expect(page.page.locator("#board .piece")).to_have_count(36)
    page.expect_counters_follow_the_replay()
    page.by_id("replay-next").click()
    expect(page.page.locator("#board .cell.last-to")).to_have_count(1)
    page.expect_counters_follow_the_replay()
    page.by_id("replay-range").fill(str(turns // 2))
    page.expect_counters_follow_the_replay()
    check_overflow(page, "a replay file")
    audit(page, "a replay file")
    page.shot(f"{device}-replay-file")
    assert not [one for one in requests if one.startswith("POST") or "/replay" in one], requests

    page.by_id("back-button").click()
    expect(page.by_id("view-home")).to_be_visible()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("thinking about turn 0\n")
    page.by_id("replay-file").set_input_files(str(broken))
    expect(page.by_id("replay-file-error")).to_have_text(re.compile(r"^Không mở được bản ghi này: dòng 1 không phải JSON"))
    expect(page.by_id("view-home")).to_be_visible()
    # A move that does not fit the board (a piece moved from where it is not).
    lines = source.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"event":"applied"' in line)
    lines[at] = re.sub(r'"from":\{"row":\d+', '"from":{"row":99', lines[at])
    broken.write_text("\n".join(lines) + "\n")
    page.by_id("replay-file").set_input_files(str(broken))
    expect(page.by_id("replay-file-error")).to_have_text(f"Không mở được bản ghi này: dòng {at + 1}: nước đi không khớp với bàn cờ.")
    expect(page.by_id("view-home")).to_be_visible()
    check_overflow(page, "a broken replay file")
    audit(page, "a broken replay file")


# ---- the network banner (the kernel's, shared with nối từ's page) ---------------------------


def test_a_server_error_shows_the_banner_and_retry_loads_what_failed(open_page, server: ServerProcess) -> None:
    opened: OpenPage = open_page(PHONE)
    opened.page.context.set_extra_http_headers({"X-Forwarded-For": f"198.51.99.{next(CLIENTS) % 250 + 1}"})
    page = ArenaPage(opened.page, server.base)
    config = f"{server.base}/arena/api/config"
    opened.watch.allow(
        "the test answers the config with a 500",
        r"Failed to load resource: the server responded with a status of 500 .*",
        config,
    )
    opened.page.route(config, lambda route: route.fulfill(status=500, body="Internal Server Error"))
    page.open()
    banner = page.by_id("network-error")
    expect(banner).to_be_visible()
    expect(page.by_id("network-error-text")).to_have_text(
        "Máy chủ đang gặp trục trặc. Đợi một chút rồi bấm Thử lại nhé."
    )
    expect(page.by_id("retry-button")).to_be_visible()
    expect(page.page.locator('#opponent-select option[value^="builtin:"]')).to_have_count(0)
    opened.page.unroute(config)
    page.by_id("retry-button").click()
    expect(banner).to_be_hidden()
    expect(page.page.locator('#opponent-select option[value^="builtin:"]')).to_have_count(3)
