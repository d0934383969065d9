"""The arena page "Vào trận" (/arena/) as a browser test drives it: its stable hooks
(listed in the top comment of assets/arena/app.js) behind a few steps a person takes."""

from __future__ import annotations

import os
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "support" / "arena_bots"
MINIMAL_BOT = BOTS / "a5_minimal.py"
BROKEN_BOT = BOTS / "broken.cpp"
ARENA_PATH = "/arena/"
SHOTS = Path(os.environ.get("ARENA_SHOTS", "/tmp/arena-shots"))
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1280, "height": 800}
#: A match between two instant bots ends in seconds; a slow machine gets room.
MATCH_S = 120


class ArenaPage:
    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base

    def by_id(self, name: str) -> Locator:
        return self.page.locator(f"#{name}")

    def open(self, query: str = "") -> None:
        self.page.goto(f"{self.base}{ARENA_PATH}{query}")

    def open_home(self) -> None:
        self.open()
        expect(self.by_id("view-home")).to_be_visible()
        expect(self.by_id("seat-select")).to_have_value("person")

    def shot(self, name: str) -> None:
        """A screenshot of the whole page into SHOTS (outside the repository)."""
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.wait_for_timeout(400)  # let the move's animation finish
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    # ---- bots ------------------------------------------------------------------------------

    def upload(self, path: Path, name: str = "") -> Locator:
        """Uploads a bot file and waits for the verdict; returns #upload-verdict."""
        self.by_id("upload-file").set_input_files(str(path))
        if name:
            self.by_id("upload-name").fill(name)
        self.by_id("upload-button").click()
        verdict = self.by_id("upload-verdict")
        expect(verdict).to_be_visible(timeout=90_000)
        return verdict

    def owner_key(self) -> str | None:
        return self.page.evaluate("() => window.localStorage.getItem('noitu.arena.ownerKey')")

    # ---- rooms -----------------------------------------------------------------------------

    def create_room(self, seat: str, opponent: str, name: str = "") -> str:
        """Creates a room from the lobby; returns its code once the room shows."""
        self.by_id("seat-select").select_option(seat)
        if name:
            self.by_id("person-name").fill(name)
        self.by_id("opponent-select").select_option(opponent)
        self.by_id("create-button").click()
        expect(self.by_id("view-room")).to_be_visible()
        expect(self.by_id("room-code")).to_have_text(re.compile(r"^[0-9A-Z]{6}$"))
        code = self.by_id("room-code").inner_text()
        expect(self.page).to_have_url(re.compile(rf"\?room={code}$"))
        return code

    def phase(self) -> str:
        return self.by_id("view-room").get_attribute("data-phase") or ""

    def expect_phase(self, phase: str, timeout: float = 10_000) -> None:
        expect(self.by_id("view-room")).to_have_attribute("data-phase", phase, timeout=timeout)

    def cell(self, row: int, col: int) -> Locator:
        return self.page.locator(f'#board [data-testid="cell-{row}-{col}"]')

    def display_order(self) -> list[tuple[int, int]]:
        """The server squares of the board's cells, top-left first, as shown."""
        return [
            tuple(pair)
            for pair in self.page.locator("#board .cell").evaluate_all(
                "(cells) => cells.map((c) => [Number(c.dataset.row), Number(c.dataset.col)])"
            )
        ]

    def turn(self) -> int:
        text = self.by_id("turn-counter").inner_text()
        found = re.match(r"Lượt (\d+)/200", text)
        assert found, text
        return int(found.group(1))

    def place_randomly_and_ready(self) -> None:
        expect(self.by_id("placement-box")).to_be_visible(timeout=20_000)
        expect(self.page.locator("#tray .tray-piece")).to_have_count(18)
        self.by_id("random-button").click()
        expect(self.page.locator("#tray .tray-piece")).to_have_count(0)
        expect(self.page.locator("#board .piece.own")).to_have_count(18)
        self.by_id("ready-button").click()
        expect(self.by_id("placement-box")).to_be_hidden()

    def wait_my_turn(self, timeout: float = 20_000) -> None:
        expect(self.by_id("play-box")).to_be_visible(timeout=timeout)
        expect(self.page.locator("#board .cell.selectable").first).to_be_visible()

    def move_by_tap(self) -> None:
        """Taps the first piece that can move, then its first highlighted square."""
        self.wait_my_turn()
        before = self.turn()
        self.page.locator("#board .cell.selectable").first.click()
        target = self.page.locator("#board .cell.target").first
        expect(target).to_be_visible()
        target.click()
        self._expect_turn_after(before)

    def move_by_keyboard(self) -> None:
        """Walks the focus cursor with the arrow keys to a piece that can move, takes it
        with Enter, walks to one of its squares and moves there with Space."""
        self.wait_my_turn()
        before = self.turn()
        self.page.locator("#board .cell[tabindex='0']").focus()
        self._walk_to("#board .cell.selectable")
        self.page.keyboard.press("Enter")
        expect(self.page.locator("#board .cell.selected")).to_have_count(1)
        expect(self.page.locator("#board .cell.target").first).to_be_visible()
        self._walk_to("#board .cell.target")
        self.page.keyboard.press(" ")
        self._expect_turn_after(before)

    def _expect_turn_after(self, before: int) -> None:
        """The move was taken: the turn counter went past `before` (the bot may have
        answered already, so the person's controls may show again at once)."""
        expect(self.by_id("turn-counter")).not_to_have_text(f"Lượt {before}/200")
        assert self.turn() > before

    def _walk_to(self, selector: str) -> None:
        cells = self.page.locator("#board .cell")
        at = cells.evaluate_all("(cells) => cells.findIndex((c) => c === document.activeElement)")
        goal = cells.evaluate_all(
            "(cells, selector) => cells.findIndex((c) => c.matches(selector))", selector
        )
        assert at >= 0 and goal >= 0
        rows, cols = goal // 9 - at // 9, goal % 9 - at % 9
        for _ in range(abs(rows)):
            self.page.keyboard.press("ArrowDown" if rows > 0 else "ArrowUp")
        for _ in range(abs(cols)):
            self.page.keyboard.press("ArrowRight" if cols > 0 else "ArrowLeft")
        expect(cells.nth(goal)).to_be_focused()

    def drawn_pieces(self) -> dict[str, int]:
        """How many pieces of each side the board draws."""
        return self.page.evaluate(
            """() => ({
              P1: document.querySelectorAll('#board .piece.side-P1').length,
              P2: document.querySelectorAll('#board .piece.side-P2').length
            })"""
        )

    def expect_counters_follow_the_replay(self) -> None:
        """Everything beside the board says what the replay's frame on the board says
        (spec B6): the turn, the pieces left (status line and seat bars), whose turn it
        is (P1 moves on even turns) and the last move."""
        index, last = (int(n) for n in self.by_id("replay-position").inner_text().split("/"))
        drawn = self.drawn_pieces()
        expect(self.by_id("turn-counter")).to_have_text(re.compile(rf"^Lượt {index}/\d+$"))
        expect(self.by_id("pieces-left")).to_have_text(f"Quân còn: P1 {drawn['P1']} · P2 {drawn['P2']}")
        for side in ("P1", "P2"):
            bar = self.page.locator(f'.seat-bar[data-side="{side}"] .seat-count')
            expect(bar).to_have_text(str(drawn[side]))  # " quân" comes from the style sheet
        to_move = self.page.locator(".seat-bar.to-move")
        if index < last:
            expect(to_move).to_have_attribute("data-side", "P1" if index % 2 == 0 else "P2")
        else:
            expect(to_move).to_have_count(0)
        if index == 0:
            expect(self.by_id("last-move")).to_have_text("")
        else:
            mover = "P1" if (index - 1) % 2 == 0 else "P2"
            expect(self.by_id("last-move")).to_have_text(re.compile(rf"^Lượt {index}: {mover} "))

    def surrender(self) -> None:
        self.by_id("surrender-button").click()
        self.page.get_by_test_id("confirm-yes").click()
        self.expect_phase("FINISHED")
        expect(self.by_id("result-box")).to_have_attribute("data-reason", "SURRENDER")
