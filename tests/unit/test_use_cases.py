"""The use cases with hand-written fakes, no HTTP: serialization of moves on a session,
and the report-once rule."""

from __future__ import annotations

import asyncio
import random

import pytest

from noitu.adapters.noitu.memory_repository import InMemorySessionRepository
from noitu.adapters.noitu.memory_start_limiter import InMemoryStartLimiter
from noitu.adapters.noitu.token_signer import HmacTokenSigner
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


def ticket_for(message_id: int, clock: FakeClock, user: int = 1) -> str:
    signer = HmacTokenSigner(b"k" * 32)
    ticket = Ticket(user, "An", GameMessage(chat_id=1, message_id=message_id), clock.now // 1000 + 600)
    return signer.issue(ticket)


async def test_a_start_on_the_same_message_says_which_game_replaced_the_old_one(world, clock):
    start, move, give_up, token, reporter, background = world
    first = await start(StartGameCommand(token))
    clock.advance(1_000)
    await move(PlayMoveCommand(first.session, "đầu mối"))
    assert first.replaced_by == ""
    second = await start(StartGameCommand(token))
    assert second.replaced_by == ""
    old = await give_up(SessionCommand(first.session))  # what the older tab reads next
    # The spec's ending stands (a replaced game ends as given up, its score reported) …
    assert (old.status, old.end_reason) == ("lost", "gave_up")
    # … and the view says it was replaced, and by which session.
    assert old.replaced_by == second.session
    await background.settle()
    assert [r.score for r in reporter.reports] == [old.score]


async def test_a_game_pushed_out_by_the_per_user_cap_names_the_newer_game(world, clock):
    start, _, give_up, _, _, _ = world
    views = []
    for message in (11, 12, 13, 14):
        views.append(await start(StartGameCommand(ticket_for(message, clock))))
        clock.advance(1_000)
    oldest = await give_up(SessionCommand(views[0].session))
    assert oldest.replaced_by == views[3].session
    for other in views[1:]:
        assert (await give_up(SessionCommand(other.session))).replaced_by == ""


async def test_a_players_own_give_up_is_not_a_replacement(world, clock):
    start, _, give_up, token, _, _ = world
    view = await start(StartGameCommand(token))
    ended = await give_up(SessionCommand(view.session))
    assert (ended.end_reason, ended.replaced_by) == ("gave_up", "")
    # A later start on the same message does not rewrite a game that was already over.
    await start(StartGameCommand(token))
    assert (await give_up(SessionCommand(view.session))).replaced_by == ""


async def test_a_turn_that_had_run_out_ends_on_time_not_as_replaced(world, clock):
    start, _, give_up, token, _, _ = world
    view = await start(StartGameCommand(token))
    clock.advance(40_000)
    await start(StartGameCommand(token))
    old = await give_up(SessionCommand(view.session))
    assert (old.end_reason, old.replaced_by) == ("timeout", "")
