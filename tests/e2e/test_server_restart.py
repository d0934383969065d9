"""Sessions live in the server's memory: after a restart the page starts over.

Each restart is a new `noitu serve` on the same port with the same NOITU_GAME_SECRET,
so the page's address and its token still work; only the session is gone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_harness import GAME_PATH, NO_SESSION_TEXT, Game, OpenPage, Tokens, server_env
from playwright.sync_api import expect

from support.process import ServerProcess, free_port

NOT_FOUND = r"Failed to load resource: the server responded with a status of 404 \(Not Found\)"


class Restartable:
    """One address, a new server process behind it on each restart."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.env = server_env(directory, NOITU_PORT=str(free_port()))
        self.generation = 0
        self.process = self._launch()

    def _launch(self) -> ServerProcess:
        self.generation += 1
        log = self.directory / f"server-{self.generation}.log"
        return ServerProcess(self.env, log).start()

    @property
    def base(self) -> str:
        return self.process.base

    def restart(self) -> None:
        self.process.stop()
        self.process = self._launch()

    def stop(self) -> None:
        self.process.stop()


@pytest.fixture
def restartable(tmp_path: Path) -> Iterator[Restartable]:
    servers = Restartable(tmp_path)
    yield servers
    servers.stop()


def test_after_a_restart_the_page_returns_to_the_start_screen(
    restartable: Restartable, page_and_watch: OpenPage, tokens: Tokens
) -> None:
    page, watch = page_and_watch.page, page_and_watch.watch
    game = Game(page, restartable.base)
    api = f"{restartable.base}{GAME_PATH}api/"
    # The server's 404 answers (no_session) are expected here, and only for these routes.
    watch.allow("no_session after the restart", NOT_FOUND, api + "move")
    watch.allow("no_session after the restart", NOT_FOUND, api + "state")
    session_message = game.by_id("session-message")

    game.open(tokens.new())
    game.start()
    first = game.storage("noitu.session")

    # A move after a restart: the server no longer knows the session.
    restartable.restart()
    game.send("đầu mối")
    game.expect_screen("start")
    expect(session_message).to_be_visible()
    expect(session_message).to_have_text(NO_SESSION_TEXT)
    assert game.storage("noitu.session") is None
    # The focus was in the hidden word input: it moves to the start button (which the
    # message describes), not to <body>.
    expect(game.by_id("start-button")).to_be_focused()
    expect(game.by_id("start-button")).to_have_accessible_description(NO_SESSION_TEXT)

    # The same token starts a new game on the new server.
    game.by_id("start-button").click()
    game.expect_screen("play")
    expect(session_message).to_be_hidden()
    second = game.storage("noitu.session")
    assert second and second != first

    # A reload after a restart: resuming finds no session either.
    restartable.restart()
    page.reload()
    game.expect_screen("start")
    expect(session_message).to_have_text(NO_SESSION_TEXT)
    expect(game.by_id("start-button")).to_be_focused()
    assert game.storage("noitu.session") is None
    assert game.storage("noitu.token"), "the token stays for the next start"
    game.start()
