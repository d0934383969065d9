"""What a load of short games asks of the session's storage: copies that
miss no field, finished games kept out of the garbage collector and read back whole,
view values the collector does not track, per-key locks that forget themselves, and a
sweep that lets requests in while it goes through the store."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import random

import msgspec
import pytest

from noitu.adapters.keyed_locks import KeyedLocks
from noitu.adapters.noitu.memory_repository import FinishedSession, InMemorySessionRepository
from noitu.application.errors import Busy
from noitu.application.noitu.session import GameMessage, ReportState, Session, Ticket
from noitu.application.noitu.settle_expired import SWEEP_BATCH, SettleExpired
from noitu.application.noitu.unit_of_work import Sessions
from noitu.application.noitu.view import SessionViews
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.fakes import CollectingBackground, FakeClock, RecordingScoreReporter

T0 = 1_000_000


def played_session(lexicon: Lexicon, *, inline: bool = False) -> Session:
    """A session whose game has a few words, every field set to something not default."""
    game = Game.start(lexicon, TurnClock(), Difficulty.MEDIUM, random.Random(1), T0)
    opponent = make_opponents(BotIndex(lexicon))[Difficulty.MEDIUM]
    assert game.play("đầu tiên", T0 + 500, opponent, random.Random(2)).bot_word is not None
    message = (
        GameMessage(inline_message_id="AAQ-inline")
        if inline
        else GameMessage(chat_id=-100, message_id=7, topic_id=3)
    )
    return Session(
        id="a" * 32,
        ticket=Ticket(42, "Lan", message, T0 // 1000 + 600, daily=True),
        game=game,
        created_ms=T0,
        last_active_ms=T0 + 500,
        last_move_ms=T0 + 500,
        report=ReportState.NONE,
        new_record=True,
        replaced_by="",
        refused="đầu gối",
        day=20_429,
        version=3,
    )


def same_state(a: Session, b: Session) -> None:
    """Every field of a session and of its game, by value."""
    for field in dataclasses.fields(Session):
        if field.name != "game":
            assert getattr(a, field.name) == getattr(b, field.name), field.name
    ga, gb = a.game, b.game
    assert (ga.lexicon, ga.clock, ga.difficulty) == (gb.lexicon, gb.clock, gb.difficulty)
    assert (ga.status, ga.end_reason, ga.deadline_ms, ga.ended_ms, ga.score) == (
        gb.status, gb.end_reason, gb.deadline_ms, gb.ended_ms, gb.score,
    )
    assert ga.suggestions == gb.suggestions
    assert ga.chain.links == gb.chain.links
    assert (ga.chain.used, ga.chain.used_from) == (gb.chain.used, gb.chain.used_from)


def test_a_copy_keeps_every_field_and_shares_no_state(little: Lexicon) -> None:
    session = played_session(little)
    session.report, session.replaced_by = ReportState.PENDING, "b" * 32
    twin = session.copy()
    same_state(twin, session)
    assert twin.game is not session.game and twin.game.chain is not session.game.chain
    assert twin.game.chain.used is not session.game.chain.used
    # `copy` names every field: one added to Session and forgotten there would come back
    # as its default instead of this marker.
    markers = {f.name: object() for f in dataclasses.fields(Session) if f.name != "game"}
    for name, marker in markers.items():
        object.__setattr__(session, name, marker)
    twin = session.copy()
    assert all(getattr(twin, name) is marker for name, marker in markers.items())


@pytest.mark.parametrize("inline", [False, True])
def test_a_finished_session_is_kept_untracked_and_read_back_whole(
    little: Lexicon, inline: bool
) -> None:
    session = played_session(little, inline=inline)
    session.game.give_up(T0 + 900)
    session.report, session.replaced_by = ReportState.OK, "c" * 32
    record = FinishedSession.of(session)
    assert not gc.is_tracked(record)
    assert not record.is_playing and record.owner == session.owner
    restored = record.copy()
    same_state(restored, session)
    assert [link.by for link in restored.game.chain.links] == [Side.BOT, Side.PLAYER, Side.BOT]
    assert record.copy() is not restored  # every read is a new copy


async def test_the_memory_store_keeps_games_in_play_as_sessions_and_finished_ones_as_records(
    little: Lexicon,
) -> None:
    repository = InMemorySessionRepository()
    session = played_session(little)
    assert await repository.add(session, 10)
    assert isinstance(repository._sessions[session.id], Session)
    session.game.give_up(T0 + 900)
    await repository.save(session)
    assert isinstance(repository._sessions[session.id], FinishedSession)
    stored = await repository.get(session.id)
    same_state(stored, session)
    assert await repository.playing_of(42) == [] and await repository.count_playing() == 0
    await repository.remove(session.id)
    assert await repository.find_by_owner(session.owner) is None
    assert repository._by_user == {} and repository._owners == {}


def test_word_views_are_left_out_of_the_garbage_collector_and_encode_as_before(
    little: Lexicon,
) -> None:
    session = played_session(little)
    session.game.give_up(T0 + 900)
    view = SessionViews().of(session, T0 + 900)
    assert view.chain and view.suggestions
    assert not any(gc.is_tracked(v) for v in [*view.chain, *view.suggestions])
    encoded = msgspec.json.decode(msgspec.json.encode(view))
    assert encoded["chain"][1]["meanings"] == [{"pos": "danh", "gloss": "thứ nhất"}]
    assert all(isinstance(s["meanings"], list) for s in encoded["suggestions"])


async def test_keyed_locks_forget_a_key_once_nobody_holds_or_waits_for_it() -> None:
    locks = KeyedLocks()
    async with locks.hold("a"):
        assert set(locks._locks) == {"a"}
    assert locks._locks == {} and locks._waiters == {}

    entered = asyncio.Event()

    async def holder() -> None:
        async with locks.hold("b"):
            entered.set()
            await asyncio.sleep(0.05)

    task = asyncio.create_task(holder())
    await entered.wait()
    with pytest.raises(Busy):  # a bounded wait gives up
        async with locks.hold("b", timeout_s=0.01):
            pass
    waiter = asyncio.create_task(locks.hold("b").__aenter__())
    await asyncio.sleep(0)
    waiter.cancel()  # a cancelled waiter leaves nothing behind either
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await task
    assert locks._locks == {} and locks._waiters == {}


async def test_keyed_locks_serialize_the_holders_of_one_key() -> None:
    locks = KeyedLocks()
    order: list[str] = []

    async def hold(name: str) -> None:
        async with locks.hold("k"):
            order.append(f"{name} in")
            await asyncio.sleep(0.01)
            order.append(f"{name} out")

    await asyncio.gather(hold("x"), hold("y"))
    assert order == ["x in", "x out", "y in", "y out"]


async def test_the_sweep_lets_requests_in_while_it_goes_through_the_store(
    little: Lexicon, clock: FakeClock
) -> None:
    repository = InMemorySessionRepository()
    for n in range(5 * SWEEP_BATCH):
        session = played_session(little)
        session.id = f"{n:032x}"
        session.game.give_up(T0 + 900)
        assert await repository.add(session, 10)
    sessions = Sessions(repository, RecordingScoreReporter(), CollectingBackground(), clock)
    clock.now = T0 + 900 + SessionLimits().finished_ms  # every one is due to go
    progress: list[int] = []

    async def request() -> None:  # stands for the requests waiting while the sweep runs
        for _ in range(4):
            progress.append(len(repository._sessions))
            await asyncio.sleep(0)

    result, _ = await asyncio.gather(SettleExpired(sessions, SessionLimits())(), request())
    assert result.dropped_finished == 5 * SWEEP_BATCH and not repository._sessions
    # The request ran four times while sessions were still left, each time between
    # batches of the sweep.
    assert progress[-1] > 0 and len(set(progress)) == 4
    assert progress == sorted(progress, reverse=True)
