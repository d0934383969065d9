"""BoardRooms: the rooms as every process finds them (issue 31: one room runtime, on one
machine and on several alike). A room is a card on the board (`RoomBoard`: in memory on
one machine, on Redis for several), its views in the feed, and once both seats are
filled its match handed to the queue as a `MatchSpec` job, which a match's host takes
(`PlayMatch`: in this process on one machine, on a worker on several).

A room use case changes one card under that card's hold (and under the holds of the
limits it counts against, `limit_names`), from a `Room` read off the card: it changes
the room, publishes its views (`changed`: the room's version grows by one) and writes
the card back. Nothing else of the board is copied or written back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager

import msgspec

from noitu.application.arena.errors import Busy, RoomNotFound
from noitu.application.arena.fair_order import rank_among
from noitu.application.arena.jobs import MATCH_JOB, JobError, Jobs
from noitu.application.arena.rooms.cards import card_of, in_line, queue_places, room_of, spec_of
from noitu.application.arena.rooms.cluster_ports import RoomBoard, RoomCard
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.room import (
    FINISHED_ROOM_MS,
    WAITING_ROOM_MS,
    Room,
    is_room_code,
    normalize_code,
)
from noitu.application.arena.rooms.snapshot import RoomSnapshot


class BoardRooms:
    def __init__(self, board: RoomBoard, host: RoomHost, jobs: Jobs) -> None:
        """`host` publishes what a change shows (its sender keeps the order of a room's
        views and tries again while the feed is away); `jobs` takes full rooms' matches."""
        self.board = board
        self.host = host
        self._jobs = jobs

    @property
    def now_ms(self) -> int:
        return self.host.clock.now_ms()

    # -- reading -----------------------------------------------------------------------

    async def card(self, code: str) -> RoomCard:
        """The card of a room code as typed; RoomNotFound."""
        code = normalize_code(code)
        card = await self.board.get(code) if is_room_code(code) else None
        if card is None:
            raise RoomNotFound()
        return card

    async def cards(self) -> list[RoomCard]:
        """Every card kept; those of rooms over for longer than a finished room is kept
        are forgotten on the way."""
        now = self.now_ms
        kept = []
        for card in await self.board.cards():
            ended = card.finished_ms
            if (card.over or card.closed) and ended is not None and now - ended >= FINISHED_ROOM_MS:
                await self.board.remove(card.code)
            else:
                kept.append(card)
        return kept

    async def read(self) -> list[Room]:
        """Every room as it is now, its match's latest snapshot and place in the queue
        with it: copies for reading (the lobby, the limits), taking no hold."""
        rooms = [room_of(card) for card in await self.cards()]
        remote = [room for room in rooms if room.handed_over and not room.closed]
        latest = await asyncio.gather(*(self.host.feed.latest(room.code) for room in remote))
        places = queue_places(card_of(room) for room in remote)
        for room, views in zip(remote, latest, strict=True):
            if views is not None:
                room.remote = views.room
                room.version = max(room.version, views.version)
            if room.code in places:
                room.queued, room.queue_place = True, places[room.code]
        return rooms

    def expired(self, room: Room) -> bool:
        """A waiting room nobody completed in time (closed by the next pass or change)."""
        return (
            not room.handed_over
            and not room.closed
            and (self.now_ms - room.created_ms >= WAITING_ROOM_MS)
        )

    async def shown(self, card: RoomCard, viewer: str = "") -> RoomSnapshot:
        """The room as `viewer` sees it: from its match's latest views once handed over
        (this process's own when it hosts the match, else the feed's: they say what each
        owner sees), else from its card."""
        latest = self.host.views(card.code)
        if latest is None and card.handed_over:
            latest = await self.host.feed.latest(card.code)
        if latest is None:
            return self.host.view(room_of(card), viewer)
        return msgspec.structs.replace(latest.seen_by(viewer), server_now_ms=self.now_ms)

    # -- changing ----------------------------------------------------------------------

    @asynccontextmanager
    async def holding(self, names: Iterable[str]) -> AsyncIterator[None]:
        """The holds of `names` (room codes, `limit_names`), always taken in one order
        so two changes never wait on each other."""
        async with contextlib.AsyncExitStack() as holds:
            for name in sorted(set(names)):
                await holds.enter_async_context(self.board.hold(name))
            yield

    async def unfinished(self) -> tuple[list[RoomCard], list[Room]]:
        """Every card kept, and the rooms not over among them (nor expired): what the
        limits of a create or a join count."""
        cards = await self.cards()
        rooms = [room_of(card) for card in cards if not (card.over or card.closed)]
        return cards, [room for room in rooms if not self.expired(room)]

    async def add(self, room: Room) -> bool:
        """Keep a new room's card and publish its first views; False when its code is
        taken (nothing published then)."""
        room.version += 1
        if not await self.board.add(card_of(room)):
            room.version -= 1
            return False
        self.host.show(room)
        await self.host.published(room)
        return True

    async def put(self, room: Room) -> None:
        """Publish the changed room's views, then write its card (under its hold)."""
        self.host.changed(room)
        await self.host.published(room)
        await self.board.put(card_of(room))

    async def close(self, room: Room) -> None:
        """Close a room no match was played in (everybody left, nobody came, its match
        withdrawn): its last views out, its feed ended, its card kept as closed."""
        room.closed = True
        room.finished_ms = self.now_ms
        room.queued, room.queue_place = False, None
        self.host.changed(room)
        self.host.close(room)
        await self.host.published(room)
        await self.board.put(card_of(room))

    def hand_over(self, room: Room, cards: Iterable[RoomCard]) -> None:
        """Both seats filled: the room waits for its match's host (PLACEMENT), at its
        place in B10's fair order: its rank among the matches handed over and not over
        (`fair_order.py`), kept on its card; hosts take the matches in that order
        (`in_line`) and `queue_places` shows it."""
        others = [
            card
            for card in cards
            if card.code != room.code and card.handed_over and not (card.over or card.closed)
        ]
        room.handed_over = True
        room.handed_ms = self.now_ms
        room.queue_rank = rank_among(
            room.queue_tags(), (room_of(card).queue_tags() for card in others)
        )
        room.queued = not room.ladder
        places = queue_places([*others, card_of(room)])
        room.queue_place = places.get(room.code) if room.queued else None

    async def queue_match(self, room: Room) -> None:
        """Queue the match of a handed-over room (again: a no-op while it is queued) at
        its place in the fair order (`in_line`)."""
        try:
            await self._jobs.enqueue(MATCH_JOB, spec_of(room), room.code, in_line(room))
        except JobError:
            raise Busy() from None

    async def show_places(self) -> None:
        """The places of the matches waiting for a host, published where they changed
        (`show_places`): after a room's match was handed over or withdrawn, outside any
        hold."""
        await show_places(self.board, self.host)


def limit_names(owner: str, address: str) -> list[str]:
    """The holds of the limits a create or a join counts against: the owner's live rooms
    (B5) and the address's spectacle (B10). Not room codes (those are 6 characters with
    no colon), so a limit's hold never stands in a room's way."""
    return [name for name in (owner and f"owner:{owner}", address and f"address:{address}") if name]


def involving(rooms: Iterable[Room], who: str) -> int:
    """Of rooms not over, those `who` sits in, answers for a seat of, or seated a bot in."""
    return sum(1 for room in rooms if room.involves(who))


def spectacles_of(rooms: Iterable[Room], address: str) -> int:
    """Of rooms not over, the spectacles (two built-in bots) `address` seated a side of."""
    return sum(1 for room in rooms if room.spectacle_of(address))


async def show_places(
    board: RoomBoard, host: RoomHost, cards: Iterable[RoomCard] | None = None
) -> None:
    """Publish the place of each room's match waiting for a host whose latest views
    show another (one ahead of it was taken, or left, or one of a better rank came in
    ahead of it): after each such change, and on the board's pass. `cards`: the board
    as just read (read now when None)."""
    cards = list(await board.cards() if cards is None else cards)
    feed = host.feed
    for code, place in queue_places(cards).items():
        latest = await feed.latest(code)
        if latest is None or latest.room.queue_place == place or latest.room.phase != "PLACEMENT":
            continue
        async with board.hold(code):
            card = await board.get(code)
            if card is None or card.worker or card.over or card.closed:
                continue
            version = max(card.version, latest.version) + 1
            await feed.publish(
                code,
                latest.replaced(queue_place=place, version=version, server_now_ms=host.clock.now_ms()),
            )
            await board.put(msgspec.structs.replace(card, version=version))
