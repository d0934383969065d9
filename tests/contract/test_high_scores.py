"""The HighScores port (B12): one contract, both adapters. Each is paired with the
ScoreReporter that fills its tables: the local record of local play (one object, both
ports), and Telegram's setGameScore and getGameHighScores through a fake Bot API that
keeps tables as Telegram does."""

from __future__ import annotations

from typing import Any

import pytest
from aiogram import Bot

from noitu.adapters.noitu.local_scores import LocalScoreTable
from noitu.adapters.noitu.telegram.high_scores import TelegramHighScores
from noitu.adapters.noitu.telegram.reporter import TelegramScoreReporter
from noitu.application.noitu.ports import HighScore, HighScoresUnavailable
from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport
from support.score_tables import ScoreTableSession
from support.telegram import BOT_TOKEN, HANG, Fail

CHAT = GameMessage(chat_id=-100200, message_id=7)
INLINE = GameMessage(inline_message_id="BAAAAB-inline")


@pytest.fixture(params=["local", "telegram"])
def ports(request) -> tuple[Any, Any]:
    """(score reporter, high scores) sharing one set of tables."""
    if request.param == "local":
        local = LocalScoreTable()
        return local, local
    bot = Bot(BOT_TOKEN, session=ScoreTableSession())
    return TelegramScoreReporter(bot), TelegramHighScores(bot, 3.0)


def rows(table: list[HighScore]) -> list[tuple[int, int, int]]:
    return [(row.position, row.user_id, row.score) for row in table]


@pytest.mark.parametrize("message", [CHAT, INLINE], ids=["chat", "inline"])
async def test_the_table_ranks_each_players_best(ports, message) -> None:
    reporter, high_scores = ports
    for user, score in ((1, 50), (2, 80), (1, 90), (3, 70), (1, 60)):
        assert (await reporter.report(user, score, message)).state is ReportState.OK
    assert rows(await high_scores.table(1, message)) == [(1, 1, 90), (2, 2, 80), (3, 3, 70)]


async def test_an_empty_table_and_a_player_not_on_it(ports) -> None:
    reporter, high_scores = ports
    assert await high_scores.table(1, CHAT) == []
    await reporter.report(2, 40, CHAT)
    assert rows(await high_scores.table(1, CHAT)) == [(1, 2, 40)]


async def test_the_tables_of_two_game_messages_are_apart(ports) -> None:
    reporter, high_scores = ports
    await reporter.report(1, 40, CHAT)
    await reporter.report(1, 10, INLINE)
    assert rows(await high_scores.table(1, INLINE)) == [(1, 1, 10)]


async def test_a_player_below_the_top_3_gets_the_top_3_and_their_own_row(ports) -> None:
    reporter, high_scores = ports
    for user in range(1, 11):
        await reporter.report(user, 100 - user, CHAT)  # user n is n-th
    table = rows(await high_scores.table(9, CHAT))
    assert table[:3] == [(1, 1, 99), (2, 2, 98), (3, 3, 97)]
    assert (9, 9, 91) in table
    assert [row[0] for row in table] == sorted(row[0] for row in table)


async def test_equal_scores_rank_the_earlier_first(ports) -> None:
    reporter, high_scores = ports
    await reporter.report(5, 30, CHAT)
    await reporter.report(4, 30, CHAT)
    assert rows(await high_scores.table(4, CHAT)) == [(1, 5, 30), (2, 4, 30)]


async def test_a_report_says_whether_it_raised_the_players_best(ports) -> None:
    """B12's "Kỷ lục mới!" comes from the report, since the table read afterwards shows
    a tie as this game's best too: a first score above 0 and a higher one raise the
    best; a tie (Telegram: BOT_SCORE_NOT_MODIFIED) and a lower one do not; 0 never."""
    reporter, high_scores = ports
    record, saved = ScoreReport(ReportState.OK, new_record=True), ScoreReport(ReportState.OK)
    answers = [await reporter.report(1, score, CHAT) for score in (40, 40, 39, 41)]
    assert answers == [record, saved, saved, record]
    assert await reporter.report(1, 40, INLINE) == record  # another message, another table
    assert await reporter.report(2, 0, CHAT) == saved
    assert rows(await high_scores.table(1, CHAT))[0] == (1, 1, 41)


# --- what only Telegram's side has: names, failures, a timeout --------------------


async def test_telegram_rows_carry_the_players_first_names() -> None:
    session = ScoreTableSession(names={1: "An", 2: "Bình"})
    bot = Bot(BOT_TOKEN, session=session)
    await TelegramScoreReporter(bot).report(2, 10, CHAT)
    table = await TelegramHighScores(bot, 3.0).table(1, CHAT)
    assert [(row.name, row.score) for row in table] == [("Bình", 10)]
    asked = session.named("getGameHighScores")[-1]
    assert (asked["user_id"], asked["chat_id"], asked["message_id"]) == (1, -100200, 7)


@pytest.mark.parametrize(
    "failure", [Fail(400, "Bad Request: message not found"), Fail(502, "Bad Gateway")]
)
async def test_telegram_refusing_is_unavailable(failure) -> None:
    session = ScoreTableSession()
    session.answer("getGameHighScores", failure)
    with pytest.raises(HighScoresUnavailable):
        await TelegramHighScores(Bot(BOT_TOKEN, session=session), 3.0).table(1, CHAT)


async def test_telegram_not_answering_is_unavailable_after_its_timeout() -> None:
    session = ScoreTableSession()
    session.answer("getGameHighScores", HANG)
    with pytest.raises(HighScoresUnavailable):
        await TelegramHighScores(Bot(BOT_TOKEN, session=session), 0.05).table(1, CHAT)
