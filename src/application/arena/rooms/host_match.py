"""HostMatch: a worker's side of a match job (spec B9). The worker takes the room from
the board (its card names this worker from then on, so no other takes it), runs its
match with the same `StartMatch` as one machine (recorded, placed, played, archived,
every snapshot published), and answers the room's requests from the `RoomDesk` with
the same use cases as one machine, until the match is over and its feed closed; the
card then says the match is over. A room closed, or taken by another worker, before
this one took it is left alone.

A job cut short (the worker stops past its grace) abandons the match, as a server's
stop does on one machine.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from noitu.application.arena.errors import BadRequest, Busy, GameError
from noitu.application.arena.jobs import MatchJob, MatchVerdict
from noitu.application.arena.rooms.cards import card_of, room_of
from noitu.application.arena.rooms.cluster_ports import DeskReply, DeskRequest, RoomBoard, RoomDesk
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.ports import MatchStarter
from noitu.application.arena.rooms.room import Room
from noitu.application.arena.rooms.snapshot import RoomSnapshot

#: How long a match cut short may take to be archived and its feed closed (seconds).
WIND_DOWN_S = 10.0
#: How often a running match's card is written again (seconds; the board forgets a
#: card not written for two hours).
KEEP_CARD_S = 15 * 60.0
#: After the desk's broker failed, how long before listening again (seconds).
RELISTEN_S = 0.5


class DeskUseCase:
    """A use case a room's request runs, and the command type it decodes."""

    def __init__(
        self, command: type[Any], use_case: Callable[[Any], Awaitable[RoomSnapshot]]
    ) -> None:
        self.command = command
        self.use_case = use_case
        self._decoder = msgspec.json.Decoder(command)

    def decode(self, raw: msgspec.Raw) -> Any:
        return self._decoder.decode(raw)


_encoder = msgspec.json.Encoder()


class HostMatch:
    def __init__(
        self,
        board: RoomBoard,
        desk: RoomDesk,
        host: RoomHost,
        start: MatchStarter,
        answers: Mapping[str, DeskUseCase],
        worker: str,
    ) -> None:
        """`answers`: the use case of each request kind (see `forward_room_call`)."""
        self._board = board
        self._desk = desk
        self._host = host
        self._start = start
        self._answers = dict(answers)
        self._worker = worker

    async def __call__(self, job: MatchJob) -> MatchVerdict:
        room = await self._take(job.code)
        if room is None:
            return MatchVerdict(match_id=None)
        serving = asyncio.create_task(self._serve(room.code))
        try:
            try:
                await self._start(room)
            except BaseException:
                if room.live is None and not room.closed:
                    self._host.abandon_waiting(room)  # nothing was started
                raise
            if room.live is None and not room.closed:
                self._host.abandon_waiting(room)  # its seats changed as it was recorded
            await self._write(room)  # the match's id, for whoever abandons it
            await self._until_done(room)
        except asyncio.CancelledError:
            if room.live is not None:
                room.live.abandon()
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._until_done(room)), WIND_DOWN_S)
            raise
        finally:
            serving.cancel()
            await asyncio.gather(serving, return_exceptions=True)
            with contextlib.suppress(Busy):
                await asyncio.shield(self._write(room))
            self._host.forget(room)
        result = room.result
        return MatchVerdict(
            match_id=room.match_id, reason=None if result is None else result.reason.value
        )

    async def _take(self, code: str) -> Room | None:
        async with self._board.hold(code):
            card = await self._board.get(code)
            if card is None or card.closed or card.over or card.worker or not card.handed_over:
                return None
            room = room_of(card)
            room.worker = self._worker
            self._host.registry.remove(code)
            self._host.registry.add(room)
            await self._board.put(card_of(room))
            return room

    async def _write(self, room: Room) -> None:
        async with self._board.hold(room.code):
            await self._board.put(card_of(room))

    async def _until_done(self, room: Room) -> None:
        """Until the match is archived and the room's last snapshot is out; its card
        written again now and then meanwhile, so the board keeps it however long the
        match lasts."""
        while room.live is not None and not room.concluded.is_set():
            try:
                await asyncio.wait_for(room.concluded.wait(), KEEP_CARD_S)
            except TimeoutError:
                with contextlib.suppress(Busy):
                    await self._write(room)
        await self._host.until_sent(
            lambda: room.feed_closed and not room.sending and not room.outbox
        )

    async def _serve(self, code: str) -> None:
        """Answer the room's requests while the match lives here."""
        while True:
            try:
                listening = self._desk.listen(code)
                try:
                    async for asked in listening:
                        await asked.answer(await self.answer(asked.request))
                finally:
                    await listening.aclose()
            except Busy:
                await asyncio.sleep(RELISTEN_S)

    async def answer(self, request: DeskRequest) -> DeskReply:
        """A request judged by its use case: the room as the asker sees it, or why not."""
        try:
            answering = self._answers.get(request.kind)
            if answering is None:
                raise BadRequest(f"Yêu cầu không rõ: {request.kind[:20]}.")
            try:
                command = answering.decode(request.command)
            except (msgspec.DecodeError, msgspec.ValidationError):
                raise BadRequest() from None
            snapshot = await answering.use_case(command)
        except GameError as refused:
            return DeskReply(error=refused.code, message=refused.message)
        return DeskReply(snapshot=msgspec.Raw(_encoder.encode(snapshot)))
