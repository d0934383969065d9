"""The use cases with hand-written fakes, no HTTP: serialization of moves on a session,
and the report-once rule."""

from __future__ import annotations

import asyncio
import random

import pytest

from noitu.adapters.memory_repository import InMemorySessionRepository
from noitu.adapters.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.token_signer import HmacTokenSigner
from noitu.application.noitu.commands import (
    PlayMoveCommand,
    SessionCommand,
    StartGameCommand,
)
from noitu.application.noitu.errors import TooFast
from noitu.application.noitu.give_up import GiveUp
from noitu.application.noitu.play_move import PlayMove
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.application.noitu.start_game import StartGame
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter


class SlowRepository(InMemorySessionRepository):
    """Yields to the event loop on every read, as a networked store would."""

    async def get(self, session_id):
        await asyncio.sleep(0)
        return await super().get(session_id)


@pytest.fixture
def world(little, clock: FakeClock):
    reporter = RecordingScoreReporter()
    background = CollectingBackground()
    sessions = Sessions(SlowRepository(), reporter, background, clock)
    views = SessionViews()
    signer = HmacTokenSigner(b"k" * 32)
    limits = SessionLimits()
    start = StartGame(
        little, TurnClock(), limits, sessions, views, signer, InMemoryStartLimiter(limits),
        clock, random.Random(1), random.Random(2),
    )
    opponents = make_opponents(BotIndex(little))
    move = PlayMove(sessions, views, opponents, limits, random.Random(3))
    give_up = GiveUp(sessions, views)
    ticket = Ticket(1, "An", GameMessage(chat_id=1, message_id=1), clock.now // 1000 + 600)
    return start, move, give_up, signer.issue(ticket), reporter, background


async def test_concurrent_moves_on_one_session_apply_one_after_the_other(world, clock):
    start, move, _, token, _, _ = world
    view = await start(StartGameCommand(token))
    clock.advance(1_000)
    results = await asyncio.gather(
        move(PlayMoveCommand(view.session, "đầu tiên")),
        move(PlayMoveCommand(view.session, "đầu tiên")),
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, TooFast)]
    assert len(applied) == 1 and len(refused) == 1
    assert [link.word for link in applied[0].state.chain] == ["mở đầu", "đầu tiên", "tiên sinh"]


async def test_a_score_is_reported_once(world, clock):
    start, move, give_up, token, reporter, background = world
    view = await start(StartGameCommand(token))
    clock.advance(1_000)
    await move(PlayMoveCommand(view.session, "đầu mối"))
    await asyncio.gather(*(give_up(SessionCommand(view.session)) for _ in range(3)))
    await background.settle()
    assert len(reporter.reports) == 1
