"""The ladder on the arena page in Chromium, on a phone and a desktop: "Bảng xếp hạng"
with the built-ins (members from the start, 0 games on a fresh server), a row opening
the bot's page, the rating chart the page draws, the history 50 at a time with "Xem
thêm", the figures and, to the owner, the failures, stderr and the ladder's actions
(rank, leave the table, play again), a ladder match's badge in the lobby, and nothing
overflowing on a phone; in a real ladder room its bot's owner has no surrender button,
and a fourth ranked bot is refused in words.

The server drives the ladder (on by default): the main bot-page test uploads a bot
through the API, ranks it, lets the server play real ladder matches with it and reads
its page from the real routes. The other tests serve a bot's rating history, matches
and figures (GET /arena/api/ladder/bots/{id}, /arena/api/bots/{id}/matches and
/figures) as fixtures in the routes' documented shapes, to check what the page does
with cases a live server cannot be made to show at will (51 matches, failures, stderr).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from arena_page import DESKTOP, MINIMAL_BOT, PHONE, ArenaPage
from e2e_harness import PageWatch
from playwright.sync_api import Route, expect
from test_arena_page import arena, audit, check_overflow, replay_file

from support.process import ServerProcess

DEVICES = {"phone": PHONE, "desktop": DESKTOP}
BUILTINS = ["random", "tactical", "strong"]
BOT_RATING = re.compile(r".*/arena/api/ladder/bots/([^/?]+)$")
BOT_MATCHES = re.compile(r".*/arena/api/bots/([^/?]+)/matches(\?.*)?$")
BOT_FIGURES = re.compile(r".*/arena/api/bots/([^/?]+)/figures$")
NOT_FOUND = r"Failed to load resource: the server responded with a status of 404 .*"
CONFLICT = r"Failed to load resource: the server responded with a status of 409 .*"
LADDER_API = "/arena/api/ladder"
#: Real ladder matches between instant bots end in seconds, but the scheduler may first
#: pick a pairing with strong (about half a second a turn).
LADDER_WAIT_S = 300


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    """Each page is a client of its own address: the server trusts this machine as its proxy."""
    return {"NOITU_TRUSTED_PROXY": "127.0.0.1"}


def upload_by_api(http: httpx.Client, path: Path, name: str, key: str) -> str:
    answer = http.post(
        "/arena/api/bots", headers={"X-Owner-Key": key}, data={"name": name},
        files={"file": (path.name, path.read_bytes(), "text/x-python")},
    )
    assert answer.status_code == 201, answer.text
    assert answer.json()["bot"]["build"] == "ok", answer.text
    return answer.json()["bot"]["id"]


def api_client(server: ServerProcess) -> httpx.Client:
    """A client of the server's API that opens a connection a request: these tests hold
    one across long browser steps, and a kept-alive connection the server closed after
    its idle timeout can be reused just as it closes (a reset, on a loaded machine)."""
    return httpx.Client(
        base_url=server.base, timeout=30, limits=httpx.Limits(max_keepalive_connections=0)
    )


def ladder_bot(http: httpx.Client, bot: str) -> dict[str, Any]:
    answer = http.get(f"{LADDER_API}/bots/{bot}")
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.fixture(scope="module")
def played_bot(server: ServerProcess) -> Iterator[str]:
    """A bot uploaded and ranked through the API, once the server has played and rated
    at least one ladder pairing (two matches) with it; unranked at the end."""
    key = {"X-Owner-Key": "e" * 32}
    with api_client(server) as http:
        bot = upload_by_api(http, MINIMAL_BOT, "Bot thật trên bảng", key["X-Owner-Key"])
        assert http.put(f"{LADDER_API}/bots/{bot}", headers=key).status_code == 200
        deadline = time.monotonic() + LADDER_WAIT_S
        while len(ladder_bot(http, bot)["ratings"]) < 2:
            assert time.monotonic() < deadline, "no ladder pairing played with the bot"
            time.sleep(0.5)
        yield bot
        http.delete(f"{LADDER_API}/bots/{bot}", headers=key)


def answer(route: Route, body: Any, status: int = 200) -> None:
    route.fulfill(status=status, content_type="application/json", body=json.dumps(body))


def ratings(count: int) -> list[dict[str, float]]:
    return [
        {"ms": 1_760_000_000_000 + i * 60_000, "mu": 25 + i, "sigma": 8.3 - i * 0.5, "ordinal": 0.1 + i}
        for i in range(count)
    ]


def a_match(number: int, result: str = "win", **extra: Any) -> dict[str, Any]:
    match = {
        "matchId": f"m{number:04d}", "roomCode": "ABC123", "endedMs": 1_760_000_000_000 + number * 1000,
        "ladder": number % 2 == 0, "side": "P1" if number % 2 else "P2",
        "opponent": {"botId": "tactical", "name": "tactical", "builtin": True, "deleted": False},
        "result": result, "reason": "BASE_CAPTURED", "turns": 40 + number, "replay": True,
        "failure": None, "stderr": None,
    }
    match.update(extra)
    return match


FIGURES = {
    "bySide": {"P1": {"wins": 3, "draws": 1, "losses": 0}, "P2": {"wins": 1, "draws": 0, "losses": 2}},
    "failures": {},
    "replyMs": {"p50": 4, "p99": 31},
}


class Fixtures:
    """The bot routes not served by this server yet, answered in their documented shapes."""

    def __init__(self, page: ArenaPage) -> None:
        self.page = page
        self.rating: Callable[[str], tuple[int, Any]] = lambda bot: (404, {"error": "not_ranked", "message": "x"})
        self.pages: dict[str, dict[str, Any]] = {"": {"matches": [], "next": None}}
        self.figures: dict[str, Any] = FIGURES
        self.asked_before: list[str] = []
        self.left: set[str] = set()  # bots taken off the table through the page
        page.page.route(BOT_RATING, self.on_rating)
        page.page.route(BOT_MATCHES, self.on_matches)
        page.page.route(BOT_FIGURES, lambda route: answer(route, self.figures))

    def on_rating(self, route: Route) -> None:
        bot = BOT_RATING.match(route.request.url)
        assert bot
        if route.request.method != "GET":
            if route.request.method == "DELETE":
                self.left.add(bot.group(1))
            route.fallback()  # ranking and unranking go to the real server
            return
        status, body = self.rating(bot.group(1))
        answer(route, body, status)

    def on_matches(self, route: Route) -> None:
        query = re.search(r"[?&]before=([^&]+)", route.request.url)
        before = query.group(1) if query else ""
        self.asked_before.append(before)
        answer(route, self.pages[before])


def opened(open_page, server: ServerProcess, viewport: dict[str, int]) -> tuple[ArenaPage, PageWatch]:
    """An arena page and the watch of what it logs."""
    watches: list[PageWatch] = []

    def keep(viewport: dict[str, int], **options: Any) -> Any:
        one = open_page(viewport, **options)
        watches.append(one.watch)
        return one

    page = arena(keep, server, viewport)
    return page, watches[0]


def real_row(page: ArenaPage, bot: str) -> dict[str, Any] | None:
    rows = page.page.request.get(page.base + "/arena/api/ladder").json()["rows"]
    return next((row for row in rows if row["botId"] == bot), None)


@pytest.mark.parametrize("device", list(DEVICES))
def test_the_table_has_the_built_ins_and_a_long_history_pages_50_at_a_time(
    open_page, server: ServerProcess, device: str
) -> None:
    """A fresh server (first in the module: no bot ranked yet, so the built-ins have
    played nothing) and a history of 51 matches served as fixtures."""
    page = arena(open_page, server, DEVICES[device])
    fixtures = Fixtures(page)
    table = {bot: real_row(page, bot) for bot in BUILTINS}
    fixtures.rating = lambda bot: (200, {"row": table[bot], "ratings": ratings(6)})
    fixtures.pages = {
        "": {"matches": [a_match(n) for n in range(50, 0, -1)], "next": "c50"},
        "c50": {"matches": [a_match(0, "loss", opponent={"botId": None, "name": "x", "builtin": False,
                                                          "deleted": True},
                                    replay=None, replayDeleted=True)], "next": None},
    }
    page.open_home()

    rows = page.page.locator("#ladder > li")
    expect(rows).to_have_count(3)
    assert sorted(rows.evaluate_all("(items) => items.map((item) => item.dataset.botId)")) == sorted(BUILTINS)
    expect(page.by_id("ladder-empty")).to_be_hidden()
    strong = page.page.locator('#ladder > li[data-bot-id="strong"]')
    expect(strong).to_contain_text("Mạnh nhất (strong)")
    expect(strong).to_contain_text("0 trận")
    expect(strong).to_contain_text("chưa đấu")
    expect(strong).to_contain_text(re.compile(r"\d+,\d ± \d+,\d"))
    expect(strong).to_have_attribute("data-suspended", "false")
    page.by_id("ladder-card").scroll_into_view_if_needed()
    check_overflow(page, f"{device}: the lobby with the table")
    audit(page, f"{device}: the lobby with the table")
    page.shot(f"{device}-ladder")

    strong.locator("a").click()
    expect(page.page).to_have_url(re.compile(r"/arena/\?bot=strong$"))
    expect(page.by_id("view-bot")).to_be_visible()
    expect(page.by_id("view-home")).to_be_hidden()
    expect(page.by_id("bot-name")).to_have_text("Mạnh nhất (strong)")
    expect(page.by_id("bot-rank")).to_have_text(re.compile(r"^Hạng [123]$"))
    expect(page.by_id("view-bot")).to_have_attribute("data-ranked", "true")
    chart = page.page.get_by_test_id("rating-svg")
    expect(chart).to_have_attribute("data-points", "6")
    expect(chart.locator("circle")).to_have_count(6)
    expect(chart.locator("path.chart-line")).to_have_attribute("d", re.compile(r"^M[\d.]+ [\d.]+( L[\d.]+ [\d.]+){5}$"))

    history = page.page.locator("#history > li")
    expect(history).to_have_count(50)
    first = history.first
    expect(first).to_contain_text("Thắng")
    expect(first).to_contain_text("gặp Chiến thuật (tactical)")
    expect(first).to_contain_text("đã chiếm căn cứ của")
    expect(first.get_by_test_id("history-replay")).to_have_attribute("href", "/arena/?match=m0050")
    expect(page.by_id("bot-figures")).to_contain_text("Cầm P1: 3 thắng · 1 hoà · 0 thua")
    expect(page.by_id("bot-figures")).to_contain_text("p99 31 ms")
    expect(page.by_id("bot-failures-group")).to_be_hidden()  # not the owner
    check_overflow(page, f"{device}: a bot's page")
    audit(page, f"{device}: a bot's page")
    page.shot(f"{device}-bot-page")

    page.by_id("history-more").click()
    expect(history).to_have_count(51)
    expect(history.last).to_contain_text("bot đã xoá")
    expect(history.last).to_contain_text("Thua")
    # B14: a replay the retention sweep deleted: the row stays, saying so, with no link.
    expect(history.last.get_by_test_id("history-replay-deleted")).to_have_text("Bản ghi đã xoá")
    expect(history.last.get_by_test_id("history-replay")).to_have_count(0)
    expect(page.by_id("history-more")).to_be_hidden()
    assert fixtures.asked_before == ["", "c50"]

    # The opponent's name opens its page; Back returns; the lobby's button goes home.
    first.locator("a.opponent-link").click()
    expect(page.page).to_have_url(re.compile(r"\?bot=tactical$"))
    expect(page.by_id("bot-name")).to_have_text("Chiến thuật (tactical)")
    page.page.go_back()
    expect(page.by_id("bot-name")).to_have_text("Mạnh nhất (strong)")
    page.by_id("bot-back").click()
    expect(page.by_id("view-home")).to_be_visible()
    expect(page.page).to_have_url(re.compile(r"/arena/$"))


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_ranked_bots_row_opens_its_page_with_its_real_ladder_matches(
    open_page, server: ServerProcess, played_bot: str, device: str
) -> None:
    """The real server end to end: the table, the bot's rating chart, history, figures
    and a replay, all from the routes, after ladder matches the server played itself."""
    page = arena(open_page, server, DEVICES[device])
    with api_client(server) as http:
        before = ladder_bot(http, played_bot)
        matches_before = http.get(f"/arena/api/bots/{played_bot}/matches").json()["matches"]
        page.open_home()
        rows = page.page.locator("#ladder > li")
        expect(rows).to_have_count(len(http.get(LADDER_API).json()["rows"]))
        mine = page.page.locator(f'#ladder > li[data-bot-id="{played_bot}"]')
        expect(mine).to_contain_text("Bot thật trên bảng")
        expect(mine).to_contain_text(re.compile(r"\d+,\d ± \d+,\d"))
        expect(mine).to_contain_text(re.compile(r"[1-9]\d* trận"))
        expect(mine).not_to_contain_text("chưa đấu")
        for builtin in BUILTINS:
            expect(page.page.locator(f'#ladder > li[data-bot-id="{builtin}"]')).to_have_count(1)
        page.by_id("ladder-card").scroll_into_view_if_needed()
        check_overflow(page, f"{device}: the lobby with a real table")
        audit(page, f"{device}: the lobby with a real table")
        page.shot(f"{device}-ladder-real")

        mine.locator("a").click()
        expect(page.page).to_have_url(re.compile(rf"/arena/\?bot={played_bot}$"))
        expect(page.by_id("view-bot")).to_be_visible()
        expect(page.by_id("bot-name")).to_have_text("Bot thật trên bảng")
        expect(page.by_id("bot-rank")).to_have_text(re.compile(r"^Hạng [1-9]\d*$"))
        expect(page.by_id("view-bot")).to_have_attribute("data-ranked", "true")
        chart = page.page.get_by_test_id("rating-svg")
        expect(chart).to_have_attribute("data-points", re.compile(r"^\d+$"))
        # the server goes on playing: the page read between the two readings here
        drawn = int(chart.get_attribute("data-points") or 0)
        after = ladder_bot(http, played_bot)
        assert len(before["ratings"]) <= drawn <= len(after["ratings"])
        expect(chart.locator("circle")).to_have_count(drawn)

        history = page.page.locator("#history > li")
        expect(history.first).to_be_visible()
        matches_after = http.get(f"/arena/api/bots/{played_bot}/matches").json()["matches"]
        assert len(matches_before) <= history.count() <= len(matches_after)
        first = history.first
        expect(first).to_contain_text(re.compile(r"Thắng|Thua|Hoà"))
        expect(first).to_contain_text("gặp ")
        replay = first.get_by_test_id("history-replay")
        expect(replay).to_have_attribute("href", re.compile(r"^/arena/\?match=[0-9A-F]{8}$"))
        shown = {m["matchId"] for m in matches_after}
        assert (replay.get_attribute("href") or "").rsplit("=", 1)[1] in shown
        figures = http.get(f"/arena/api/bots/{played_bot}/figures").json()
        for side in ("P1", "P2"):
            one = figures["bySide"][side]
            if one["wins"] + one["draws"] + one["losses"]:
                expect(page.by_id("bot-figures")).to_contain_text(
                    re.compile(rf"Cầm {side}: \d+ thắng · \d+ hoà · \d+ thua")
                )
        expect(page.by_id("bot-figures")).to_contain_text("Thời gian trả lời")
        expect(page.by_id("bot-failures-group")).to_be_hidden()  # not the owner
        check_overflow(page, f"{device}: a real bot's page")
        audit(page, f"{device}: a real bot's page")
        page.shot(f"{device}-bot-page-real")

    # Its newest match replays on the board from the real replay route; Back returns.
    replay.click()
    expect(page.page).to_have_url(re.compile(r"\?match=[0-9A-F]{8}$"))
    expect(page.by_id("view-room")).to_be_visible()
    expect(page.by_id("replay-position")).to_have_text(re.compile(r"^\d+/\d+$"))
    expect(page.page.locator("#board .piece").first).to_be_visible()
    page.page.go_back()
    expect(page.by_id("view-bot")).to_be_visible()
    page.by_id("bot-back").click()
    expect(page.by_id("view-home")).to_be_visible()
    expect(page.page).to_have_url(re.compile(r"/arena/$"))


def test_a_bot_never_on_the_ladder_shows_its_history_without_a_chart(open_page, server: ServerProcess) -> None:
    page, watch = opened(open_page, server, PHONE)
    Fixtures(page)
    bot = "0" * 32
    watch.allow("a bot never ranked has no rating (404)", NOT_FOUND, f"{server.base}/arena/api/ladder/bots/{bot}")
    page.open("?bot=" + bot)
    expect(page.by_id("view-bot")).to_be_visible()
    expect(page.by_id("view-bot")).to_have_attribute("data-ranked", "false")
    expect(page.by_id("rating-chart")).to_be_hidden()
    expect(page.by_id("rating-note")).to_have_text("Bot chưa có điểm: nó chưa vào bảng xếp hạng.")
    expect(page.by_id("history-empty")).to_be_visible()
    expect(page.by_id("history-more")).to_be_hidden()
    expect(page.by_id("bot-actions")).to_be_hidden()
    check_overflow(page, "a bot with no ladder rating")


@pytest.mark.parametrize("device", list(DEVICES))
def test_an_owner_ranks_a_bot_sees_its_failures_and_takes_it_off_the_table(
    open_page, server: ServerProcess, device: str
) -> None:
    page, watch = opened(open_page, server, DEVICES[device])
    fixtures = Fixtures(page)
    page.open_home()
    verdict = page.upload(MINIMAL_BOT, name=f"Bot leo hạng {device}")
    expect(verdict).to_have_attribute("data-build", "ok")
    mine = page.page.locator("#my-bots > li").first
    bot = mine.get_attribute("data-bot-id")
    assert bot
    expect(mine).to_have_attribute("data-ranked", "false")

    expect(page.page.locator('#ladder > li[data-bot-id="strong"]')).to_have_count(1)  # the table is in
    others = page.page.locator("#ladder > li").count()  # the built-ins, and bots ranked before
    mine.get_by_test_id("rank-bot").click()
    expect(page.page.locator(f'#ladder > li[data-bot-id="{bot}"]')).to_contain_text(f"Bot leo hạng {device}")
    expect(page.page.locator("#ladder > li")).to_have_count(others + 1)
    mine = page.page.locator(f'#my-bots > li[data-bot-id="{bot}"]')
    expect(mine).to_have_attribute("data-ranked", "true")
    expect(mine.get_by_test_id("rank-bot")).to_have_count(0)
    expect(mine).to_contain_text("đang xếp hạng")
    expect(mine).to_contain_text("Công khai")  # ranking made it public

    # A ranked bot stays public: the server's refusal is shown in words.
    watch.allow("a ranked bot cannot be made private (409)", CONFLICT, f"{server.base}/arena/api/bots/{bot}")
    mine.get_by_test_id("toggle-public").click()
    expect(page.by_id("bots-error")).to_be_visible()
    expect(page.by_id("bots-error")).not_to_have_text("")

    # Its page, with the rating of the real table (suspended, as after three failures).
    row = real_row(page, bot)
    assert row is not None

    def rating(asked: str) -> tuple[int, Any]:
        if asked in fixtures.left:
            return 404, {"error": "not_ranked", "message": "Bot không có trên bảng xếp hạng."}
        return 200, {"row": {**row, "suspended": True}, "ratings": ratings(1)}

    fixtures.rating = rating
    fixtures.pages = {"": {"matches": [a_match(3, "loss", reason="BOT_FAILED",
                                                  failure={"code": "TIMEOUT", "detail": "no reply in 2 s"},
                                                  stderr="thinking...\n")], "next": None}}
    fixtures.figures = {**FIGURES, "failures": {"TIMEOUT": 3}}
    mine.locator("a.bot-name").click()
    expect(page.page).to_have_url(re.compile(rf"\?bot={bot}$"))
    expect(page.by_id("view-bot")).to_have_attribute("data-owner", "true")
    expect(page.by_id("bot-name")).to_have_text(f"Bot leo hạng {device}")
    expect(page.by_id("rating-note")).to_contain_text("Mới có một điểm")
    expect(page.page.get_by_test_id("rating-svg").locator("circle")).to_have_count(1)
    expect(page.by_id("bot-suspended")).to_be_visible()
    expect(page.page.get_by_test_id("resume-bot")).to_be_visible()
    expect(page.by_id("bot-failures-group")).to_be_visible()
    expect(page.by_id("bot-failures")).to_contain_text("TIMEOUT: 3 lần")
    match = page.page.locator("#history > li").first
    expect(match).to_contain_text("TIMEOUT no reply in 2 s")
    match.locator("summary").click()
    expect(match.locator("pre")).to_have_text("thinking...\n")
    check_overflow(page, f"{device}: the owner's bot page")
    audit(page, f"{device}: the owner's bot page")
    page.shot(f"{device}-bot-page-owner")

    watch.allow("a bot off the table has no rating (404)", NOT_FOUND, f"{server.base}/arena/api/ladder/bots/{bot}")
    page.page.get_by_test_id("unrank-bot").click()
    page.page.get_by_test_id("confirm-yes").click()
    expect(page.by_id("view-bot")).to_have_attribute("data-ranked", "false")
    expect(page.by_id("bot-actions")).to_be_hidden()
    expect(page.by_id("bot-suspended")).to_be_hidden()
    expect(page.by_id("rating-note")).to_have_text("Bot chưa có điểm: nó chưa vào bảng xếp hạng.")
    assert real_row(page, bot) is None

    page.by_id("bot-back").click()
    expect(page.page.locator("#ladder > li")).to_have_count(others)
    expect(page.page.locator(f'#my-bots > li[data-bot-id="{bot}"]').get_by_test_id("rank-bot")).to_be_visible()


def test_a_live_ladder_match_has_a_badge_in_the_lobby(open_page, server: ServerProcess) -> None:
    page = arena(open_page, server, PHONE)
    seat = {"side": "P1", "kind": "builtin", "name": "strong", "ready": True}
    live = [
        {"code": "LADDR1", "phase": "PLAYING", "seats": [seat, {**seat, "side": "P2", "name": "random"}],
         "turn": 12, "turnLimit": 200, "queuePlace": 0, "ladder": True},
        {"code": "ROOM22", "phase": "PLAYING", "seats": [seat, {**seat, "side": "P2", "name": "tactical"}],
         "turn": 3, "turnLimit": 200, "queuePlace": 0, "ladder": False},
    ]
    page.page.route(re.compile(r".*/arena/api/rooms$"), lambda route: answer(route, {"waiting": [], "live": live}))
    page.open_home()
    expect(page.page.locator("#live-rooms > li")).to_have_count(2)
    ladder = page.page.locator('#live-rooms > li[data-code="LADDR1"]')
    expect(ladder).to_have_attribute("data-ladder", "true")
    expect(ladder).to_contain_text("Xếp hạng")
    expect(page.page.locator('#live-rooms > li[data-code="ROOM22"]')).not_to_contain_text("Xếp hạng")
    check_overflow(page, "the lobby with a ladder match")


def test_a_match_of_the_history_replays_on_the_board(open_page, server: ServerProcess, tmp_path: Path) -> None:
    text = replay_file(tmp_path).read_text()
    page = arena(open_page, server, PHONE)
    fixtures = Fixtures(page)
    fixtures.pages = {"": {"matches": [a_match(7)], "next": None}}
    row = real_row(page, "tactical")
    fixtures.rating = lambda bot: (200, {"row": row, "ratings": []})
    page.page.route(
        re.compile(r".*/arena/api/matches/m0007/replay$"),
        lambda route: route.fulfill(status=200, content_type="application/x-ndjson", body=text),
    )
    page.open("?bot=tactical")
    page.page.locator("#history > li").first.get_by_test_id("history-replay").click()
    expect(page.page).to_have_url(re.compile(r"\?match=m0007$"))
    expect(page.by_id("view-room")).to_be_visible()
    expect(page.by_id("replay-file-note")).to_have_text("Bản ghi của một trận đã xong.")
    expect(page.by_id("room-title-text")).to_have_text("Xem lại trận")
    expect(page.by_id("replay-position")).to_have_text(re.compile(r"^\d+/\d+$"))
    expect(page.page.locator("#board .piece").first).to_be_visible()
    check_overflow(page, "a match's replay from a bot's history")
    page.page.go_back()
    expect(page.by_id("view-bot")).to_be_visible()


SLOW_BOT = """\
import json
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    time.sleep(0.4)  # slow on purpose: its ladder match stays live long enough to watch
    reply = {"type": "ACTION", "sequence": request["sequence"], "action": request["legalActions"][0]}
    print(json.dumps(reply, separators=(",", ":")), flush=True)
"""


def test_a_ladder_rooms_owner_has_no_surrender_button(
    open_page, server: ServerProcess, tmp_path: Path
) -> None:
    """Its bot's owner sees its side in a live ladder room (`data-mine`) and still no
    surrender button: nobody surrenders a ladder match."""
    page = arena(open_page, server, PHONE)
    page.open_home()
    slow = tmp_path / "slow_bot.py"
    slow.write_text(SLOW_BOT)
    expect(page.upload(slow, name="Bot chậm leo hạng")).to_have_attribute("data-build", "ok")
    bot = page.page.locator("#my-bots > li").first.get_attribute("data-bot-id")
    key = {"X-Owner-Key": page.owner_key() or ""}
    with api_client(server) as http:
        assert http.put(f"{LADDER_API}/bots/{bot}", headers=key).status_code == 200
        try:
            code = None
            deadline = time.monotonic() + LADDER_WAIT_S
            while code is None:
                assert time.monotonic() < deadline, "the slow bot played no ladder match"
                for room in http.get("/arena/api/rooms").json()["live"]:
                    names = {seat["name"] for seat in room["seats"] if seat}
                    if room["ladder"] and "Bot chậm leo hạng" in names and room["phase"] == "PLAYING":
                        code = room["code"]
                time.sleep(0.25)
            page.open(f"?room={code}")
            view = page.by_id("view-room")
            expect(view).to_have_attribute("data-phase", "PLAYING")
            expect(view).to_have_attribute("data-mine", re.compile(r"^P[12]$"))
            expect(page.by_id("surrender-button")).to_be_hidden()
            expect(page.by_id("surrender-other")).to_be_hidden()
            assert view.get_attribute("data-phase") == "PLAYING"  # still live while checked
            check_overflow(page, "the owner in a ladder room")
        finally:
            http.delete(f"{LADDER_API}/bots/{bot}", headers=key)


def test_ranking_a_fourth_bot_says_why_in_vietnamese(open_page, server: ServerProcess) -> None:
    page, watch = opened(open_page, server, PHONE)
    page.open_home()
    for n in range(4):
        expect(page.upload(MINIMAL_BOT, name=f"Bot số {n + 1}")).to_have_attribute("data-build", "ok")
    key = {"X-Owner-Key": page.owner_key() or ""}
    bots = page.page.locator("#my-bots > li")
    expect(bots).to_have_count(4)
    ids = [item.get_attribute("data-bot-id") for item in bots.all()]
    try:
        for bot in ids[:3]:
            page.page.locator(f'#my-bots > li[data-bot-id="{bot}"]').get_by_test_id("rank-bot").click()
            expect(page.page.locator(f'#my-bots > li[data-bot-id="{bot}"]')).to_have_attribute("data-ranked", "true")
        fourth = page.page.locator(f'#my-bots > li[data-bot-id="{ids[3]}"]')
        watch.allow("a fourth ranked bot is refused (409)", CONFLICT, f"{server.base}/arena/api/ladder/bots/{ids[3]}")
        fourth.get_by_test_id("rank-bot").click()
        expect(page.by_id("bots-error")).to_be_visible()
        expect(page.by_id("bots-error")).to_have_text(
            "Bạn đã xếp hạng đủ số bot cho phép. Bỏ xếp hạng một bot rồi thử lại nhé."
        )
        expect(fourth).to_have_attribute("data-ranked", "false")
        expect(page.page.locator(f'#ladder > li[data-bot-id="{ids[3]}"]')).to_have_count(0)
        check_overflow(page, "the owner told a fourth ranked bot is too many")
        page.shot("phone-too-many-ranked")
    finally:
        with api_client(server) as http:
            for bot in ids[:3]:
                http.delete(f"{LADDER_API}/bots/{bot}", headers=key)
