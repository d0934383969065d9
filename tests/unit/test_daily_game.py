"""The daily game's use cases (spec B13) over the memory stores and a fake clock: one
game a player a day, resumed or shown finished on a later start, the same replies to the
same words on another instance, the day at Vietnam's midnight, the streak and the share
text."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.adapters.noitu.memory_daily import InMemoryDailyGames
from noitu.adapters.noitu.memory_repository import InMemorySessionRepository
from noitu.adapters.noitu.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.noitu.token_signer import HmacTokenSigner
from noitu.application.errors import BadRequest
from noitu.application.noitu.commands import PlayMoveCommand, SessionCommand, StartGameCommand
from noitu.application.noitu.get_daily import GetDaily, share_text
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.application.noitu.settle_expired import SettleExpired
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionView, SessionViews
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.daily import DailyPuzzle
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.dictionaries import random_words
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter

VIETNAM = ZoneInfo("Asia/Ho_Chi_Minh")
KEY = b"operator-key-".ljust(32, b"x")
DENSE = lexicon_from_lines(random_words(seed=5, syllables=24, words=520), "dense")


def at(hour: int, minute: int = 0, second: int = 0, day: int = 7) -> int:
    return int(datetime(2026, 12, day, hour, minute, second, tzinfo=VIETNAM).timestamp() * 1000)


@dataclass
class Instance:
    """One server's use cases over its own stores (memory: nothing shared)."""

    clock: FakeClock
    start: StartGame
    move: PlayMove
    give_up: GiveUp
    daily: GetDaily
    sweep: SettleExpired
    background: CollectingBackground
    signer: HmacTokenSigner

    def link(self, user: int = 1, message: int = 50, *, daily: bool = True) -> str:
        ticket = Ticket(
            user, "An", GameMessage(chat_id=-5, message_id=message),
            self.clock.now // 1000 + 6 * 3600, daily=daily,
        )
        return self.signer.issue(ticket)


def instance(lexicon: Lexicon, clock: FakeClock, seed: int = 1) -> Instance:
    background = CollectingBackground()
    games = InMemoryDailyGames()
    sessions = Sessions(
        InMemorySessionRepository(), RecordingScoreReporter(), background, clock, daily=games
    )
    views = SessionViews()
    limits = SessionLimits()
    signer = HmacTokenSigner(KEY)
    puzzle = DailyPuzzle(KEY)
    start = StartGame(
        lexicon, TurnClock(), limits, sessions, views, signer, InMemoryStartLimiter(limits),
        clock, random.Random(seed), random.Random(seed + 1), puzzle=puzzle, daily_games=games,
    )
    opponents = make_opponents(BotIndex(lexicon))
    move = PlayMove(sessions, views, opponents, limits, random.Random(seed + 2), puzzle=puzzle)
    return Instance(
        clock, start, move, GiveUp(sessions, views), GetDaily(sessions, games),
        SettleExpired(sessions, limits), background, signer,
    )


def first_legal(lexicon: Lexicon, view: SessionView) -> str | None:
    used = {link.word for link in view.chain}
    words = [w for w in lexicon.words if w.split()[0] == view.current and w not in used]
    return min(words, default=None)


async def play(server: Instance, lexicon: Lexicon, view: SessionView, moves: int) -> SessionView:
    """The player answers the first unused word in code-point order, `moves` times."""
    for _ in range(moves):
        word = first_legal(lexicon, view)
        if view.status != "playing" or word is None:
            break
        server.clock.advance(1_000)
        view = (await server.move(PlayMoveCommand(view.session, word))).state
    return view


def words_of(view: SessionView) -> list[str]:
    return [link.word for link in view.chain]


async def test_two_instances_give_the_same_game_to_the_same_words() -> None:
    ours = instance(DENSE, FakeClock(at(9)), seed=1)
    theirs = instance(DENSE, FakeClock(at(21)), seed=77)  # other draws, later that day
    for _ in range(3):  # this instance's random source moves on with other games
        solo = await ours.start(StartGameCommand(ours.link(9, 90, daily=False)))
        await play(ours, DENSE, solo, 3)
    a = await ours.start(StartGameCommand(ours.link(1), "hard"))
    b = await theirs.start(StartGameCommand(theirs.link(2), "easy"))
    assert (a.difficulty, b.difficulty) == ("medium", "medium")
    assert words_of(a) == words_of(b) and a.day == b.day == "2026-12-07"
    a = await play(ours, DENSE, a, 8)
    b = await play(theirs, DENSE, b, 8)
    assert len(a.chain) > 8
    assert words_of(a) == words_of(b)
    # A solo game of the same player opens with its own draw: only daily games share.
    assert (await ours.start(StartGameCommand(ours.link(1, 51, daily=False)))).day == ""


async def test_another_day_opens_with_another_word() -> None:
    server = instance(DENSE, FakeClock(at(9)))
    openings = []
    for day in range(1, 6):
        server.clock.now = at(9, day=day)
        openings.append((await server.start(StartGameCommand(server.link(day)))).chain[0].word)
    assert len(set(openings)) > 1


async def test_a_second_start_resumes_the_game_under_way(little: Lexicon) -> None:
    server = instance(little, FakeClock(at(10)))
    first = await server.start(StartGameCommand(server.link()))
    server.clock.advance(1_000)
    played = (await server.move(PlayMoveCommand(first.session, "đầu tiên"))).state
    server.clock.advance(1_000)
    again = await server.start(StartGameCommand(server.link()))
    assert again.session == first.session and again.status == "playing"
    assert words_of(again) == words_of(played) and again.score == played.score
    # From another chat's daily message too: one game a player a day.
    elsewhere = await server.start(StartGameCommand(server.link(message=77)))
    assert elsewhere.session == first.session


async def test_a_second_start_shows_the_finished_game_all_day(little: Lexicon) -> None:
    server = instance(little, FakeClock(at(10)))
    first = await server.start(StartGameCommand(server.link()))
    server.clock.advance(1_000)
    await server.move(PlayMoveCommand(first.session, "đầu tiên"))
    ended = await server.give_up(SessionCommand(first.session))
    await server.background.settle()
    assert ended.status == "lost" and ended.score > 0
    again = await server.start(StartGameCommand(server.link()))
    assert (again.session, again.status, again.score) == (first.session, "lost", ended.score)
    # Hours later the session store has let it go: the kept game comes back, whole.
    server.clock.advance(5 * 3600_000)
    await server.sweep()
    later = await server.start(StartGameCommand(server.link()))
    assert (later.session, later.status, later.end_reason) == (
        first.session, "lost", ended.end_reason,
    )
    assert words_of(later) == words_of(ended) and later.score == ended.score
    assert later.score_reported == "ok"  # the report was done before the store forgot it
    assert (await server.daily(SessionCommand(later.session))).status == "ready"
    # The next day, a new game.
    server.clock.now = at(10, day=8)
    tomorrow = await server.start(StartGameCommand(server.link()))
    assert tomorrow.session != first.session and tomorrow.status == "playing"
    assert tomorrow.day == "2026-12-08"


async def test_a_game_started_at_23_59_50_belongs_to_its_day(little: Lexicon) -> None:
    server = instance(little, FakeClock(at(23, 59, 50)))
    late = await server.start(StartGameCommand(server.link()))
    assert late.day == "2026-12-07"
    server.clock.advance(20_000)  # past midnight
    await server.move(PlayMoveCommand(late.session, "đầu tiên"))
    ended = await server.give_up(SessionCommand(late.session))
    answer = await server.daily(SessionCommand(ended.session))
    assert (answer.day, answer.streak) == ("2026-12-07", 1)
    # The new day has its own game, and it continues the streak.
    new_day = await server.start(StartGameCommand(server.link()))
    assert new_day.session != late.session and new_day.day == "2026-12-08"
    ended = await server.give_up(SessionCommand(new_day.session))
    assert (await server.daily(SessionCommand(ended.session))).streak == 2


async def test_the_end_screen_s_streak_and_share_text(little: Lexicon) -> None:
    server = instance(little, FakeClock(at(8, day=5)))
    streaks = []
    for day in (5, 6, 7, 9):  # the 8th is missed
        server.clock.now = at(8, day=day)
        view = await server.start(StartGameCommand(server.link()))
        pending = await server.daily(SessionCommand(view.session))
        assert pending.status == "pending" and pending.share == ""
        server.clock.advance(1_000)
        view = (await server.move(PlayMoveCommand(view.session, "đầu tiên"))).state
        server.clock.advance(1_000)
        view = await server.give_up(SessionCommand(view.session))
        answer = await server.daily(SessionCommand(view.session))
        streaks.append(answer.streak)
        assert answer.score == view.score and answer.words == 1
        assert answer.share == (
            f"Nối từ hôm nay {day:02d}/12 · 1 từ · {view.score} điểm · {answer.streak} ngày liền"
        )
        assert not any(link.word in answer.share for link in view.chain)
    assert streaks == [1, 2, 3, 1]


def test_the_share_text_is_the_spec_s() -> None:
    day = (datetime(2026, 12, 7) - datetime(1970, 1, 1)).days
    assert share_text(day, 14, 812, 5) == "Nối từ hôm nay 07/12 · 14 từ · 812 điểm · 5 ngày liền"


async def test_the_daily_answer_is_for_daily_games_only(little: Lexicon) -> None:
    server = instance(little, FakeClock(at(10)))
    solo = await server.start(StartGameCommand(server.link(daily=False)))
    with pytest.raises(BadRequest):
        await server.daily(SessionCommand(solo.session))
