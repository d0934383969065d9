"""The ladder's driver (spec B8): pairings handed to `PlayMatch` on idle slots (each
match watchable under a room code), each match rated when it ends, spoiled matches played again, and rooms never kept waiting. Bots are
scripted in-process; the ladder's stores are in memory; time is a fake clock."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from noitu.application.arena.errors import Busy, WrongRoomPhase
from noitu.application.arena.ladder.play_ladder import LOST_PAIRING_MS, TICK_MS
from noitu.application.arena.ladder.unrank_bot import UnrankBot, UnrankBotCommand
from noitu.application.arena.live_match import Timer
from noitu.application.arena.ports import Artefact
from noitu.application.arena.records import new_owner_key, owner_hash
from noitu.application.arena.rooms.ladder_slots import LOOK_EVERY_MS
from noitu.application.arena.rooms.surrender import SurrenderCommand
from noitu.domain.arena.board import Side
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.ladder.pairing import Pairing
from noitu.domain.arena.match import EndReason
from noitu.domain.arena.room import Room, RoomSeat, SeatKind
from support.arena_rooms import Arena, ScriptedBot, builtin, new_owner, upload
from support.fakes import START_MS
from support.ladder import LadderRun, Roster


@pytest.fixture
def arena(tmp_path: Path) -> Arena:
    return Arena(tmp_path, slots=3)


def ladder_over(arena: Arena, *names: str) -> LadderRun:
    return LadderRun(arena, roster=Roster(*names) if names else None)


def thinking_bots(arena: Arena, name: str, count: int) -> list[ScriptedBot]:
    """`count` bots for built-in `name` that think until released."""
    bots = [ScriptedBot(lambda request: None) for _ in range(count)]
    arena.launcher.script(name, *bots)
    return bots


async def test_a_pairing_is_two_rooms_with_one_seed_and_sides_swapped_each_match_rated(
    arena: Arena,
):
    ladder = ladder_over(arena)
    async with ladder.running():
        await arena.until(lambda: len(ladder.closed) >= 1, "a pairing played")
    pairing = ladder.closed[0]
    assert len(pairing.ends) == 2 and all(end.rated for end in pairing.ends)
    assert pairing.instance == ladder.instance  # a restart of this instance may drop it
    records = [arena.stores.matches[end.match_id] for end in pairing.ends]
    assert {record.seed for record in records} == {pairing.seed}
    assert {(r.p1.ref, r.p2.ref) for r in records} == {pairing.seats(0), pairing.seats(1)}
    assert all(record.turn_limit == 8 for record in records)
    assert all(record.ladder for record in records)  # archived as the ladder's
    for end in pairing.ends:
        assert end.match_id in ladder.stores.results.by_match  # rated, in the history
    for bot in pairing.bots:
        assert ladder.standing(bot).games >= 2


async def test_a_bot_that_fails_loses_and_a_spoiled_match_is_played_again(arena: Arena):
    ladder = ladder_over(arena, "random", "tactical")
    arena.launcher.script(
        "random", *(ScriptedBot(lambda request: b"not json") for _ in range(2))
    )
    real = arena.builtins.artefact
    calls = 0

    async def first_fails(name: str) -> Artefact:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the built-in bot could not be built")
        return await real(name)

    arena.builtins.artefact = first_fails  # type: ignore[method-assign]
    async with ladder.running():
        await arena.until(lambda: len(ladder.closed) == 1, "a spoiled pairing")
        await settle_a_while()
        # played again from the next tick on, not at once: a server that spoils every
        # match does not spin
        (replay,) = ladder.stores.pairings.live_by_id.values()
        assert len(ladder.closed) == 1 and ladder.driver.in_flight == 0
        arena.timer.advance(TICK_MS)
        await arena.until(lambda: len(ladder.closed) >= 2, "a pairing played again")
    spoiled, again = ladder.closed[:2]
    assert again.id == replay.id
    assert spoiled.to_replay and again.bots == spoiled.bots and again.seed != spoiled.seed
    reasons = [arena.stores.matches[end.match_id].result.reason for end in spoiled.ends]
    assert EndReason.ABANDONED in reasons
    assert sum(end.rated for end in spoiled.ends) == 1
    # the scripted failing bots were the first two launched for random: its losses
    failed = [
        ladder.stores.results.by_match[end.match_id]
        for end in (*spoiled.ends, *again.ends)
        if end.rated
    ]
    failures = [r for r in failed if arena.stores.matches[r.match_id].result.failure]
    assert len(failures) == 2
    for result in failures:
        loser = result.p1 if result.winner is Side.P2 else result.p2
        assert loser == "random"
        code = arena.stores.matches[result.match_id].result.failure.code
        assert code is FailureCode.BAD_JSON


async def test_a_rooms_match_starts_at_once_while_ladder_matches_hold_the_other_slots(
    arena: Arena,
):
    ladder = ladder_over(arena)
    held = [bot for name in ("random", "tactical", "strong") for bot in thinking_bots(arena, name, 4)]
    owner = new_owner()
    mine = arena.add_bot(owner)
    try:
        async with ladder.running():
            await arena.until(lambda: arena.queue.ladder_playing == 2, "two ladder matches")
            lobby = await arena.open_rooms()
            assert [room.ladder for room in lobby.live] == [True, True]
            snapshot = await arena.create(owner, upload(mine), builtin("random"))
            match_id = (await arena.hosted(snapshot.code)).match_id
            await arena.until(
                lambda: arena.stores.matches[match_id].started_ms is not None,
                "the room's match playing at once",
            )
            assert arena.queue.playing == 3 and arena.queue.waiting == 0
            arena.timer.advance(60_000)  # a tick: still no slot for the ladder
            await settle_a_while()
            assert ladder.driver.in_flight == 2 and arena.queue.waiting == 0
            lobby = await arena.open_rooms()
            assert sorted(room.ladder for room in lobby.live) == [False, True, True]
    finally:
        for bot in held:
            bot.release()
        await arena.background.settle()


async def test_ladder_matches_count_toward_no_owners_limit(arena: Arena):
    owner = new_owner()
    ranked = arena.add_bot(owner, public=True)
    ladder = ladder_over(arena, "random")
    ladder.stores.members.by_bot[ranked.id] = Member(ranked.id, owner, START_MS)
    held = thinking_bots(arena, "random", 2)
    try:
        async with ladder.running():
            await arena.until(lambda: arena.queue.ladder_playing == 2, "the pairing's matches")
            room = next(room for room in arena.host.rooms() if room.card.ladder)
            assert ranked.id in {held.ref for held in room.card.seats if held is not None}
            assert not room.card.involves(owner) and room.card.queue_tags() == frozenset()
            snapshot = await arena.room(room.code, owner)
            assert snapshot.ladder and snapshot.mine  # its owner sees its side...
            with pytest.raises(WrongRoomPhase):  # ...and cannot give the match away
                await arena.surrender(SurrenderCommand(room.code, owner))
            assert room.result is None
    finally:
        for bot in held:
            bot.release()
        await arena.background.settle()


async def test_no_ladder_match_on_a_one_slot_server(tmp_path: Path):
    arena = Arena(tmp_path, slots=1)
    ladder = ladder_over(arena)
    async with ladder.running():
        await settle_a_while()
        arena.timer.advance(60_000)
        await settle_a_while()
        assert ladder.driver.in_flight == 0 and arena.host.rooms() == []
        assert ladder.stores.pairings.live_by_id == {}


async def settle_a_while() -> None:
    for _ in range(50):
        await asyncio.sleep(0)


async def test_a_ranked_bot_found_deleted_leaves_the_ladder_unrated(arena: Arena):
    ladder = ladder_over(arena, "random")
    gone = "00000000000000aa"  # ranked, then deleted: no record in the catalogue
    ladder.stores.members.by_bot[gone] = Member(gone, new_owner(), START_MS)
    async with ladder.running():
        await arena.until(lambda: len(ladder.closed) == 1, "the pairing closed")
        await settle_a_while()
    (pairing,) = ladder.closed
    assert set(pairing.bots) == {gone, "random"} and not any(e.rated for e in pairing.ends)
    assert ladder.stores.members.by_bot == {} and ladder.stores.pairings.live_by_id == {}
    assert ladder.stores.results.by_match == {} and arena.host.rooms() == []


async def test_a_pairing_left_by_a_dead_instance_is_ended_unrated_and_played_again(
    arena: Arena,
):
    ladder = ladder_over(arena, "random", "tactical")
    opened = arena.clock.now_ms()
    lost = Pairing("00000000000000ff", 5, "random", "tactical", False, opened)
    assert await ladder.stores.pairings.open(lost)
    async with ladder.running():
        await settle_a_while()
        # young enough to be another instance's: left alone, its bots stay busy
        assert ladder.closed == [] and ladder.driver.in_flight == 0
        arena.timer.advance(LOST_PAIRING_MS)
        await arena.until(lambda: len(ladder.closed) == 1, "the lost pairing ended")
        arena.timer.advance(TICK_MS)
        await arena.until(lambda: len(ladder.closed) >= 2, "played again")
    ended, again = ladder.closed[:2]
    assert ended.id == lost.id and not any(end.rated for end in ended.ends)
    assert len(ended.ends) == 2 and ended.to_replay
    assert again.bots == lost.bots and all(end.rated for end in again.ends)
    assert lost.instance == "" and again.instance == ladder.instance  # the taker's now


async def test_a_store_that_fails_is_told_and_the_ladder_goes_on(arena: Arena):
    ladder = ladder_over(arena, "random", "tactical")
    pairings = ladder.stores.pairings
    real_live = pairings.live
    failures = 1

    async def live_once_down() -> list[Pairing]:
        nonlocal failures
        if failures:
            failures -= 1
            raise ConnectionError("the database is down")
        return await real_live()

    pairings.live = live_once_down  # type: ignore[method-assign]
    async with ladder.running():
        await arena.until(lambda: len(ladder.errors) == 1, "the failure told")
        assert ladder.closed == []
        arena.timer.advance(TICK_MS)
        await arena.until(lambda: len(ladder.closed) >= 1, "a pairing played after all")
    assert isinstance(ladder.errors[0], ConnectionError) and len(ladder.errors) == 1


class CountingTimer:
    def __init__(self, timer: Timer) -> None:
        self.timer = timer
        self.calls = 0

    async def sleep_until(self, at_ms: int) -> None:
        self.calls += 1
        await self.timer.sleep_until(at_ms)


async def test_a_replay_due_while_rooms_hold_every_slot_waits_without_spinning(
    tmp_path: Path,
):
    arena = Arena(tmp_path, slots=2)
    timer = CountingTimer(arena.timer)
    ladder = LadderRun(arena, timer, roster=Roster("random", "tactical"))
    real = arena.builtins.artefact
    calls = 0

    async def first_fails(name: str) -> Artefact:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the built-in bot could not be built")
        return await real(name)

    arena.builtins.artefact = first_fails  # type: ignore[method-assign]
    owner = new_owner()
    mine = [arena.add_bot(owner), arena.add_bot(owner)]
    held = thinking_bots(arena, "strong", 2)
    for bot in mine:
        held += thinking_bots(arena, bot.id, 1)
    try:
        async with ladder.running():
            await arena.until(lambda: len(ladder.closed) == 1, "a spoiled pairing")
            for bot in mine:
                await arena.create(owner, upload(bot), builtin("strong"))
            await arena.until(
                lambda: arena.queue.playing - arena.queue.ladder_playing == 2, "two rooms' matches"
            )
            arena.timer.advance(TICK_MS)  # the replay is due; no slot is idle
            before = timer.calls
            await settle_a_while()
            assert timer.calls - before <= 2 and ladder.driver.in_flight == 0
            for bot in held:
                bot.release()
            await arena.until(lambda: arena.queue.playing == 0, "the rooms' matches over")
            arena.timer.advance(TICK_MS)  # the next tick finds the slots idle
            await arena.until(lambda: len(ladder.closed) >= 2, "the replay played")
    finally:
        for bot in held:
            bot.release()
        await arena.background.settle()


# --- Unranking (issue 30: an unranked bot still started a rated match 31 s later) -------


def ranked_upload(arena: Arena, ladder: LadderRun) -> tuple[str, str]:
    """An uploaded bot of a new owner, ranked: (its id, its owner's key)."""
    key = new_owner_key(random.Random(9))
    bot = arena.add_bot(owner_hash(key), public=True)
    ladder.stores.members.by_bot[bot.id] = Member(bot.id, owner_hash(key), START_MS)
    return bot.id, key


async def test_unranking_cancels_the_match_of_its_pairing_not_begun_yet(tmp_path: Path):
    # Two slots, so the ladder has one: the pairing's second match waits for the first.
    arena = Arena(tmp_path, slots=2)
    ladder = LadderRun(arena, roster=Roster("random"), builtins_alone=False)
    bot, key = ranked_upload(arena, ladder)
    (held,) = thinking_bots(arena, bot, 1)
    unrank = UnrankBot(arena.stores, ladder.stores.members, ladder.slots)
    try:
        async with ladder.running():
            await arena.until(lambda: ladder.driver.in_flight == 1, "the first match playing")
            await arena.until(lambda: held.asked, "the bot thinking")
            assert len(arena.stores.matches) == 1
            assert (await unrank(UnrankBotCommand(bot, key))).was_ranked
            held.release()
            await arena.until(lambda: len(ladder.closed) == 1, "the pairing closed")
            arena.timer.advance(TICK_MS)  # a tick: nothing else starts
            await settle_a_while()
    finally:
        held.release()
        await arena.background.settle()
    (pairing,) = ladder.closed
    played, cancelled = sorted(pairing.ends, key=lambda end: not end.rated)
    assert played.rated and not cancelled.rated  # the match under way was rated
    assert len(arena.stores.matches) == 1  # the second never started
    assert list(ladder.stores.results.by_match) == [played.match_id]
    assert ladder.stores.pairings.live_by_id == {}  # and is not played again


async def test_unranking_ends_its_ladder_match_waiting_in_the_queue(tmp_path: Path):
    # One slot: the ladder may hold none, so a ladder match handed over waits in the
    # queue, its room not taken by the host.
    arena = Arena(tmp_path, slots=1)
    ladder = LadderRun(arena)
    bot, key = ranked_upload(arena, ladder)
    spec = ladder_spec(
        RoomSeat(kind=SeatKind.UPLOAD, ref=bot, name="mine", owner=owner_hash(key), seated_by=""),
    )
    playing = asyncio.create_task(ladder.slots.play(spec))
    await arena.until(lambda: arena.queue.waiting == 1, "the match queued")
    assert (await arena.room(spec.code)).phase == "PLACEMENT"
    await UnrankBot(arena.stores, ladder.stores.members, ladder.slots)(UnrankBotCommand(bot, key))
    assert (await arena.room(spec.code)).phase == "ABANDONED"
    arena.timer.advance(LOOK_EVERY_MS)  # the driver reads the card
    played = await asyncio.wait_for(playing, 5)
    assert played.match_id is None and arena.stores.matches == {}  # never made: unrated


def ladder_spec(seat: RoomSeat) -> Room:
    return Room(
        code="ACE347", created_ms=0, creator="", ladder=True, seed=7, turn_limit=8,
        seats=(seat, RoomSeat(kind=SeatKind.BUILTIN, ref="random", name="random", seated_by="")),
    )


async def test_a_match_the_archive_cannot_record_is_spoiled_and_played_again_next_tick(
    arena: Arena,
):
    ladder = ladder_over(arena, "random", "tactical")
    real_add = arena.stores.add_match
    failures = 1

    async def add_once_down(record):
        nonlocal failures
        if failures:
            failures -= 1
            raise ConnectionError("the database is down")
        await real_add(record)

    arena.stores.add_match = add_once_down  # type: ignore[method-assign]
    async with ladder.running():
        # The match's host could not make it (it logs why): its room closes with no
        # match, and the pairing ends spoiled, the other match rated.
        await arena.until(lambda: len(ladder.closed) == 1, "the spoiled pairing")
        await settle_a_while()
        spoiled = ladder.closed[0]
        assert spoiled.to_replay and sum(end.rated for end in spoiled.ends) == 1
        assert len(arena.stores.matches) == 1 and ladder.errors == []
        # played again from the next tick (a server whose store is down does not spin)
        assert ladder.driver.in_flight == 0
        arena.timer.advance(TICK_MS)
        await arena.until(lambda: len(ladder.closed) >= 2, "the pairing played again")
    again = ladder.closed[1]
    assert again.bots == spoiled.bots and all(end.rated for end in again.ends)
    cards = await arena.board.cards()
    assert [card.closed for card in cards if card.match_id is None] == [True]


async def test_a_ladder_match_under_a_room_code_taken_is_busy(arena: Arena):
    held = thinking_bots(arena, "random", 2)
    spec = Room(
        code="ACE347", created_ms=0, creator="", ladder=True, seed=7, turn_limit=8,
        seats=(
            RoomSeat(kind=SeatKind.BUILTIN, ref="random", name="random", seated_by=""),
            RoomSeat(kind=SeatKind.BUILTIN, ref="tactical", name="tactical", seated_by=""),
        ),
    )
    slots = LadderRun(arena).slots
    playing = asyncio.create_task(slots.play(spec))
    try:
        await arena.until(lambda: held[0].asked or held[1].asked, "the match playing")
        with pytest.raises(Busy):
            await slots.play(spec)
        assert len(arena.host.rooms()) == 1 and len(arena.stores.matches) == 1
    finally:
        for bot in held:
            bot.release()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
