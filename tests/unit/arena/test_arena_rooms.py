"""Rooms (spec B4, B5): codes, seats and phases, the lobby, leaving, who may seat what,
and the feed of snapshots. Matches played in rooms: test_arena_room_matches.py."""

from __future__ import annotations

import asyncio
import random

import msgspec
import pytest

from noitu.adapters.arena.rooms import LoopTimer
from noitu.application.arena.errors import (
    AlreadySeated,
    BadOwnerKey,
    BadRequest,
    BotNotBuilt,
    BotNotFound,
    NotSeated,
    RoomFull,
    RoomNotFound,
    SeatTaken,
    TooManyMatches,
    WrongRoomPhase,
)
from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.leave_room import LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import OpenRoomsCommand
from noitu.domain.arena.room import (
    ROOM_CODE_ALPHABET,
    ROOM_CODE_LENGTH,
    WAITING_ROOM_MS,
    is_room_code,
    new_room_code,
    person_name,
)
from support.arena_rooms import Arena, builtin, new_owner, person, upload


@pytest.fixture
def arena(tmp_path) -> Arena:
    return Arena(tmp_path / "data")


def test_room_codes_have_six_characters_and_no_look_alikes():
    assert len(ROOM_CODE_ALPHABET) == len(set(ROOM_CODE_ALPHABET)) == 20
    assert not set("0OQD1IL2Z5S8BUVG") & set(ROOM_CODE_ALPHABET)
    look_alikes = ["0OQD", "1IL", "2Z", "5S", "6G", "8B", "UV"]
    assert all(len(set(group) & set(ROOM_CODE_ALPHABET)) <= 1 for group in look_alikes)
    rng = random.Random(3)
    codes = [new_room_code(rng) for _ in range(2000)]
    assert all(len(c) == ROOM_CODE_LENGTH and is_room_code(c) for c in codes)
    assert set("".join(codes)) == set(ROOM_CODE_ALPHABET)  # every character is used
    assert len(set(codes)) == len(codes)
    assert not is_room_code("ABC0EF") and not is_room_code("ACE")


def test_person_names_are_cleaned():
    assert person_name("  Nguyễn\tVăn\n  An ") == "Nguyễn Văn An"
    assert person_name("\u200b\x00 ") == "Người chơi"
    assert len(person_name("x" * 100)) == 40


async def test_the_creator_sits_as_p1_and_the_room_waits_for_p2(arena):
    lan, minh = new_owner(), new_owner()
    created = await arena.create(lan, person("Lan"))
    assert is_room_code(created.code)
    assert created.phase == "WAITING" and created.match_id is None
    assert created.seats[1] is None and created.mine == ("P1",)
    first = created.seats[0]
    assert (first.player, first.kind, first.name, first.ready) == ("P1", "person", "Lan", False)
    encoded = msgspec.json.decode(msgspec.json.encode(created))
    assert lan not in msgspec.json.encode(created).decode()  # no owner hash, ever
    assert {"turnLimit", "queuePlace", "replayReady", "deadlineMs", "piecesLeft"} <= set(encoded)
    lobby = await arena.open_rooms()
    assert [r.code for r in lobby.waiting] == [created.code] and lobby.live == ()
    # A spectator finds the room with the code typed in any case.
    watched = await arena.room(f"  {created.code.lower()} ")
    assert watched.code == created.code and watched.mine == ()

    joined = await arena.join(created.code, minh, person("Minh"))
    assert joined.phase == "PLACEMENT" and joined.mine == ("P2",)
    assert joined.seats[1].name == "Minh"
    # The match is made once its host takes it (here at once: a free slot).
    made = await arena.hosted(created.code, minh)
    assert made.mine == ("P2",) and made.match_id is not None
    assert made.placement_deadline_ms == arena.clock.now_ms() + 120_000
    lobby = await arena.open_rooms()
    assert lobby.waiting == () and [r.code for r in lobby.live] == [created.code]
    with pytest.raises(RoomFull):
        await arena.join(created.code, new_owner(), person("Ba"))


async def test_a_flood_of_waiting_rooms_pushes_neither_a_person_nor_ones_own_room_off_the_lobby(
    arena,
):
    # The attack, bounded (the lobby lists 50; here 3): rooms of bots waiting for an
    # opponent, each within the limits, all newer than a person's room and a bot owner's.
    waiting_person = await arena.create(new_owner(), person("Lan"))
    mine = new_owner()
    my_room = await arena.create(mine, upload(arena.add_bot(mine)))
    flood = []
    for _ in range(5):
        arena.clock.advance(1)
        flood.append((await arena.create(new_owner(), builtin("random"))).code)
    seen = await arena.open_rooms(OpenRoomsCommand(limit=3))
    assert [r.code for r in seen.waiting] == [waiting_person.code, flood[-1], flood[-2]]
    # Its owner always finds it, first; the person's room next.
    mine_seen = await arena.open_rooms(OpenRoomsCommand(limit=3, viewer=mine))
    assert [r.code for r in mine_seen.waiting] == [my_room.code, waiting_person.code, flood[-1]]


async def test_seats_are_checked(arena):
    lan, minh = new_owner(), new_owner()
    created = await arena.create(lan, person())
    with pytest.raises(AlreadySeated):
        await arena.join(created.code, lan, person("Lan again"))
    with pytest.raises(SeatTaken):
        await arena.join(created.code, minh, person(), side="P1")
    with pytest.raises(RoomNotFound):
        await arena.join("WWWWWW", minh, person())
    with pytest.raises(BadOwnerKey):
        await arena.join(created.code, "not-a-hash", person())
    with pytest.raises(BadRequest):
        await arena.join(created.code, minh, builtin("grandmaster"))
    with pytest.raises(BadRequest):
        await arena.join(
            created.code, minh, msgspec.convert({"kind": "robot"}, type=type(person()))
        )
    private = arena.add_bot(lan)
    # Someone else's private bot is not found (its existence is not told); a bot that
    # did not compile cannot sit.
    with pytest.raises(BotNotFound):
        await arena.join(created.code, minh, upload(private))
    with pytest.raises(BotNotBuilt, match="biên dịch bị lỗi"):
        await arena.join(created.code, minh, upload(arena.add_bot(minh, built=False)))
    room = await arena.room(created.code)
    assert room.seats[1] is None and room.phase == "WAITING"  # nothing changed
    # A public bot of someone else may sit, and keeps its owner's name and id.
    public = arena.add_bot(lan, public=True, name="Búa thép")
    joined = await arena.join(created.code, minh, upload(public))
    assert (joined.seats[1].kind, joined.seats[1].bot_id, joined.seats[1].name) == (
        "upload",
        public.id,
        "Búa thép",
    )
    made = await arena.hosted(created.code)
    assert made.seats[1].ready  # bots are placed and ready at once, once the match is made


async def test_a_person_cannot_sit_on_both_sides(arena):
    with pytest.raises(AlreadySeated):
        await arena.create(new_owner(), person(), person())
    assert await arena.board.cards() == []


async def test_leaving_a_waiting_room_frees_the_seat_and_an_empty_room_closes(arena):
    lan, minh = new_owner(), new_owner()
    created = await arena.create(lan, person())
    feed = arena.feed.subscribe(created.code)
    with pytest.raises(NotSeated):
        await arena.leave_room(LeaveRoomCommand(created.code, minh))
    left = await arena.leave_room(LeaveRoomCommand(created.code, lan))
    assert left.phase == "ABANDONED" and left.seats == (None, None)
    # A closed room is kept as long as a finished one, closed.
    assert (await arena.room(created.code)).phase == "ABANDONED"
    with pytest.raises(WrongRoomPhase):
        await arena.join(created.code, minh, person())
    seen = [views.room async for views in feed]  # the feed ends with the room
    assert seen[-1].phase == "ABANDONED"


async def test_a_room_nobody_completes_closes_after_thirty_minutes(arena):
    created = await arena.create(new_owner(), person())
    arena.clock.advance(WAITING_ROOM_MS - 1)
    assert [r.code for r in (await arena.open_rooms()).waiting] == [created.code]
    arena.clock.advance(1)
    assert (await arena.open_rooms()).waiting == ()
    with pytest.raises(WrongRoomPhase, match="đã đóng"):  # closed at once when asked
        await arena.join(created.code, new_owner(), person())
    assert (await arena.room(created.code)).phase == "ABANDONED"
    other = await arena.create(new_owner(), person())
    arena.clock.advance(WAITING_ROOM_MS)
    await arena.board_pass()  # the board's pass closes what nobody asked for
    assert (await arena.room(other.code)).phase == "ABANDONED"


async def test_an_owner_has_a_limited_number_of_rooms_at_once(arena):
    lan = new_owner()
    codes = [(await arena.create(lan, person())).code for _ in range(MAX_LIVE_MATCHES_PER_OWNER)]
    with pytest.raises(TooManyMatches):
        await arena.create(lan, person())
    elsewhere = await arena.create(new_owner(), person())
    with pytest.raises(TooManyMatches):
        await arena.join(elsewhere.code, lan, person())
    await arena.leave_room(LeaveRoomCommand(codes[0], lan))
    await arena.join(elsewhere.code, lan, person())


async def test_the_feed_sends_the_latest_snapshot_to_a_new_subscriber_then_each_change(arena):
    lan = new_owner()
    created = await arena.create(lan, person())
    feed = arena.feed.subscribe(created.code)
    first = await anext(feed)
    # The spectator's snapshot, and the sides each owner answers for.
    assert first.version == created.version and first.room.mine == ()
    assert first.sides == {lan: ("P1",)} and first.seen_by(lan).mine == ("P1",)
    assert first.own == {}  # waiting: she sees nothing a spectator does not
    await arena.join(created.code, new_owner(), builtin("random"))
    after = await anext(feed)
    assert after.version == first.version + 1 and after.room.seats[1].builtin == "random"
    placing = after
    while placing.room.phase != "PLACEMENT" or placing.room.match_id is None:
        placing = await anext(feed)
    # In placement she sees more than a spectator (her own pieces, once placed).
    assert placing.own[lan].mine == ("P1",) and placing.seen_by(lan) == placing.own[lan]
    await feed.aclose()  # the subscriber goes away
    assert arena.feed.subscribers(created.code) == 0


async def test_watching_a_room_starts_with_its_snapshot_and_ends_with_the_room(arena):
    lan = new_owner()
    created = await arena.create(lan, person())
    with pytest.raises(RoomNotFound):
        await arena.watch_room(GetRoomCommand("WWWWWW"))
    mine = await arena.watch_room(GetRoomCommand(created.code, lan))
    spectator = await arena.watch_room(GetRoomCommand(created.code))
    assert (await anext(mine)).mine == ("P1",) and (await anext(spectator)).mine == ()
    await arena.join(created.code, new_owner(), builtin("random"))
    assert (await anext(mine)).seats[1].builtin == "random"
    await arena.hosted(created.code)
    await arena.leave_room(LeaveRoomCommand(created.code, lan))  # a surrender in placement
    rest = [s async for s in spectator]
    assert rest[-1].phase == "FINISHED" and rest[-1].replay_ready
    assert [s.version for s in rest] == sorted({s.version for s in rest})
    await mine.aclose()
    # The room is over and its feed closed: a late watcher gets the last snapshot only.
    assert [s.phase async for s in await arena.watch_room(GetRoomCommand(created.code))] == [
        "FINISHED"
    ]


async def test_the_loop_timer_waits_for_the_clock():
    class SteppingClock:
        """Jumps 4 ms at every read: the timer must re-check, not trust one sleep."""

        def __init__(self) -> None:
            self.now = 1_000

        def now_ms(self) -> int:
            self.now += 4
            return self.now

    clock = SteppingClock()
    await LoopTimer(clock).sleep_until(1_000)  # already past: at once
    reads = clock.now
    await asyncio.wait_for(LoopTimer(clock).sleep_until(clock.now + 20), 1)
    assert clock.now >= reads + 20
