"""The room ports (spec B10): what the memory and the Redis adapters must both do — the
store with its caps, versions and due turns, member credentials, room cards, the chat
leaderboard and the live feed. On Redis each `make` is another server instance."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
import redis

from noitu.adapters.noitu.memory_rooms import (
    InMemoryChatLeaderboard,
    InMemoryMemberCredentials,
    InMemoryRoomCards,
    InMemoryRoomFeed,
    InMemoryRoomStore,
)
from noitu.adapters.noitu.redis.rooms import (
    ROOM_TTL_MS,
    RedisChatLeaderboard,
    RedisMemberCredentials,
    RedisRoomCards,
    RedisRoomFeed,
    RedisRoomStore,
)
from noitu.application.errors import Busy
from noitu.application.noitu.rooms.commands import JoinRoomCommand, MemberCommand, RoomMoveCommand
from noitu.application.noitu.rooms.ports import AddRoom, LeaderboardEntry
from noitu.application.noitu.rooms.record import MemberSeat, RoomCard, RoomRecord, credential_tag
from noitu.application.noitu.session import GameMessage, ReportState
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.room import Room, RoomLimits
from noitu.domain.noitu.room_game import BotSeat
from noitu.domain.noitu.rules import TurnClock
from support.noitu_rooms import RoomWorld

LIMITS = RoomLimits()
KEEP_MS = LIMITS.card_keep_ms


class Ports:
    """Makes the room adapters of one kind; for Redis each call is a new instance."""

    def __init__(self, kind: str, request: pytest.FixtureRequest, little, clock) -> None:
        self.kind = kind
        if kind == "memory":
            shared = (InMemoryRoomStore(), InMemoryMemberCredentials(),
                      InMemoryRoomCards(KEEP_MS), InMemoryChatLeaderboard(), InMemoryRoomFeed())
            self._make = lambda: shared
        else:
            make_link = request.getfixturevalue("redis_links")  # already set up
            self.feeds: list[RedisRoomFeed] = []

            def make():
                link = make_link()
                feed = RedisRoomFeed(link)
                self.feeds.append(feed)
                return (RedisRoomStore(link, little, TurnClock()), RedisMemberCredentials(link),
                        RedisRoomCards(link, KEEP_MS), RedisChatLeaderboard(link), feed)

            self._make = make

    def instance(self) -> tuple[Any, Any, Any, Any, Any]:
        return self._make()

    async def close(self) -> None:
        for feed in getattr(self, "feeds", []):
            await feed.aclose()


@pytest.fixture
def made_ports(kind, request, little, clock) -> Ports:
    if kind == "redis":
        request.getfixturevalue("redis_links")  # set up outside the event loop
    return Ports(kind, request, little, clock)


@pytest.fixture
async def ports(made_ports):
    yield made_ports
    await made_ports.close()


def record_of(little, key_message: int = 1, chat: int = -100, members: int = 3) -> RoomRecord:
    card = GameMessage(chat_id=chat, message_id=key_message, topic_id=5)
    room = Room()
    for user in range(1, members + 1):
        room.join(user, f"Người {user}", LIMITS, 1_000)
    return RoomRecord(key=card.key, card=card, room=room, last_active_ms=1_000)


def bots(little) -> BotSeat:
    return BotSeat(make_opponents(BotIndex(little)), random.Random(3))


async def test_a_room_round_trips_with_its_game(ports, little):
    store, *_ = ports.instance()
    record = record_of(little)
    record.room.set_bot(1, Difficulty.HARD, LIMITS)
    assert await store.add(record, 500, 3) is AddRoom.ADDED
    game = record.room.start(1, little, TurnClock(), bots(little), 10_000, LIMITS)
    game.play(1, "đầu tiên", 11_000, bots(little))
    game.give_up(3, 12_000, bots(little))
    game.play(2, "tiên sinh", 13_000, bots(little))  # the bot's word waits for its pause
    assert game.turn == 4 and game.bot_word is not None
    record.games, record.report, record.last_move_ms = 1, ReportState.PENDING, {1: 11_000}
    record.room.hold("page-a", 2, 70_000, LIMITS)
    record.room.hold("page-b", 1, 71_000, LIMITS)
    record.room.host_id = 2
    record.credential_tags = {1: credential_tag("a" * 32), 2: credential_tag("b" * 32)}
    await store.save(record, record.due_ms(12_000, LIMITS))
    other, *_ = ports.instance()
    stored = await other.get(record.key)
    assert stored is not None and stored.card == record.card
    assert stored.room.members == record.room.members  # names, bots, absences
    assert stored.room.host_id == 2 and stored.room.host == 2
    assert stored.room.pages == record.room.pages
    assert list(stored.room.pages) == ["page-a", "page-b"]  # the oldest hold first
    assert stored.credential_tags == record.credential_tags
    assert stored.room.game.links() == game.links()
    assert stored.room.game.players == game.players
    assert (stored.room.game.turn, stored.room.game.deadline_ms, stored.room.game.steps) == (
        game.turn, game.deadline_ms, game.steps)
    assert (stored.room.game.bot_word, stored.room.game.bot_due_ms) == (
        game.bot_word, game.bot_due_ms)
    assert (stored.games, stored.report, stored.last_move_ms) == (1, ReportState.PENDING, {1: 11_000})


async def test_get_hands_out_a_copy(ports, little):
    store, *_ = ports.instance()
    record = record_of(little)
    await store.add(record, 500, 3)
    copy = await store.get(record.key)
    copy.room.join(9, "x", LIMITS, 2_000)
    assert len((await store.get(record.key)).room.members) == 3


async def test_three_rooms_per_chat_and_the_server_cap(ports, little):
    store, *_ = ports.instance()
    for message in (1, 2, 3):
        assert await store.add(record_of(little, message), 5, 3) is AddRoom.ADDED
    assert await store.add(record_of(little, 4), 5, 3) is AddRoom.TOO_MANY_IN_CHAT
    assert await store.add(record_of(little, 1, chat=-200), 5, 3) is AddRoom.ADDED
    assert await store.add(record_of(little, 2, chat=-200), 5, 3) is AddRoom.ADDED
    other, *_ = ports.instance()
    assert await other.add(record_of(little, 1, chat=-300), 5, 3) is AddRoom.TOO_MANY
    assert await other.count() == 5
    await other.remove(record_of(little, 1).key)
    assert await store.add(record_of(little, 4), 5, 3) is AddRoom.ADDED
    assert await store.get(record_of(little, 1).key) is None


async def test_rooms_due_are_those_with_something_due_by_now(ports, little):
    store, *_ = ports.instance()
    first, second = record_of(little, 1), record_of(little, 2)
    for record in (first, second):
        await store.add(record, 500, 3)
    assert await store.next_due() is None
    await store.save(first, 5_000)
    await store.save(second, 9_000)
    assert await store.next_due() == 5_000
    assert await store.due(4_999) == []
    assert await store.due(5_000) == [first.key]
    assert await store.due(10_000) == [first.key, second.key]  # the earliest first
    await store.save(first, None)
    assert await store.due(10_000) == [second.key]
    assert await store.next_due() == 9_000
    assert sorted(await store.keys()) == sorted([first.key, second.key])


async def test_a_room_removed_leaves_no_trace_and_is_not_brought_back(ports, little):
    store, *_ = ports.instance()
    record = record_of(little)
    await store.add(record, 500, 1)
    await store.save(record, 5_000)
    await store.remove(record.key)
    assert await store.get(record.key) is None
    assert (await store.keys(), await store.due(10_000), await store.next_due()) == ([], [], None)
    await store.save(record, 6_000)  # a late write of the closed room
    assert await store.get(record.key) is None and await store.count() == 0
    assert await store.add(record_of(little, 2), 500, 1) is AddRoom.ADDED  # its chat is free


async def test_a_stale_copy_is_not_written_over_a_newer_one(ports, little):
    if ports.kind == "memory":
        pytest.skip("one process serializes every write under the room's lock")
    store, *_ = ports.instance()
    record = record_of(little)
    await store.add(record, 500, 3)
    first, second = await store.get(record.key), await store.get(record.key)
    await store.save(first, None)
    with pytest.raises(Busy):
        await store.save(second, None)


async def test_the_lock_serializes_one_room_across_instances(ports, little):
    first, *_ = ports.instance()
    second, *_ = ports.instance()
    order: list[str] = []

    async def hold(store, name):
        async with store.lock("c:-100:1"):
            order.append(f"{name} in")
            await asyncio.sleep(0.01)
            order.append(f"{name} out")

    await asyncio.gather(hold(first, "a"), hold(second, "b"))
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])


async def test_a_new_credential_retires_the_old(ports):
    _, credentials, *_ = ports.instance()
    seat = MemberSeat("c:-100:1", 7)
    await credentials.replace("a" * 32, seat)
    _, other, *_ = ports.instance()
    assert await other.find("a" * 32) == seat
    await other.replace("b" * 32, seat)
    assert await credentials.find("a" * 32) is None
    assert await credentials.find("b" * 32) == seat
    await credentials.revoke(seat)
    assert await other.find("b" * 32) is None


async def test_cards_are_kept_30_days_after_their_last_play(ports):
    _, _, cards, _, _ = ports.instance()
    card = RoomCard(-100, 9, 4, 1_000, 1_000)
    await cards.record(card)
    assert await cards.find(-100, 9, 1_000 + KEEP_MS) == RoomCard(-100, 9, 4, 1_000, 1_000 + KEEP_MS)
    assert await cards.find(-100, 9, 1_000 + 2 * KEEP_MS) is not None  # touched by the Play
    assert await cards.find(-100, 9, 2 + 4 * KEEP_MS) is None
    assert await cards.find(-100, 10, 1_000) is None


async def test_the_leaderboard_orders_by_wins_best_then_fewer_games(ports):
    _, _, _, board, _ = ports.instance()
    await board.record(-100, [LeaderboardEntry(1, "An", True, 120), LeaderboardEntry(2, "Bình", False, 40)])
    await board.record(-100, [LeaderboardEntry(2, "Bình", True, 90), LeaderboardEntry(3, "Chi", False, 0)])
    await board.record(-100, [LeaderboardEntry(3, "Chi", True, 120), LeaderboardEntry(1, "An", False, 10)])
    await board.record(-100, [LeaderboardEntry(1, "An", False, 5)])
    await board.record(-200, [LeaderboardEntry(9, "Elsewhere", True, 500)])
    top = await board.top(-100, 10)
    # Everyone has one win; An and Chi best 120, Chi in fewer games.
    assert [(r.name, r.games, r.wins, r.best) for r in top] == [
        ("Chi", 2, 1, 120), ("An", 3, 1, 120), ("Bình", 2, 1, 90),
    ]
    assert [r.name for r in await board.top(-100, 2)] == ["Chi", "An"]


async def test_a_change_reaches_subscribers_on_every_instance(ports):
    *_, first_feed = ports.instance()
    *_, second_feed = ports.instance()
    async with first_feed.subscribe("c:-100:1") as first, second_feed.subscribe("c:-100:1") as second:
        waits = [asyncio.ensure_future(anext(first)), asyncio.ensure_future(anext(second))]
        await asyncio.sleep(0.01)
        assert not any(w.done() for w in waits)
        await first_feed.publish("c:-100:2")  # another room: nobody here hears it
        await asyncio.sleep(0.05)
        assert not any(w.done() for w in waits)
        await second_feed.publish("c:-100:1")
        await asyncio.wait_for(asyncio.gather(*waits), 2)


# --- the rooms' use cases over each store (B10 revised: presence, closing) ----------------


def world_over(ports: Ports, little, clock) -> RoomWorld:
    store, credentials, _, _, feed = ports.instance()
    return RoomWorld(little, clock, store=store, credentials=credentials, feed=feed)


async def test_members_away_leave_and_the_empty_room_closes(ports, little, clock):
    # The bug: an absent member stayed forever, so its room never closed (TTL -1 on
    # Redis, where the member's credential keys had expired meanwhile).
    world = world_over(ports, little, clock)
    host = (await world.join(JoinRoomCommand(world.token(1)))).member
    guest = (await world.join(JoinRoomCommand(world.token(2)))).member
    key = await world.key_of(host)
    page = await world.open_feed(guest)
    await page.close()  # both pages are gone
    await world.pass_time(LIMITS.member_absent_ms)
    record = await world.store.get(key)
    assert record is not None and record.room.members == []
    assert await world.credentials.find(host) is None
    assert await world.credentials.find(guest) is None
    await world.pass_time(LIMITS.idle_close_ms)
    assert await world.store.get(key) is None
    assert (await world.store.keys(), await world.store.count()) == ([], 0)
    await world.close_feeds()


async def test_a_member_whose_credential_expired_still_leaves(ports, little, clock):
    world = world_over(ports, little, clock)
    host = (await world.join(JoinRoomCommand(world.token(1)))).member
    key = await world.key_of(host)
    await world.credentials.revoke(MemberSeat(key, 1))  # as if its keys had expired
    await world.pass_time(LIMITS.member_absent_ms + LIMITS.idle_close_ms)
    assert await world.store.get(key) is None


async def test_no_key_without_a_ttl_outlives_a_closed_room(kind, ports, little, clock, redis_url):
    if kind != "redis":
        pytest.skip("the memory store holds no keys")
    world = world_over(ports, little, clock)
    members = [(await world.join(JoinRoomCommand(world.token(u)))).member for u in (1, 2, 3)]
    pages = [await world.open_feed(m) for m in members]
    await world.start(MemberCommand(members[0]))
    clock.advance(1_000)
    await world.move(RoomMoveCommand(members[0], "đầu tiên"))
    await world.give_up(MemberCommand(members[1]))
    key = await world.key_of(members[0])
    with redis.Redis.from_url(redis_url) as client:
        prefix = "noitu:"
        assert 0 < client.pttl(f"{prefix}room:{key}") <= ROOM_TTL_MS
        assert 0 < client.pttl(f"{prefix}rooms:chat:-100") <= ROOM_TTL_MS
        for page in pages:
            await page.close()
        await world.pass_time(LIMITS.member_absent_ms + LIMITS.idle_close_ms)
        await world.background.settle()
        assert await world.store.get(key) is None
        left = {name.decode(): client.pttl(name) for name in client.scan_iter("*")}
    assert {name: ttl for name, ttl in left.items() if ttl < 0} == {}
    assert [name for name in left if key in name] == []
