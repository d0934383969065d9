"""BoardRooms: the rooms as every process finds them (issue 31: one room runtime, on one
machine and on several alike). A room is its card on the board (`RoomBoard`: in memory
on one machine, on Redis for several; the card is the domain's frozen `Room`), its
views in the feed, and once both seats are filled its match handed to the queue: the
job carries the card, and a match's host takes it (`PlayMatch`: in this process on one
machine, on a worker on several).

A room use case changes one card under that card's hold (and under the holds of the
limits it counts against, `limit_names`): it makes the new card, publishes its views
(its version one more) and writes it. Nothing else of the board is copied or written.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import replace

import msgspec

from noitu.application.arena.errors import Busy, RoomNotFound
from noitu.application.arena.fair_order import Waiting, in_fair_order, rank_among
from noitu.application.arena.jobs import MATCH_JOB, InLine, JobError, Jobs
from noitu.application.arena.rooms.cluster_ports import RoomBoard
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.domain.arena.room import Room, is_room_code, normalize_code


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

    async def card(self, code: str) -> Room:
        """The card of a room code as typed; RoomNotFound."""
        code = normalize_code(code)
        card = await self.board.get(code) if is_room_code(code) else None
        if card is None:
            raise RoomNotFound()
        return card

    async def cards(self) -> list[Room]:
        """Every card kept; those of rooms over for longer than a finished room is kept
        are forgotten on the way."""
        now = self.now_ms
        kept = []
        for card in await self.board.cards():
            if card.forgotten(now):
                await self.board.remove(card.code)
            else:
                kept.append(card)
        return kept

    async def shown(self, card: Room, viewer: str = "") -> RoomSnapshot:
        """The room as `viewer` sees it: from its match's latest views once handed over
        (this process's own when it hosts the match, else the feed's: they say what each
        owner sees), else from its card."""
        latest = self.host.views(card.code)
        if latest is None and card.handed_over:
            latest = await self.host.feed.latest(card.code)
        if latest is None:
            return self.host.view(card, viewer)
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

    async def unfinished(self) -> tuple[list[Room], list[Room]]:
        """Every card kept, and the rooms not over among them (nor expired): what the
        limits of a create or a join count."""
        cards = await self.cards()
        now = self.now_ms
        return cards, [card for card in cards if not (card.ended or card.expired(now))]

    async def add(self, card: Room, queue_place: int | None = None) -> Room | None:
        """Keep a new room's card and publish its first views; None when its code is
        taken (nothing published then)."""
        card = replace(card, version=card.version + 1)
        if not await self.board.add(card):
            return None
        self.host.show(card, queue_place)
        await self.host.published(card.code)
        return card

    async def put(self, card: Room, queue_place: int | None = None) -> Room:
        """Publish the changed room's views (its version one more), then write its card
        (under its hold)."""
        card = replace(card, version=card.version + 1)
        self.host.show(card, queue_place)
        await self.host.published(card.code)
        await self.board.put(card)
        return card

    async def close(self, card: Room) -> Room:
        """Close a room no match was played in (everybody left, nobody came, its match
        withdrawn): its last views out, its feed ended, its card kept as closed."""
        card = replace(card, closed=True, finished_ms=self.now_ms, version=card.version + 1)
        self.host.show(card)
        self.host.close(card)
        await self.host.published(card.code)
        await self.board.put(card)
        return card

    def hand_over(self, card: Room, cards: Iterable[Room]) -> tuple[Room, int | None]:
        """Both seats filled: the room waits for its match's host (PLACEMENT), at its
        place in B10's fair order: its rank among the matches handed over and not over
        (`fair_order.py`), kept on its card; hosts take the matches in that order
        (`in_line`) and `queue_places` shows it. The card, and its place (None for a
        ladder match)."""
        others = [
            other for other in cards
            if other.code != card.code and other.handed_over and not other.ended
        ]
        card = replace(
            card,
            handed_over=True,
            handed_ms=self.now_ms,
            queue_rank=rank_among(card.queue_tags(), (other.queue_tags() for other in others)),
        )
        return card, queue_places([*others, card]).get(card.code)

    async def queue_match(self, card: Room) -> None:
        """Queue the match of a handed-over room (again: a no-op while it is queued) at
        its place in the fair order (`in_line`)."""
        try:
            await self._jobs.enqueue(MATCH_JOB, card, card.code, in_line(card))
        except JobError:
            raise Busy() from None

    async def show_places(self) -> None:
        """The places of the matches waiting for a host, published where they changed
        (`show_places`): after a room's match was handed over or withdrawn, outside any
        hold."""
        await show_places(self.board, self.host)


def in_line(card: Room) -> InLine:
    """The room's match's place in the queue's fair order, as its card keeps it: who
    seated its sides, its kind, and its rank and arrival from when it was handed over."""
    waiting = waiting_of(card)
    return InLine(
        tags=waiting.tags, spectacle=waiting.spectacle, ladder=waiting.ladder,
        rank=waiting.rank, arrival_ms=waiting.arrival,
    )


def waiting_of(card: Room) -> Waiting:
    """The room's match as one in the fair order's line (what `in_line` says)."""
    arrival = card.handed_ms if card.handed_ms is not None else card.created_ms
    return Waiting(
        card.code, card.queue_tags(), card.queue_rank, arrival, card.spectacle, card.ladder
    )


def queue_places(cards: Iterable[Room]) -> dict[str, int]:
    """The place, from 1, of each room's match waiting for a host (B9: room matches
    ahead of it across the cluster), in B10's fair order — the one the hosts take them
    in (`InLine`); the ladder's matches wait behind the rooms' and have none."""
    waiting = in_fair_order(waiting_of(card) for card in cards if card.waits_for_a_host)
    rooms = [entry for entry in waiting if not entry.ladder]
    return {entry.key: place for place, entry in enumerate(rooms, start=1)}


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
    board: RoomBoard, host: RoomHost, cards: Iterable[Room] | None = None
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
            if card is None or card.worker or card.ended:
                continue
            version = max(card.version, latest.version) + 1
            await feed.publish(
                code,
                latest.replaced(queue_place=place, version=version, server_now_ms=host.clock.now_ms()),
            )
            await board.put(replace(card, version=version))
