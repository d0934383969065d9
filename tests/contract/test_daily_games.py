"""The DailyGames port (spec B13): each player's game of the day and streak. Every
adapter (memory, Redis) must behave the same; on Redis, another instance sees it."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from noitu.adapters.noitu.memory_daily import InMemoryDailyGames
from noitu.application.noitu.session import ReportState, Session
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.players_day import day_of
from noitu.domain.noitu.rules import TurnClock

# Today: Redis expires the entries on its own clock, at the end of the next day.
DAY = day_of(int(time.time() * 1000))


@pytest.fixture
def make_daily(kind: str, request: pytest.FixtureRequest, little: Lexicon, rules: TurnClock) -> Any:
    """A store of the parametrised kind; for Redis each call is another instance."""
    if kind == "memory":
        shared = InMemoryDailyGames()
        return lambda: shared
    from noitu.adapters.noitu.redis.daily import RedisDailyGames

    make_link = request.getfixturevalue("redis_links")
    return lambda: RedisDailyGames(make_link(), little, rules)


def daily(session: Session, day: int = DAY) -> Session:
    session.day = day
    session.ticket = dataclasses.replace(session.ticket, daily=True)
    return session


def finished(session: Session, report: ReportState = ReportState.PENDING) -> Session:
    game = session.game
    word = next(iter(game.chain.legal_words()))
    game.chain.append(word, Side.PLAYER, 17)
    game.score = 17
    game.give_up(session.created_ms + 5_000)
    session.report = report
    return session


async def test_a_day_s_game_is_named_once_it_begins(make_daily, new_session) -> None:
    store = make_daily()
    assert await store.entry(1, DAY) is None
    session = daily(new_session(user=1))
    await store.begin(1, DAY, session.id)
    found = await make_daily().entry(1, DAY)
    assert found is not None and found.session_id == session.id and found.finished is None
    assert await store.entry(1, DAY + 1) is None  # another day
    assert await store.entry(2, DAY) is None  # another player


async def test_a_finished_game_is_kept_whole_and_never_replaced_by_a_start(
    make_daily, new_session
) -> None:
    store, other = make_daily(), make_daily()
    session = finished(daily(new_session(user=3)))
    await store.begin(3, DAY, session.id)
    assert await store.finish(session) == 1
    await other.begin(3, DAY, "f" * 32)  # a start later that day names nothing new
    found = await other.entry(3, DAY)
    assert found is not None and found.session_id == session.id
    kept = found.finished
    assert kept is not None
    assert [link.word.text for link in kept.game.chain.links] == [
        link.word.text for link in session.game.chain.links
    ]
    assert (kept.game.score, kept.game.status, kept.game.end_reason) == (
        17, session.game.status, session.game.end_reason,
    )
    assert (kept.day, kept.ticket, kept.report) == (DAY, session.ticket, ReportState.PENDING)
    # Its score report done: the kept game says so, the streak does not count it twice.
    session.report = ReportState.OK
    assert await other.finish(session) == 1
    found = await store.entry(3, DAY)
    assert found is not None and found.finished is not None
    assert found.finished.report is ReportState.OK


async def test_the_streak_across_days_and_a_missed_one(make_daily, new_session) -> None:
    store = make_daily()
    for offset, expected in ((0, 1), (1, 2), (2, 3)):
        session = finished(daily(new_session(user=5), DAY + offset))
        await store.begin(5, DAY + offset, session.id)
        assert await store.finish(session) == expected
    reader = make_daily()
    assert await reader.streak(5, DAY + 2) == 3
    assert await reader.streak(5, DAY + 3) == 3  # today's game may still come
    assert await reader.streak(5, DAY + 4) == 0  # a day was missed
    session = finished(daily(new_session(user=5), DAY + 4))
    assert await reader.finish(session) == 1
    assert await store.streak(6, DAY) == 0  # someone who never played
