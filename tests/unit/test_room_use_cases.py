"""The group rooms' use cases over the memory adapters and fakes (spec B10): joining,
starting, moves in B10's order of checks, giving up and leaving, settlement with no
one connected, and the after-game reporting."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from noitu.application.noitu.commands import StartGameCommand
from noitu.application.noitu.errors import BadToken, TooFast
from noitu.application.noitu.rooms.commands import (
    AddRoomBotCommand,
    JoinRoomCommand,
    MemberCommand,
    RoomMoveCommand,
)
from noitu.application.noitu.rooms.errors import (
    ROOM_ERRORS,
    BadRequest,
    Busy,
    GameRunning,
    NoGame,
    NoMember,
    NotARoomLink,
    NotEnoughPlayers,
    NotHost,
    NotYourTurn,
    OutOfGame,
    RoomFull,
    RoomGone,
    RoomLink,
    TooManyRooms,
    Watching,
)
from noitu.application.noitu.rooms.follow_room import Replaced
from noitu.application.noitu.rooms.messages import announcement
from noitu.application.noitu.rooms.pages import PAGE_HOLD_MS, LivePages
from noitu.application.noitu.rooms.renew_room_pages import RenewRoomPages
from noitu.application.noitu.session import ReportState
from noitu.application.noitu.start_game import StartGame
from noitu.domain.noitu.room import RoomLimits
from noitu.domain.noitu.rules import SessionLimits, TurnClock
from support.noitu_rooms import RoomWorld


@pytest.fixture
async def world(little, clock) -> AsyncIterator[RoomWorld]:
    made = RoomWorld(little, clock)
    yield made
    await made.close_feeds()


async def join(world: RoomWorld, *users: int, **where) -> list[str]:
    return [
        (await world.join(JoinRoomCommand(world.token(u, **where)))).member for u in users
    ]


async def move(world: RoomWorld, member: str, word: str):
    return await world.move(RoomMoveCommand(member, word))


async def test_members_join_in_order_the_first_hosts(world):
    an, ba, ca = await join(world, 1, 2, 3)
    view = (await world.join(JoinRoomCommand(world.token(4)))).room
    assert [(p.seat, p.name) for p in view.players] == [(1, "U1"), (2, "U2"), (3, "U3"), (4, "U4")]
    assert view.you == 4 and view.host == 1 and view.status == "lobby"
    assert len({an, ba, ca}) == 3 and all(len(m) == 32 for m in (an, ba, ca))


async def test_joining_again_keeps_the_seat_and_retires_the_old_credential(world):
    old, _ = await join(world, 1, 2)
    again = await world.join(JoinRoomCommand(world.token(1)))
    assert again.room.you == 1 and again.member != old
    with pytest.raises(NoMember):
        await world.start(MemberCommand(old))
    assert (await world.start(MemberCommand(again.member))).status == "playing"


async def test_a_solo_link_is_refused_by_the_room_and_a_room_link_by_api_start(world, little, clock):
    with pytest.raises(NotARoomLink):
        await world.join(JoinRoomCommand(world.token(1, room=False)))
    with pytest.raises(BadToken):
        await world.join(JoinRoomCommand("nonsense"))
    start = StartGame(
        little, TurnClock(), SessionLimits(), None, None, world.signer, None, clock, None, None
    )
    with pytest.raises(RoomLink):
        await start(StartGameCommand(world.token(1)))


async def test_three_live_rooms_per_chat_and_a_server_cap(little, clock):
    world = RoomWorld(little, clock, RoomLimits(max_rooms=4))
    for card in (1, 2, 3):
        await join(world, 1, message_id=card)
    with pytest.raises(TooManyRooms):
        await join(world, 1, message_id=4)
    await join(world, 2, chat_id=-200, message_id=1)
    with pytest.raises(Busy):
        await join(world, 2, chat_id=-300, message_id=1)


async def test_joining_again_does_not_count_against_ten_starts_a_minute(world, clock):
    # The lockout: rejoining about 12 times in 15 s answered "Chậm lại một chút nhé!".
    await join(world, 1, 2)
    for _ in range(12):
        clock.advance(1_250)
        again = await world.join(JoinRoomCommand(world.token(1)))
        assert again.room.you == 1


async def test_joins_of_new_rooms_and_starts_count_against_ten_starts_a_minute(world, clock):
    for card in range(1, 10):  # nine rooms joined in the minute, each in its own chat
        await join(world, 1, chat_id=-card, message_id=card)
    host, _ = await join(world, 1, 2)  # the tenth
    with pytest.raises(TooFast) as refused:
        await world.start(MemberCommand(host))
    assert refused.value.retry_after_ms == SessionLimits().start_window_ms
    with pytest.raises(TooFast):
        await join(world, 1, chat_id=-50, message_id=50)
    clock.advance(SessionLimits().start_window_ms)
    assert (await world.start(MemberCommand(host))).status == "playing"


async def test_a_full_room_refuses_the_33rd_member(world):
    await join(world, *range(1, 33))
    with pytest.raises(RoomFull):
        await join(world, 33)


async def test_only_the_host_starts_with_at_least_two_players(world):
    (host,) = await join(world, 1)
    with pytest.raises(NotEnoughPlayers):
        await world.start(MemberCommand(host))
    (guest,) = await join(world, 2)
    with pytest.raises(NotHost):
        await world.start(MemberCommand(guest))
    view = await world.start(MemberCommand(host))
    assert view.status == "playing" and view.turn == 1 and view.current == "đầu"
    with pytest.raises(GameRunning):
        await world.start(MemberCommand(host))


async def test_the_host_adds_the_bot_which_answers_in_its_seat(world, clock):
    host, guest = await join(world, 1, 2)
    with pytest.raises(NotHost):
        await world.add_bot(AddRoomBotCommand(guest, "easy"))
    with pytest.raises(BadRequest):
        await world.add_bot(AddRoomBotCommand(host, "genius"))
    view = await world.add_bot(AddRoomBotCommand(host, "medium"))
    assert [(p.seat, p.name, p.bot) for p in view.players][2] == (3, "Bot (vừa)", True)
    assert view.bot == "medium"
    await world.start(MemberCommand(host))
    clock.advance(1_000)
    await move(world, host, "đầu tiên")
    feed = await world.open_feed(host)
    clock.advance(1_000)
    answer = await move(world, guest, "tiên sinh")
    # The bot's turn shows first, on the feed too; its word comes 1–2 s later.
    assert answer.state.turn == 3 and answer.state.chain[-1].word == "tiên sinh"
    shown = await feed.next()
    assert shown.turn == 3 and shown.chain[-1].word == "tiên sinh"
    clock.advance(999)
    assert await world.settle() == 0 and await feed.quiet()
    clock.advance(1_001)
    assert await world.settle() == 1
    played = await feed.next()
    assert [(link.word, link.seat, link.name) for link in played.chain][-2:] == [
        ("tiên sinh", 2, "U2"), ("sinh viên", 3, "Bot (vừa)"),
    ]
    assert played.turn == 1 and played.deadline_ms > answer.state.deadline_ms
    await feed.close()


async def test_a_move_is_checked_in_b10s_order(world, clock):
    host, guest, third = await join(world, 1, 2, 3)
    with pytest.raises(NoGame):
        await move(world, host, "đầu tiên")
    await world.start(MemberCommand(host))
    (late,) = await join(world, 9)
    with pytest.raises(Watching):
        await move(world, late, "đầu tiên")
    with pytest.raises(NotYourTurn):
        await move(world, guest, "đầu tiên")
    await world.give_up(MemberCommand(third))
    with pytest.raises(OutOfGame):
        await move(world, third, "đầu tiên")
    clock.advance(500)
    rejected = await move(world, host, "sinh viên")
    assert not rejected.result.accepted and rejected.result.reason == "wrong_link"
    assert rejected.result.message == "Từ phải bắt đầu bằng “đầu”."
    with pytest.raises(TooFast):
        await move(world, host, "đầu tiên")
    with pytest.raises(NoMember):
        await move(world, "0" * 32, "đầu tiên")


async def test_a_turn_that_ran_out_is_settled_first_then_out_of_game(world, clock):
    host, guest, _third = await join(world, 1, 2, 3)
    await world.start(MemberCommand(host))
    clock.advance(32_001)
    with pytest.raises(OutOfGame):
        await move(world, host, "đầu tiên")
    clock.advance(1_000)
    accepted = await move(world, guest, "đầu tiên")  # seat 2 had its turn since seat 1's ended
    assert accepted.result.accepted
    assert next((p.seat, p.out_reason) for p in accepted.state.players) == (1, "timeout")


async def test_turns_settle_with_no_one_connected_and_the_game_is_reported(world, clock):
    host, _guest, _third = await join(world, 1, 2, 3)
    await world.start(MemberCommand(host))
    clock.advance(1_000)
    await move(world, host, "đầu tiên")
    assert await world.settle() == 0
    clock.advance(31_000 + 2_000 + 32_000)  # seat 2 ran out, then seat 3
    assert await world.settle() == 1
    await world.background.settle()
    record = await world.store.get((await world.credentials.find(host)).room_key)
    game = record.room.game
    assert game.over and game.winner == 1
    assert record.report is ReportState.OK
    first = game.chain.links[1].points
    assert [(r.user_id, r.score) for r in world.reporter.reports] == [(1, first + 50)]
    assert [text for _, text in world.announcer.texts] == [announcement("U1", 1)]
    top = await world.leaderboard.top(-100, 10)
    assert [(r.user_id, r.games, r.wins, r.best) for r in top] == [
        (1, 1, 1, first + 50), (2, 1, 0, 0), (3, 1, 0, 0),
    ]
    assert await world.settle() == 0


async def test_a_game_with_no_word_gives_no_score_no_announcement_no_leaderboard(world):
    host, guest = await join(world, 1, 2)
    await world.start(MemberCommand(host))
    view = await world.give_up(MemberCommand(guest))
    await world.background.settle()
    assert view.status == "lobby" and view.result is not None
    assert view.result.winner == 1 and view.result.words == 0
    assert view.result.score_reported == "skipped"
    assert world.reporter.reports == [] and world.announcer.texts == []
    assert await world.leaderboard.top(-100, 10) == []


async def test_give_up_out_of_turn_and_on_turn(world, clock):
    host, guest, third = await join(world, 1, 2, 3)
    started = await world.start(MemberCommand(host))
    clock.advance(5_000)
    view = await world.give_up(MemberCommand(guest))
    assert view.deadline_ms == started.deadline_ms and view.turn == 1
    view = await world.give_up(MemberCommand(host))
    assert view.status == "lobby" and view.result.winner == 3
    with pytest.raises(NoGame):
        await world.give_up(MemberCommand(third))


async def test_leaving_puts_out_passes_the_host_and_retires_the_credential(world, clock):
    host, guest, third = await join(world, 1, 2, 3)
    await world.start(MemberCommand(host))
    view = await world.leave(MemberCommand(host))
    assert view.you is None
    with pytest.raises(NoMember):
        await world.give_up(MemberCommand(host))
    clock.advance(1_000)
    answer = await move(world, guest, "đầu tiên")  # the turn passed to seat 2 at once
    assert next((p.seat, p.out_reason) for p in answer.state.players) == (1, "left")
    assert answer.state.host == 2  # the next member in join order hosts
    await world.give_up(MemberCommand(third))
    lobby = await world.add_bot(AddRoomBotCommand(guest, "easy"))
    assert lobby.host == 1 and lobby.you == 1  # seat 1 at the next game


async def test_an_empty_room_closes_after_ten_minutes(world, clock):
    (host,) = await join(world, 1)
    key = (await world.credentials.find(host)).room_key
    await world.leave(MemberCommand(host))
    clock.advance(RoomLimits().idle_close_ms - 1)
    assert await world.close_idle() == 0
    clock.advance(1)
    assert await world.close_idle() == 1
    assert await world.store.get(key) is None
    with pytest.raises(NoMember):
        await world.start(MemberCommand(host))


async def test_a_vanished_room_is_room_gone(world):
    (host,) = await join(world, 1)
    await world.store.remove((await world.credentials.find(host)).room_key)
    with pytest.raises(RoomGone):
        await world.start(MemberCommand(host))


async def test_every_change_reaches_the_feed(world, clock):
    host, _guest = await join(world, 1, 2)
    key = (await world.credentials.find(host)).room_key
    async with world.feed.subscribe(key) as notices:
        waiting = asyncio.ensure_future(anext(notices))
        await asyncio.sleep(0)
        assert not waiting.done()
        await world.start(MemberCommand(host))
        await asyncio.wait_for(waiting, 1)


def test_every_room_error_has_its_own_code_and_a_message():
    codes = [e.code for e in ROOM_ERRORS]
    assert len(codes) == len(set(codes))
    assert all(e.default_message for e in ROOM_ERRORS)
    assert {"no_member", "room_gone", "no_game", "watching", "out_of_game", "not_your_turn",
            "room_full", "not_host", "not_enough_players", "game_running", "too_many_rooms",
            "busy", "not_a_room_link", "room_link"} <= set(codes)


def test_every_room_error_has_a_status_in_the_one_table():
    from noitu.adapters.http.errors import ERROR_STATUS

    assert all(e.code in ERROR_STATUS for e in ROOM_ERRORS)
    assert ERROR_STATUS["room_link"] == ERROR_STATUS["not_a_room_link"] == 400


async def test_a_feed_outlives_a_store_that_fails_once(world):
    host, guest = await join(world, 1, 2)

    class FlakyStore:
        """The room store, failing its next read once when told to."""

        def __init__(self, store):
            self._store = store
            self.fail_next = False

        def __getattr__(self, name):
            return getattr(self._store, name)

        async def get(self, key):
            if self.fail_next:
                self.fail_next = False
                raise Busy()
            return await self._store.get(key)

    flaky = FlakyStore(world.store)
    world.rooms.store = flaky
    views = await world.follow(MemberCommand(guest))
    assert (await anext(views)).status == "lobby"
    flaky.fail_next = True
    world.rooms.store = world.store  # the use cases write through the real store
    await world.start(MemberCommand(host))
    assert (await asyncio.wait_for(anext(views), 1)).status == "playing"
    assert not flaky.fail_next  # the failure happened, and the feed went on
    await views.aclose()


async def test_a_room_left_to_its_bot_closes_too(world, clock):
    (host,) = await join(world, 1)
    await world.add_bot(AddRoomBotCommand(host, "easy"))
    await world.leave(MemberCommand(host))
    clock.advance(RoomLimits().idle_close_ms)
    assert await world.close_idle() == 1


async def test_a_change_written_is_answered_even_when_the_feed_cannot_publish(world, clock):
    host, _guest = await join(world, 1, 2)

    class DownFeed:
        async def publish(self, key):
            raise Busy()

    world.rooms._feed = DownFeed()
    view = await world.start(MemberCommand(host))
    assert view.status == "playing"
    record = await world.store.get((await world.credentials.find(host)).room_key)
    assert record.room.playing


# --- presence, the host and the feeds (B10 revised) ---------------------------------------

MINUTE = 60_000


async def test_three_rooms_whose_hosts_closed_the_page_do_not_lock_the_chat(world, clock):
    # The lock: three rooms whose host closed the page answered too_many_rooms forever.
    hosts = []
    for card in (1, 2, 3):
        (host,) = await join(world, 1, message_id=card)
        feed = await world.open_feed(host)
        await feed.close()  # the page closed
        hosts.append(host)
    with pytest.raises(TooManyRooms):
        await join(world, 2, message_id=4)
    clock.advance(RoomLimits().member_absent_ms)
    assert await world.settle() == 3  # the hosts, away 10 minutes, have left
    with pytest.raises(NoMember):
        await world.start(MemberCommand(hosts[0]))
    clock.advance(RoomLimits().idle_close_ms)
    assert await world.settle() == 3  # the empty rooms close
    assert await world.store.keys() == []
    (newcomer,) = await join(world, 2, message_id=4)
    assert (await world.credentials.find(newcomer)) is not None


async def test_an_absent_host_passes_the_role_after_two_minutes_and_gets_it_back(world, clock):
    host, guest = await join(world, 1, 2)
    host_page = await world.open_feed(host)
    guest_page = await world.open_feed(guest)
    await host_page.close()  # the host closed the page
    await world.pass_time(RoomLimits().host_absent_ms - 1)
    assert await guest_page.quiet()
    with pytest.raises(NotHost):
        await world.add_bot(AddRoomBotCommand(guest, "easy"))
    await world.pass_time(1)
    passed = await guest_page.next()
    assert passed.host == 2 and passed.you == 2
    assert (await world.add_bot(AddRoomBotCommand(guest, "easy"))).bot == "easy"
    with pytest.raises(NotHost):
        await world.start(MemberCommand(host))
    back = await world.open_feed(host)  # present and first in join order again
    assert back.received[0].host == 1
    latest = await guest_page.next()  # the changes came faster than it read: one view
    assert latest.bot == "easy" and latest.host == 1
    await back.close()
    await guest_page.close()


async def test_an_absent_host_keeps_the_role_while_a_game_runs(world, clock):
    host, *others = await join(world, 1, 2, 3, 4, 5)
    pages = [await world.open_feed(member) for member in others]
    await world.start(MemberCommand(host))
    # Nobody plays: seats 1 to 4 run out in turn (at 32, 64, 96 and 128 s); seat 5 wins.
    await world.pass_time(RoomLimits().host_absent_ms + 1_000)
    record = await world.store.get(await world.key_of(host))
    assert record.room.playing and record.room.host == 1
    await world.pass_time(8_000)
    record = await world.store.get(await world.key_of(host))
    assert not record.room.playing and record.room.host == 2  # in the lobby: it passes
    for page in pages:
        await page.close()


async def test_a_member_away_ten_minutes_in_the_lobby_has_left(world, clock):
    host, guest, third = await join(world, 1, 2, 3)
    pages = [await world.open_feed(host), await world.open_feed(third)]
    await world.pass_time(RoomLimits().member_absent_ms - 1)
    assert await world.renew() == 2  # the open feeds keep holding
    assert await pages[0].quiet()
    await world.pass_time(1)
    view = await pages[0].next()
    assert [p.name for p in view.players] == ["U1", "U3"] and view.you == 1
    with pytest.raises(NoMember):
        await world.start(MemberCommand(guest))
    for page in pages:
        await page.close()


async def test_nobody_leaves_for_being_away_while_a_game_runs(world, clock):
    host, guest, _third = await join(world, 1, 2, 3)
    pages = [await world.open_feed(host), await world.open_feed(guest)]
    await world.pass_time(9 * MINUTE)
    await world.start(MemberCommand(host))
    words = iter(["đầu tiên", "tiên sinh", "sinh viên", "viên chức"])
    for _ in range(4):  # seat 3 is away: its turns run out, it is out, never gone
        record = await world.store.get(await world.key_of(host))
        if not record.room.playing:
            break
        turn = record.room.game.turn
        if turn in (1, 2):
            clock.advance(1_000)
            await move(world, (host, guest)[turn - 1], next(words))
        else:
            await world.pass_time(33_000)
    record = await world.store.get(await world.key_of(host))
    assert record.room.playing and [m.user_id for m in record.room.members] == [1, 2, 3]
    assert record.room.game.player(3).out_reason is not None
    for page in pages:
        await page.close()


async def test_joining_again_replaces_the_credential_and_the_old_feeds_close(world):
    old, _ = await join(world, 1, 2)
    first, second = await world.open_feed(old), await world.open_feed(old)
    again = await world.join(JoinRoomCommand(world.token(1)))
    for feed in (first, second):
        assert await feed.next() == Replaced()
        assert await feed.next() is None and feed.ended
    with pytest.raises(NoMember):
        await world.follow(MemberCommand(old))
    fresh = await world.open_feed(again.member)
    assert fresh.received[0].you == 1
    await fresh.close()


async def test_a_third_feed_on_one_credential_closes_the_oldest(world):
    host, _guest = await join(world, 1, 2)
    feeds = [await world.open_feed(host) for _ in range(3)]
    assert await feeds[0].next() == Replaced()
    assert await feeds[0].next() is None
    record = await world.store.get(await world.key_of(host))
    assert len(record.room.pages_of(1)) == 2
    await world.start(MemberCommand(host))
    for feed in feeds[1:]:
        assert (await feed.next()).status == "playing"
    for feed in feeds[1:]:
        await feed.close()
    record = await world.store.get(await world.key_of(host))
    assert record.room.pages_of(1) == [] and not record.room.present(1)


async def test_a_refused_word_is_answered_to_its_sender_only(world, clock):
    host, guest = await join(world, 1, 2)
    await world.start(MemberCommand(host))
    watching, own = await world.open_feed(guest), await world.open_feed(host)
    clock.advance(1_000)
    refused = await move(world, host, "sinh viên")
    assert not refused.result.accepted and refused.result.reason == "wrong_link"
    assert await watching.quiet() and await own.quiet()
    clock.advance(1_000)
    with pytest.raises(BadRequest):
        await move(world, host, "a " * 40)
    assert await watching.quiet()
    clock.advance(1_000)
    accepted = await move(world, host, "đầu tiên")
    assert accepted.result.accepted
    assert (await watching.next()).chain[-1].word == "đầu tiên"
    for feed in (watching, own):
        await feed.close()


async def test_a_feed_whose_hold_lapsed_takes_it_again(world, clock):
    _host, guest = await join(world, 1, 2)
    page = await world.open_feed(guest)
    clock.advance(PAGE_HOLD_MS)  # this process renewed nothing (it was cut off)
    await world.settle()
    record = await world.store.get(await world.key_of(guest))
    assert not record.room.present(2)
    assert await world.renew() == 1
    record = await world.store.get(await world.key_of(guest))
    assert record.room.present(2)
    await page.close()


async def test_a_feed_of_a_process_that_went_away_stops_counting(world, clock):
    host, _guest = await join(world, 1, 2)
    opened_at = clock.now
    await world.open_feed(host)
    world.renew = RenewRoomPages(world.rooms, LivePages())  # nobody renews it any more
    await world.pass_time(PAGE_HOLD_MS)
    record = await world.store.get(await world.key_of(host))
    assert not record.room.present(1)
    assert record.room.member(1).absent_since_ms == opened_at + PAGE_HOLD_MS


async def test_a_new_feed_that_cannot_take_its_hold_ends_and_its_page_reconnects(world):
    host, _ = await join(world, 1, 2)
    messages = await world.follow(MemberCommand(host))

    class Crowded:
        """The room store, its lock refused (a crowd of feeds waits for it)."""

        def __init__(self, store):
            self._store = store

        def __getattr__(self, name):
            return getattr(self._store, name)

        def lock(self, key):
            raise Busy()

    world.rooms.store = Crowded(world.store)
    with pytest.raises(Busy):
        await anext(messages)
    world.rooms.store = world.store
    record = await world.store.get(await world.key_of(host))
    assert record.room.pages == {} and len(world.pages) == 0
