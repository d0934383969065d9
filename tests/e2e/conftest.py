"""Browser tests: the real page, served by a real `noitu serve` process, in Chromium.

Run them on their own (sync Playwright and pytest-asyncio do not share a process):

    .venv/bin/python -m pytest -q -p no:asyncio tests/e2e

What every test gets:

- one headless Chromium for the whole run (Debian's /usr/bin/chromium; never
  `playwright install`), and a fresh browser context per page;
- a watch on the page's console, uncaught errors, failed requests and Content Security
  Policy violations: the test fails at teardown if anything shows up besides the
  expected failure to load Telegram's games.js (the tests abort every request to
  telegram.org, so the page behaves the same with or without network);
- tokens signed with the servers' NOITU_GAME_SECRET, for a new user and game message
  each time (see e2e_harness.Tokens).

A test module gets one server (`server`): the modules with the default settings share
one; a module that needs other settings overrides the `server_settings` fixture and
gets its own. On a failure the pages' screenshots and the server's log
go to test-artifacts/failures/.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_harness import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    CSP_LISTENER,
    PHONE,
    SECRET,
    Game,
    OpenPage,
    PageWatch,
    Tokens,
    server_env,
)
from playwright.sync_api import Browser, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from noitu.adapters.noitu.token_signer import HmacTokenSigner
from support.process import ServerProcess


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    # This run has no pytest-asyncio (`-p no:asyncio`), so pyproject's asyncio keys
    # would each warn "Unknown config option"; they belong to the other run.
    if not pluginmanager.has_plugin("asyncio"):
        parser.addini("asyncio_mode", "pytest-asyncio's setting (unused here)")
        parser.addini("asyncio_default_fixture_loop_scope", "pytest-asyncio's setting (unused here)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


def _call_failed(item: Any) -> bool:
    report = getattr(item, "report_call", None)
    return report is None or report.failed


def _artifact_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def save_server_log(server: ServerProcess, name: str) -> None:
    target = ARTIFACTS / "failures" / f"{_artifact_name(name)}.server.log"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(server.log_path, target)


# ---- the browser ---------------------------------------------------------------------


@pytest.fixture(scope="session")
def playwright_driver() -> Iterator[Playwright]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (never `playwright install`)")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright_driver: Playwright) -> Iterator[Browser]:
    browser = playwright_driver.chromium.launch(
        executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
    )
    yield browser
    browser.close()


def _abort_telegram(route: Any) -> None:
    route.abort("namenotresolved")


@pytest.fixture
def open_page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Callable[..., OpenPage]]:
    """A factory of watched pages, each in a fresh context (so an empty sessionStorage).

    At teardown every page must have stayed clean (see PageWatch).
    """
    opened: list[tuple[Any, OpenPage]] = []

    def factory(viewport: dict[str, int] | None = None, **options: Any) -> OpenPage:
        """`options` go to the browser context (e.g. color_scheme, device_scale_factor)."""
        context = browser.new_context(viewport=viewport or PHONE, locale="vi-VN", **options)
        context.set_default_timeout(10_000)
        context.route("https://telegram.org/**", _abort_telegram)
        context.add_init_script(CSP_LISTENER)
        page = context.new_page()
        watch = PageWatch()
        page.on("console", watch.on_console)
        page.on("pageerror", watch.on_page_error)
        page.on("requestfailed", watch.on_request_failed)
        page.on("request", watch.on_request)
        opened.append((context, OpenPage(page, watch)))
        return opened[-1][1]

    yield factory

    failed = _call_failed(request.node)
    problems: list[str] = []
    for index, (context, one) in enumerate(opened):
        if failed:
            target = ARTIFACTS / "failures" / f"{_artifact_name(request.node.name)}-{index}.png"
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                one.page.screenshot(path=str(target), full_page=True)
            except PlaywrightError:
                pass
        problems += one.watch.problems
        one.page.remove_listener("requestfailed", one.watch.on_request_failed)
        context.close()
    if problems and not failed:
        pytest.fail("the page reported problems:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture
def page_and_watch(open_page: Callable[..., OpenPage]) -> OpenPage:
    return open_page()


# ---- servers and tokens -------------------------------------------------------------------


@pytest.fixture(scope="module")
def server_settings() -> dict[str, str]:
    """Extra settings for the module's server; a test module may override it."""
    return {}


def _started(tmp_path_factory: pytest.TempPathFactory, settings: dict[str, str]) -> ServerProcess:
    directory = tmp_path_factory.mktemp("server")
    return ServerProcess(server_env(directory, **settings), directory / "server.log").start()


@pytest.fixture(scope="session")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server of every module that keeps the default settings, one per pytest
    process: their tests play new users on new game messages (`Tokens.new`), their own
    chats, or a local-play link no other module opens, so they share nothing but the
    process, and each such module saves a start of several seconds."""
    process = _started(tmp_path_factory, {})
    yield process
    process.stop()


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory,
    server_settings: dict[str, str],
    request: pytest.FixtureRequest,
) -> Iterator[ServerProcess]:
    if server_settings:
        process = _started(tmp_path_factory, server_settings)
        yield process
        process.stop()
    else:
        process = request.getfixturevalue("default_server")
        yield process
    if any(_call_failed(item) for item in request.session.items if item.module is request.module):
        save_server_log(process, request.module.__name__)


@pytest.fixture(scope="session")
def tokens() -> Tokens:
    return Tokens(HmacTokenSigner(SECRET.encode()))


@pytest.fixture
def game(page_and_watch: OpenPage, server: ServerProcess) -> Game:
    return Game(page_and_watch.page, server.base)


@pytest.fixture
def watch(page_and_watch: OpenPage) -> PageWatch:
    return page_and_watch.watch
