"""Helpers of the browser tests: what a page may print, tokens, and the page's hooks.

The fixtures that use them live in conftest.py; test modules import from here.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import ConsoleMessage, Locator, Page, Request, expect

from noitu.adapters.noitu.token_signer import HmacTokenSigner
from noitu.application.noitu.session import GameMessage, Ticket
from support.dictionaries import LITTLE, write
from support.process import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
SECRET = "e2e-browser-tests-secret-0123456789abcdef"
GAME_PATH = "/games/noitu/"
GAMES_JS = "https://telegram.org/js/games.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
NO_SESSION_TEXT = "Ván chơi không còn nữa. Hãy bắt đầu ván mới."

# Reports every CSP violation on the console too, with a prefix of our own. Chromium
# already logs each one as a console error; this is a second, independent witness.
# Init scripts run through DevTools, so the page's CSP does not block them.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", function (event) {
  console.error("[csp-violation] " + event.violatedDirective + " blocked " +
    (event.blockedURI || "inline") + " at " + (event.sourceFile || "?") + ":" + event.lineNumber);
}, true);
"""


def server_env(directory: Path, **extra: str) -> dict[str, str]:
    """Local play (no bot token) with a fixed secret and the little dictionary."""
    return {
        "NOITU_DICTIONARY": write(directory, LITTLE),
        "NOITU_DATA_DIR": str(directory / "arena-data"),
        "NOITU_GAME_SECRET": SECRET,
        "NOITU_LOG_FORMAT": "json",
        "NOITU_STORE": "memory",
        "TELEGRAM_BOT_TOKEN": "",
        "GAME_BASE_URL": "",
        "MODULES": "",
        # Every page of a test module comes from 127.0.0.1, each browser context a new
        # owner: the per-address limits (B10) would refuse a module's steady stream.
        "NOITU_ARENA_KEYS_PER_MINUTE": "1000",
        "NOITU_ARENA_UPLOADS_PER_MINUTE": "1000",
        "NOITU_ARENA_ROOMS_PER_MINUTE": "1000",
        **extra,
    }


# ---- what a page may print ---------------------------------------------------------------


@dataclass
class Allowance:
    """One kind of console error a test expects, matched precisely."""

    why: str
    text: re.Pattern[str]
    url: str


TELEGRAM_JS_FAILURE = Allowance(
    "games.js cannot load without network (the tests abort it on purpose)",
    re.compile(r"Failed to load resource: net::ERR_[A-Z_]+"),
    GAMES_JS,
)


@dataclass
class PageWatch:
    """Everything a page said that it should not have, and every request it made."""

    allowances: list[Allowance] = field(default_factory=lambda: [TELEGRAM_JS_FAILURE])
    problems: list[str] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)

    def allow(self, why: str, text: str, url: str) -> None:
        """Expect console errors whose text fully matches the regex `text`, at exactly `url`."""
        self.allowances.append(Allowance(why, re.compile(text), url))

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type not in ("error", "warning", "assert"):
            return
        url = (message.location or {}).get("url", "")
        for allowance in self.allowances:
            if url == allowance.url and allowance.text.fullmatch(message.text):
                return
        self.problems.append(f"console {message.type}: {message.text!r} at {url or '?'}")

    def on_page_error(self, error: Any) -> None:
        self.problems.append(f"uncaught error: {error}")

    def on_request_failed(self, request: Request) -> None:
        if request.url == GAMES_JS:
            return
        self.problems.append(f"request failed: {request.method} {request.url}: {request.failure}")

    def on_request(self, request: Request) -> None:
        self.requests.append(request)

    def api_calls(self, route: str) -> list[Request]:
        return [r for r in self.requests if r.url.endswith(f"{GAME_PATH}api/{route}")]


@dataclass
class OpenPage:
    page: Page
    watch: PageWatch


# ---- tokens ---------------------------------------------------------------------------------

_ids = itertools.count(101)


@dataclass
class Tokens:
    """Signs game links the way the bot does, with the servers' NOITU_GAME_SECRET."""

    signer: HmacTokenSigner

    def new(self, name: str = "Lan", ttl_s: int = 3600) -> str:
        """A new player on a new game message, valid for an hour (`ttl_s`; a negative
        one gives a link that expired that long ago).

        A new user each time keeps every test under the start limit (10 per user per
        minute); a new message keeps a start from replacing another test's session.
        """
        user = next(_ids)
        ticket = Ticket(
            user_id=user,
            first_name=name,
            message=GameMessage(chat_id=-1000 - user, message_id=user),
            expires_at=int(time.time()) + ttl_s,
        )
        return self.signer.issue(ticket)


# ---- the accessibility audit ------------------------------------------------------------------

# axe-core, installed next to the browser tests by `npm ci` in tests/e2e (scripts/test
# does it). Only the tests load it into the page; the game never serves it.
AXE_JS = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page: Page) -> list[str]:
    """The axe-core violations of the page as it is now (WCAG 2.x A and AA rules and
    axe's best practices), one line each: rule, impact, and the offending elements.

    The script is evaluated through DevTools, which the page's CSP does not govern
    (an injected <script> tag would be inline, and the CSP refuses inline scripts)."""
    if not AXE_JS.exists():
        raise RuntimeError(f"{AXE_JS} is missing: run `npm ci` in tests/e2e (scripts/test does)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text(encoding="utf-8") + "\n;undefined")
    results = page.evaluate(
        """() => window.axe.run(document, {
             resultTypes: ["violations"],
             runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }
           })"""
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -- "
        + "; ".join(f"{' '.join(n['target'])}: {n.get('failureSummary', '')}" for n in v["nodes"])
        for v in results["violations"]
    ]


# ---- the page, as a player sees it ------------------------------------------------------------


class Game:
    """The page's stable hooks (listed in the top comment of assets/app.js)."""

    # The server takes at most one move per 300 ms per session (a faster one is a 429,
    # which Chromium logs as a failed resource), so a test types no faster than that.
    MOVE_SPACING_S = 0.35

    def __init__(self, page: Page, base: str) -> None:
        self.page = page
        self.base = base
        self._last_send = 0.0

    def url(self, token: str | None = None, fragment: str = "") -> str:
        query = f"?t={token}" if token else ""
        return f"{self.base}{GAME_PATH}{query}{fragment}"

    def open(self, token: str | None = None, fragment: str = "") -> None:
        self.page.goto(self.url(token, fragment))

    def by_id(self, name: str) -> Locator:
        return self.page.locator(f"#{name}")

    def screen(self, name: str) -> Locator:
        return self.by_id(f"screen-{name}")

    def expect_screen(self, name: str, timeout: float = 10_000) -> None:
        """`name` is the one visible screen."""
        expect(self.screen(name)).to_be_visible(timeout=timeout)
        for other in ("notoken", "start", "play", "end"):
            if other != name:
                expect(self.screen(other)).to_be_hidden(timeout=1_000)

    def start(self, difficulty: str | None = None) -> None:
        self.expect_screen("start")
        if difficulty:
            self.by_id(f"difficulty-{difficulty}").check()
        self.by_id("start-button").click()
        self.expect_screen("play")
        expect(self.by_id("bot-word")).to_contain_text("mở đầu")
        expect(self.by_id("current-syllable")).to_have_text("đầu")

    def send(self, word: str) -> None:
        word_input = self.by_id("word-input")
        expect(word_input).to_be_enabled()
        expect(self.by_id("send-button")).to_be_enabled()
        word_input.fill(word)
        time.sleep(max(0.0, self.MOVE_SPACING_S - (time.monotonic() - self._last_send)))
        word_input.press("Enter")
        self._last_send = time.monotonic()

    def expect_bot(self, word: str) -> None:
        """The bot's word shows after the page's pause of about 0.6-0.9 s."""
        expect(self.by_id("bot-word")).to_contain_text(word, timeout=5_000)
        expect(self.by_id("send-button")).to_be_enabled()

    def chain_words(self, which: str = "chain") -> list[str]:
        """The words of #chain (or #end-chain), newest first."""
        return self.page.locator(f"#{which} > li").evaluate_all(
            "(items) => items.map((li) => li.getAttribute('data-word'))"
        )

    def suggestions(self) -> list[str]:
        return self.page.locator("#suggestions li").evaluate_all(
            "(items) => items.map((li) => li.getAttribute('data-word'))"
        )

    def storage(self, key: str) -> str | None:
        return self.page.evaluate("(key) => window.sessionStorage.getItem(key)", key)

    def arm_give_up(self) -> None:
        """The first of the two taps: the button asks to be sure (and reverts in 3 s)."""
        button = self.by_id("give-up-button")
        expect(button).to_be_enabled()
        button.click()
        expect(button).to_have_attribute("data-armed", "true")

    def give_up_twice(self) -> None:
        button = self.by_id("give-up-button")
        expect(button).to_be_enabled()
        button.click()
        expect(button).to_have_attribute("data-armed", "true")
        button.click()

    def expect_end(self, status: str, reason: str, timeout: float = 10_000) -> None:
        self.expect_screen("end", timeout=timeout)
        expect(self.screen("end")).to_have_attribute("data-status", status)
        expect(self.by_id("end-reason")).to_have_attribute("data-reason", reason)

    def number(self, name: str) -> int:
        return int(self.by_id(name).inner_text().strip())


# ---- group rooms (spec B10), as people on phones see them --------------------------------

_room_users = itertools.count(5001)
_cards = itertools.count(1)


def room_tokens(tokens: Tokens, names: list[str]) -> list[str]:
    """Room links of one new card, one per person (the claim r: 1). Each card is in a
    chat of its own: a chat holds at most 3 live rooms."""
    card = next(_cards)
    return [
        tokens.signer.issue(Ticket(next(_room_users), name, GameMessage(chat_id=-900 - card, message_id=card),
                                   int(time.time()) + 3600, room=True))
        for name in names
    ]


def join_room(open_page: Callable[..., OpenPage], server: ServerProcess, token: str) -> Game:
    """A new phone opening a room link: the page in room mode."""
    opened: OpenPage = open_page()
    game = Game(opened.page, server.base)
    game.open(token)
    game.expect_screen("room")
    return game


def send_room_word(game: Game, word: str) -> None:
    """Play a word the room takes: the input empties."""
    game.by_id("room-word-input").fill(word)
    game.by_id("room-send").click()
    expect(game.by_id("room-word-input")).to_have_value("")


def audit(game: Game, where: str) -> None:
    """axe-core on the page once its last change settled; `where` names the screen."""
    game.page.wait_for_timeout(300)
    assert axe_violations(game.page) == [], where
