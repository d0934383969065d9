"""The room ports (spec B10): what the memory and the Redis adapters must both do — the
store with its caps, versions and due turns, member credentials, room cards, the chat
leaderboard and the live feed. On Redis each `make` is another server instance."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from noitu.adapters.memory_rooms import (
    InMemoryChatLeaderboard,
    InMemoryMemberCredentials,
    InMemoryRoomCards,
    InMemoryRoomFeed,
    InMemoryRoomStore,
)
from noitu.adapters.redis.rooms import (
    RedisChatLeaderboard,
    RedisMemberCredentials,
    RedisRoomCards,
    RedisRoomFeed,
    RedisRoomStore,
)
from noitu.application.errors import Busy
from noitu.application.noitu.rooms.ports import AddRoom, LeaderboardEntry
from noitu.application.noitu.rooms.record import MemberSeat, RoomCard, RoomRecord
from noitu.application.noitu.session import GameMessage, ReportState
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.room import BotSeat, Room, RoomLimits
from noitu.domain.noitu.rules import TurnClock

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
        room.join(user, f"Người {user}", LIMITS)
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
    record.games, record.report, record.last_move_ms = 1, ReportState.PENDING, {1: 11_000}
    await store.save(record, record.settle_due_ms(2_000))
    other, *_ = ports.instance()
    stored = await other.get(record.key)
    assert stored is not None and stored.card == record.card
    assert [(m.user_id, m.name, m.bot) for m in stored.room.members] == [
        (m.user_id, m.name, m.bot) for m in record.room.members
    ]
    assert stored.room.game.links() == game.links()
    assert stored.room.game.players == game.players
    assert (stored.room.game.turn, stored.room.game.deadline_ms, stored.room.game.steps) == (
        game.turn, game.deadline_ms, game.steps)
    assert (stored.games, stored.report, stored.last_move_ms) == (1, ReportState.PENDING, {1: 11_000})


async def test_get_hands_out_a_copy(ports, little):
    store, *_ = ports.instance()
    record = record_of(little)
    await store.add(record, 500, 3)
    copy = await store.get(record.key)
    copy.room.join(9, "x", LIMITS)
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


async def test_rooms_due_are_those_whose_turn_ran_out(ports, little):
    store, *_ = ports.instance()
    first, second = record_of(little, 1), record_of(little, 2)
    for record in (first, second):
        await store.add(record, 500, 3)
    await store.save(first, 5_000)
    await store.save(second, 9_000)
    assert await store.due(5_000) == []
    assert await store.due(5_001) == [first.key]
    assert sorted(await store.due(10_000)) == sorted([first.key, second.key])
    await store.save(first, None)
    assert await store.due(10_000) == [second.key]
    assert sorted(await store.keys()) == sorted([first.key, second.key])


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
