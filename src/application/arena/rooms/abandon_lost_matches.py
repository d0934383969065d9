"""AbandonLostMatches: the board's pass (spec B4, B9 "Faults"), run every few seconds
by every process that serves or hosts rooms. Waiting rooms nobody completed in time are
closed. The matches of a worker that died are abandoned: a room whose card names a
worker that stopped beating (`RoomBoard.alive`) has its match ended as ABANDONED —
nobody wins — in the archive with its replay (what the worker's `ReplayJournal` kept,
ended by that `end`: `lost_replay`), its final snapshot published from the latest one,
its feed closed (viewers get `end`), and its card marked over. The room is held while
this is done, so one process does it once. A match the worker archived before it died
keeps its result and replay; the rest is done as for any other. Rooms whose match
waits for a worker are queued again (a no-op while their job is queued), so a job lost
with Redis is not a room stuck in PLACEMENT, and each shows its place among them
(`queuePlace`) as it changes.
"""

from __future__ import annotations

from dataclasses import replace

from noitu.application.arena.errors import Busy
from noitu.application.arena.replay import Event
from noitu.application.arena.rooms.board_rooms import BoardRooms, show_places
from noitu.application.arena.rooms.cluster_ports import WORKER_TTL_MS, ReplayJournal
from noitu.application.arena.rooms.journaled_replay import lost_replay, turns_played
from noitu.application.arena.rooms.snapshot import result_view
from noitu.application.arena.storage import (
    ArenaFiles,
    MatchArchive,
    StorageError,
    StorageUnavailable,
)
from noitu.domain.arena.match import EndReason, Result
from noitu.domain.arena.room import Room, RoomPhase


class AbandonLostMatches:
    def __init__(
        self,
        rooms: BoardRooms,
        archive: MatchArchive,
        files: ArenaFiles,
        journal: ReplayJournal,
    ) -> None:
        self._rooms = rooms
        self._archive = archive
        self._files = files
        self._journal = journal
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
        await show_places(self._rooms.board, self._rooms.host, cards)
        for card in cards:
            if card.ended:
                continue
            if not card.handed_over:
                if card.expired(now):
                    await self._close_if_expired(card.code)
                continue
            if not card.worker:
                await self._rooms.queue_match(card)
                continue
            if not judging or await board.alive(card.worker):
                continue
            abandoned += await self._abandon_held(card.code, card.worker)
        return abandoned

    async def of_worker(self, worker: str) -> int:
        """A worker's own matches, at its start-up (B9: it abandons only its own): a
        worker restarted under the same name (`NOITU_INSTANCE`) beats again at once, so
        the pass would never judge the matches its previous life left. How many were
        abandoned; `Busy` when the board is away."""
        abandoned = 0
        for card in await self._rooms.cards():
            if card.handed_over and card.worker == worker and not card.ended:
                abandoned += await self._abandon_held(card.code, worker)
        return abandoned

    async def _abandon_held(self, code: str, worker: str) -> int:
        """Abandon the room's match, holding the room, if its card still names
        `worker`; 1 when it did."""
        board = self._rooms.board
        async with board.hold(code):
            card = await board.get(code)
            if card is None or card.ended or card.worker != worker:
                return 0
            try:
                await self._abandon(card)
            except StorageUnavailable:
                return 0  # the database is away: the next pass tries again
            return 1

    async def _close_if_expired(self, code: str) -> None:
        async with self._rooms.board.hold(code):
            card = await self._rooms.board.get(code)
            if card is not None and card.expired(self._rooms.now_ms):
                await self._rooms.close(card)

    async def _abandon(self, card: Room) -> None:
        host = self._rooms.host
        feed = host.feed
        now_ms = host.clock.now_ms()
        latest = await feed.latest(card.code)
        turns = 0 if latest is None else latest.room.turn
        result = Result(None, EndReason.ABANDONED, turns)
        replay: str | None = None
        if card.match_id is not None:
            result, replay = await self._archived(card.match_id, turns, now_ms)
        version = card.version if latest is None else max(card.version, latest.version)
        if latest is not None:
            final = latest.replaced(
                owners_too=False,
                phase=(
                    RoomPhase.ABANDONED
                    if result.reason is EndReason.ABANDONED
                    else RoomPhase.FINISHED
                ).value,
                version=version + 1,
                mine=(),
                current_player=None,
                thinking=None,
                deadline_ms=None,
                placement_deadline_ms=None,
                server_now_ms=now_ms,
                legal_actions=(),
                queue_place=None,
                result=result_view(result),
                turn=result.turns,
                match_id=card.match_id,
                replay_ready=replay is not None,
            )
            await feed.publish(card.code, final)
        await feed.close(card.code)
        await self._rooms.board.put(
            replace(card, version=version + 1, over=True, finished_ms=now_ms)
        )

    async def _archived(self, match_id: str, turns: int, now_ms: int) -> tuple[Result, str | None]:
        """End the match in the archive as ABANDONED with the replay its journal kept;
        its result and replay's name. One the worker archived before it died keeps its
        own. Raises StorageUnavailable when the database is away (the next pass tries
        again: the journal is kept until the archive has the match)."""
        record = await self._archive.get_match(match_id)
        if record is None:
            return Result(None, EndReason.ABANDONED, turns), None
        if record.result is not None:
            await self._forget(match_id)
            return record.result, record.replay
        journaled = await self._journal.events(match_id)
        result = Result(None, EndReason.ABANDONED, max(turns, turns_played(journaled)))
        replay = await self._store_replay(match_id, lost_replay(record, journaled, result))
        await self._archive.finish_match(match_id, result, now_ms, replay)
        await self._forget(match_id)
        return result, replay

    async def _store_replay(self, match_id: str, events: list[Event]) -> str | None:
        writer = self._files.replay_writer(match_id)
        for event in events:
            writer.record(event)
        try:
            return await writer.finish()
        except StorageUnavailable:
            writer.discard()
            raise
        except (OSError, StorageError):
            writer.discard()
            return None  # the result stands without it, as on one machine

    async def _forget(self, match_id: str) -> None:
        try:
            await self._journal.drop(match_id)
        except Busy:
            pass  # it runs out by itself
