"""The ScoreReporter port: one contract, both adapters (the log and the local record of local play, and
Telegram's setGameScore through a recording Bot API session)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import structlog.testing
from aiogram import Bot

from noitu.adapters.noitu.local_scores import LocalScoreTable
from noitu.adapters.noitu.telegram.reporter import TelegramScoreReporter
from noitu.application.noitu.session import GameMessage, ReportState, ScoreReport
from support.telegram import BOT_TOKEN, RecordingSession, game_message_of

CHAT = GameMessage(chat_id=-100200, message_id=7, topic_id=3)
INLINE = GameMessage(inline_message_id="BAAAAB-inline")


@pytest.fixture(params=["log", "telegram"])
def reporter_and_seen(request) -> tuple[Any, Callable[[], list[tuple[int, int, str]]]]:
    """An adapter, and what the outside world saw of its reports: (user, score, game
    message) per report, read from the log or from the Bot API calls."""
    if request.param == "log":
        capture = structlog.testing.LogCapture()
        structlog.configure(processors=[capture])
        request.addfinalizer(structlog.reset_defaults)
        seen = lambda: [
            (e["user_id"], e["score"], e["game_message"])
            for e in capture.entries if e["event"] == "score"
        ]
        return LocalScoreTable(), seen
    session = RecordingSession()
    seen = lambda: [
        (c["user_id"], c["score"], game_message_of(c).key) for c in session.named("setGameScore")
    ]
    return TelegramScoreReporter(Bot(BOT_TOKEN, session=session)), seen


@pytest.mark.parametrize("message", [CHAT, INLINE], ids=["chat", "inline"])
async def test_a_score_is_reported_for_either_kind_of_game_message(reporter_and_seen, message):
    reporter, seen = reporter_and_seen
    assert seen() == []
    assert await reporter.report(42, 57, message) == ScoreReport(ReportState.OK, new_record=True)
    assert seen() == [(42, 57, message.key)]


async def test_the_telegram_reporter_names_the_message_it_reports_on():
    session = RecordingSession()
    reporter = TelegramScoreReporter(Bot(BOT_TOKEN, session=session))
    await reporter.report(42, 57, CHAT)
    await reporter.report(42, 60, INLINE)
    calls = session.named("setGameScore")
    assert [(c["user_id"], c["score"]) for c in calls] == [(42, 57), (42, 60)]
    assert (calls[0]["chat_id"], calls[0]["message_id"]) == (-100200, 7)
    assert calls[1]["inline_message_id"] == "BAAAAB-inline"
    assert all(not c.get("force") for c in calls)
