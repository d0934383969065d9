"""AbandonLostMatches: on several machines (spec B9, "Faults"), the matches of a worker
that died. Every noitu process runs it every few seconds: a room whose card names a
worker that stopped beating (`RoomBoard.alive`) has its match ended as ABANDONED —
nobody wins — in the archive, its final snapshot published from the latest one, its
feed closed (viewers get `end`), and its card marked over. The room is held while this
is done, so one process does it once. Rooms whose match waits for a worker are queued
again (a no-op while their job is queued), so a job lost with Redis is not a room
stuck in PLACEMENT, and each shows its place among them (`queuePlace`) as it changes.
"""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import Busy
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cards import queue_places
from noitu.application.arena.rooms.cluster_ports import WORKER_TTL_MS, RoomCard
from noitu.application.arena.rooms.room import RoomPhase
from noitu.application.arena.rooms.snapshot import ResultView
from noitu.application.arena.storage import MatchArchive, StorageUnavailable
from noitu.domain.arena.match import EndReason, Result


class AbandonLostMatches:
    def __init__(self, rooms: BoardRooms, archive: MatchArchive) -> None:
        self._rooms = rooms
        self._archive = archive
        #: Since when this process has reached the board without a break: a worker's
        #: missing beat means it died only if the board was there to receive it.
        self._reachable_since: int | None = None

    async def __call__(self) -> int:
        """One pass; how many matches were abandoned. `Busy` when the board is away."""
        now = self._rooms.host.clock.now_ms()
        try:
            return await self._pass(now)
        except Busy:
            self._reachable_since = None
            raise

    async def _pass(self, now: int) -> int:
        board = self._rooms.board
        if self._reachable_since is None:
            self._reachable_since = now
        # After an outage, workers get a whole time to live to beat again.
        judging = now - self._reachable_since >= WORKER_TTL_MS
        abandoned = 0
        cards = await self._rooms.cards()
        places = queue_places(cards)
        for card in cards:
            if not card.handed_over or card.over or card.closed:
                continue
            if not card.worker:
                await self._rooms.queue_match(card.code)
                if card.code in places:
                    await self._show_place(card.code, places[card.code])
                continue
            if not judging or await board.alive(card.worker):
                continue
            async with board.hold(card.code):
                now = await board.get(card.code)
                if now is None or now.over or now.closed or now.worker != card.worker:
                    continue
                try:
                    await self._abandon(now)
                except StorageUnavailable:
                    continue  # the database is away: the next pass tries again
                abandoned += 1
        return abandoned

    async def _show_place(self, code: str, place: int) -> None:
        """Publish the room's place among the matches waiting for a worker, when its
        latest snapshot shows another (the rooms ahead of it were taken meanwhile)."""
        feed = self._rooms.host.feed
        latest = await feed.latest(code)
        if latest is None or latest.queue_place == place or latest.phase != "PLACEMENT":
            return
        board = self._rooms.board
        async with board.hold(code):
            card = await board.get(code)
            if card is None or card.worker or card.over or card.closed:
                return
            version = max(card.version, latest.version) + 1
            now_ms = self._rooms.host.clock.now_ms()
            await feed.publish(
                code,
                msgspec.structs.replace(
                    latest, queue_place=place, version=version, server_now_ms=now_ms
                ),
            )
            await board.put(msgspec.structs.replace(card, version=version))

    async def _abandon(self, card: RoomCard) -> None:
        host = self._rooms.host
        feed = host.feed
        now_ms = host.clock.now_ms()
        latest = await feed.latest(card.code)
        turns = 0 if latest is None else latest.turn
        if card.match_id is not None:
            result = Result(None, EndReason.ABANDONED, turns)
            await self._archive.finish_match(card.match_id, result, now_ms, None)
        version = card.version if latest is None else max(card.version, latest.version)
        if latest is not None:
            final = msgspec.structs.replace(
                latest,
                phase=RoomPhase.ABANDONED.value,
                version=version + 1,
                mine=(),
                current_player=None,
                thinking=None,
                deadline_ms=None,
                placement_deadline_ms=None,
                server_now_ms=now_ms,
                legal_actions=(),
                queue_place=0,
                result=ResultView(None, EndReason.ABANDONED.value, turns, None),
                match_id=card.match_id,
                replay_ready=False,
            )
            await feed.publish(card.code, final)
        await feed.close(card.code)
        await self._rooms.board.put(
            msgspec.structs.replace(card, version=version + 1, over=True, finished_ms=now_ms)
        )

