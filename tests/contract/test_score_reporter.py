"""The ScoreReporter port: one contract, both adapters (the log of local play, and
Telegram's setGameScore through a recording Bot API session)."""

from __future__ import annotations

import pytest
from aiogram import Bot

from support.telegram import RecordingSession

from noitu.adapters.logging_reporter import LoggingScoreReporter
from noitu.adapters.telegram.reporter import TelegramScoreReporter
from noitu.application.noitu.session import GameMessage, ReportState

CHAT = GameMessage(chat_id=-100200, message_id=7, topic_id=3)
INLINE = GameMessage(inline_message_id="BAAAAB-inline")


@pytest.fixture(params=["log", "telegram"])
def reporter(request):
    if request.param == "log":
        return LoggingScoreReporter()
    return TelegramScoreReporter(Bot("123456:TEST-token", session=RecordingSession()))


@pytest.mark.parametrize("message", [CHAT, INLINE], ids=["chat", "inline"])
async def test_a_score_is_reported_for_either_kind_of_game_message(reporter, message):
    assert await reporter.report(42, 57, message) is ReportState.OK


async def test_the_telegram_reporter_names_the_message_it_reports_on():
    session = RecordingSession()
    reporter = TelegramScoreReporter(Bot("123456:TEST-token", session=session))
    await reporter.report(42, 57, CHAT)
    await reporter.report(42, 60, INLINE)
    calls = session.named("setGameScore")
    assert [(c["user_id"], c["score"]) for c in calls] == [(42, 57), (42, 60)]
    assert (calls[0]["chat_id"], calls[0]["message_id"]) == (-100200, 7)
    assert calls[1]["inline_message_id"] == "BAAAAB-inline"
    assert all(not c.get("force") for c in calls)
