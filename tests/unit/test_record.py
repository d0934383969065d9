"""GetRecord (B12) with hand-written fakes: the record block of a finished game, a new
record or not, a table that fails or is late (no block after 3 s on a fake clock), and
the best word."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from noitu.adapters.noitu.local_scores import LocalScoreTable
from noitu.adapters.noitu.memory_repository import InMemorySessionRepository
from noitu.adapters.noitu.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.noitu.token_signer import HmacTokenSigner
from noitu.application.noitu.commands import PlayMoveCommand, SessionCommand, StartGameCommand
from noitu.application.noitu.errors import NoSession
from noitu.application.noitu.get_record import (
    RECORD_WAIT_S,
    BestWordView,
    GetRecord,
    RecordStatus,
    TopScoreView,
    best_word,
)
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.ports import HighScore, HighScoresUnavailable
from noitu.application.noitu.session import GameMessage, ReportState, Ticket
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.chain import Link, Side
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from noitu.domain.noitu.words import Word
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter

T = TypeVar("T")
MESSAGE = GameMessage(chat_id=1, message_id=1)


class FakeHighScores:
    """A table the test sets; `down` fails every read, `hang` never answers."""

    def __init__(self, rows: list[HighScore] | None = None) -> None:
        self.rows = rows or []
        self.down = False
        self.hang = False
        self.asked = 0

    async def table(self, user_id: int, message: GameMessage) -> list[HighScore]:
        self.asked += 1
        if self.down:
            raise HighScoresUnavailable()
        if self.hang:
            await asyncio.Event().wait()
        return list(self.rows)


class ClockTimeLimit:
    """The TimeLimit port on the fake clock: the work is cut off once the clock has
    moved `seconds` past the moment it began."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    async def within(self, seconds: float, work: Awaitable[T]) -> T:
        task = asyncio.ensure_future(work)
        ends = self.clock.now + int(seconds * 1000)
        while not task.done():
            if self.clock.now >= ends:
                task.cancel()
                raise TimeoutError()
            await asyncio.sleep(0)
        return task.result()


class World:
    def __init__(self, little, clock: FakeClock, reporter, high_scores) -> None:
        self.clock = clock
        self.background = CollectingBackground()
        sessions = Sessions(InMemorySessionRepository(), reporter, self.background, clock)
        views = SessionViews()
        self.signer = HmacTokenSigner(b"k" * 32)
        limits = SessionLimits()
        self.start = StartGame(
            little, TurnClock(), limits, sessions, views, self.signer,
            InMemoryStartLimiter(limits), clock, random.Random(1), random.Random(2),
        )
        self.move = PlayMove(sessions, views, make_opponents(BotIndex(little)), limits, random.Random(3))
        self.give_up = GiveUp(sessions, views)
        self.high_scores = high_scores
        self.record = GetRecord(sessions, high_scores, ClockTimeLimit(clock))

    def token(self, user: int = 1) -> str:
        return self.signer.issue(Ticket(user, "An", MESSAGE, self.clock.now // 1000 + 600))

    async def won_game(self, user: int = 1) -> tuple[str, int]:
        """mở đầu → đầu mối (player) → mối tình (bot) → tình yêu (player): the bot is stuck."""
        view = await self.start(StartGameCommand(self.token(user)))
        for word in ("đầu mối", "tình yêu"):
            self.clock.advance(1_000)
            view = (await self.move(PlayMoveCommand(view.session, word))).state
        assert view.status == "won"
        await self.background.settle()
        return view.session, view.score


@pytest.fixture
def table() -> FakeHighScores:
    return FakeHighScores()


@pytest.fixture
def world(little, clock: FakeClock, table: FakeHighScores) -> World:
    return World(little, clock, RecordingScoreReporter(), table)


async def test_a_game_that_beats_the_players_best_is_a_new_record(world: World) -> None:
    session, score = await world.won_game()
    world.high_scores.rows = [
        HighScore(1, 9, "Bình", score + 50),
        HighScore(2, 1, "An", score),
        HighScore(3, 8, "Chi", score - 1),
        HighScore(4, 7, "Dũng", 2),
    ]
    answer = await world.record(SessionCommand(session))
    assert answer.status is RecordStatus.READY and answer.record is not None
    record = answer.record
    assert (record.best, record.place, record.new_record) == (score, 2, True)
    assert record.top == [
        TopScoreView(1, "Bình", score + 50, False),
        TopScoreView(2, "An", score, True),
        TopScoreView(3, "Chi", score - 1, False),
    ]
    # đầu mối answered "đầu" (many words start it) after one word; tình yêu answered
    # "tình" after three: the later word earns more for the chain, so it is the best.
    assert record.best_word is not None and record.best_word.word == "tình yêu"


async def test_a_game_below_the_players_best_is_no_record(world: World, clock: FakeClock) -> None:
    _, best = await world.won_game()
    view = await world.start(StartGameCommand(world.token()))
    clock.advance(1_000)
    view = (await world.move(PlayMoveCommand(view.session, "đầu óc"))).state
    await world.background.settle()
    assert 0 < view.score < best
    world.high_scores.rows = [HighScore(1, 1, "An", best)]
    answer = await world.record(SessionCommand(view.session))
    assert answer.record is not None
    assert (answer.record.best, answer.record.place, answer.record.new_record) == (best, 1, False)


async def test_a_game_that_only_ties_the_players_best_is_no_record(world: World) -> None:
    """setGameScore with force=false keeps a tie out (BOT_SCORE_NOT_MODIFIED): the table
    then shows this game's score as the best, yet the record stood before it."""
    first, score = await world.won_game()
    again, tie = await world.won_game()
    assert tie == score
    world.high_scores.rows = [HighScore(1, 1, "An", score)]
    record = (await world.record(SessionCommand(again))).record
    assert record is not None
    assert (record.best, record.place, record.new_record) == (score, 1, False)
    # The first game set it: its own answer still says so.
    record = (await world.record(SessionCommand(first))).record
    assert record is not None and record.new_record


async def test_a_game_of_no_points_shows_the_table_but_no_record(world: World) -> None:
    view = await world.start(StartGameCommand(world.token()))
    view = await world.give_up(SessionCommand(view.session))
    assert view.score == 0 and view.score_reported == ReportState.SKIPPED.value
    world.high_scores.rows = [HighScore(1, 9, "Bình", 40)]
    answer = await world.record(SessionCommand(view.session))
    assert answer.record is not None
    assert (answer.record.best, answer.record.place, answer.record.new_record) == (0, 0, False)
    assert answer.record.best_word is None
    assert [row.name for row in answer.record.top] == ["Bình"]


async def test_no_block_while_the_game_goes_on_or_its_score_is_being_reported(little, clock) -> None:
    class HeldReporter(RecordingScoreReporter):
        def __init__(self) -> None:
            super().__init__()
            self.release = asyncio.Event()

        async def report(self, user_id, score, message):
            await self.release.wait()
            return await super().report(user_id, score, message)

    reporter = HeldReporter()
    world = World(little, clock, reporter, FakeHighScores())
    view = await world.start(StartGameCommand(world.token()))
    assert (await world.record(SessionCommand(view.session))).status is RecordStatus.PENDING
    clock.advance(1_000)
    await world.move(PlayMoveCommand(view.session, "đầu óc"))  # the bot is stuck: won
    answer = await world.record(SessionCommand(view.session))
    assert (answer.status, answer.record) == (RecordStatus.PENDING, None)
    assert world.high_scores.asked == 0
    reporter.release.set()
    await world.background.settle()
    assert (await world.record(SessionCommand(view.session))).status is RecordStatus.READY


async def test_telegram_down_gives_no_block(world: World) -> None:
    session, _ = await world.won_game()
    world.high_scores.down = True
    answer = await world.record(SessionCommand(session))
    assert (answer.status, answer.record) == (RecordStatus.UNAVAILABLE, None)


async def test_a_failed_score_report_gives_no_block(little, clock) -> None:
    world = World(little, clock, RecordingScoreReporter(ReportState.FAILED), FakeHighScores())
    session, _ = await world.won_game()
    answer = await world.record(SessionCommand(session))
    assert (answer.status, answer.record) == (RecordStatus.UNAVAILABLE, None)
    assert world.high_scores.asked == 0


async def test_a_slow_table_gives_no_block_after_3_seconds(world: World, clock: FakeClock) -> None:
    session, _ = await world.won_game()
    world.high_scores.hang = True
    asking = asyncio.ensure_future(world.record(SessionCommand(session)))
    for _ in range(20):
        await asyncio.sleep(0)
    clock.advance(int(RECORD_WAIT_S * 1000) - 1)
    for _ in range(20):
        await asyncio.sleep(0)
    assert not asking.done()  # still within the 3 s
    clock.advance(1)
    answer = await asyncio.wait_for(asking, 1)
    assert (answer.status, answer.record) == (RecordStatus.UNAVAILABLE, None)


async def test_a_finished_answer_is_kept_and_telegram_asked_once(world: World) -> None:
    session, _ = await world.won_game()
    first = await world.record(SessionCommand(session))
    again = await world.record(SessionCommand(session))
    assert first == again and world.high_scores.asked == 1


async def test_an_unknown_session_is_no_session(world: World) -> None:
    with pytest.raises(NoSession):
        await world.record(SessionCommand("f" * 32))


def link(text: str, by: Side, points: int, word_id: int = 0) -> Link:
    return Link(Word(word_id, text, 2, 1), by, points)


def test_the_best_word_is_the_players_highest_and_the_earlier_on_a_tie() -> None:
    links = [
        link("mở đầu", Side.BOT, 90),
        link("đầu tiên", Side.PLAYER, 30),
        link("tiên sinh", Side.BOT, 95),
        link("sinh viên", Side.PLAYER, 41),
        link("viên chức", Side.BOT, 20),
        link("chức năng", Side.PLAYER, 41),
    ]
    assert best_word(links) == BestWordView("sinh viên", 41)
    assert best_word(links[:1]) is None


async def test_the_local_table_gives_the_record_of_local_games(little, clock) -> None:
    local = LocalScoreTable()
    world = World(little, clock, local, local)
    first, first_score = await world.won_game()
    record = (await world.record(SessionCommand(first))).record
    assert record is not None
    assert (record.best, record.place, record.new_record) == (first_score, 1, True)
    assert record.top == [TopScoreView(1, "An", first_score, True)]
    # The same player again, no better: the table keeps the best; no new record.
    view = await world.start(StartGameCommand(world.token()))
    clock.advance(1_000)
    view = (await world.move(PlayMoveCommand(view.session, "đầu óc"))).state
    await world.background.settle()
    assert 0 < view.score < first_score
    record = (await world.record(SessionCommand(view.session))).record
    assert record is not None
    assert (record.best, record.place, record.new_record) == (first_score, 1, False)
    assert record.best_word == BestWordView("đầu óc", view.score)
    # The first game played again: a tie with the best stays out of the table.
    tie, score = await world.won_game()
    assert score == first_score
    record = (await world.record(SessionCommand(tie))).record
    assert record is not None
    assert (record.best, record.place, record.new_record) == (first_score, 1, False)


def test_the_page_waits_for_the_block_as_long_as_the_server_waits_for_the_table() -> None:
    script = (Path(__file__).parents[2] / "assets" / "js" / "recordview.js").read_text("utf-8")
    found = re.search(r"export const RECORD_WAIT_MS = (\d+);", script)
    assert found is not None
    assert int(found.group(1)) == int(RECORD_WAIT_S * 1000)
