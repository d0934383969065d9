"""PlayMatch: a match as one unit of work (issue 31; spec B4, B8, B9). Given a
`MatchSpec` it records, places, plays, archives and publishes the match under the
spec's room code, and answers its `MatchOutcome`. It is the handler of every match
job, a room's or the ladder's: in this process on one machine, on a worker on several
(`NOITU_ARENA_QUEUE=saq`); the same either way.

The room is taken from its card on the board (the card names this host from then on,
so no other takes it; a room closed, or taken by another host, before this one took it
is left alone); its requests come through the `RoomDesk` and are answered by the
match's use cases (`PlacePieces`, `PlayAction`, `Surrender`, `LeaveMatch`); the card
is written again when the match is made, now and then while it lasts, and once it is
over. `StartMatch` makes and conducts the match; this waits until it is archived and
the room's last snapshot is out. A job cut short (a worker stopping past its grace, a
server stopping) abandons the match.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec

from noitu.application.arena.errors import BadRequest, Busy, GameError
from noitu.application.arena.jobs import MatchOutcome, MatchSpec
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


class PlayMatch:
    def __init__(
        self,
        host: RoomHost,
        start: MatchStarter,
        board: RoomBoard,
        desk: RoomDesk,
        answers: Mapping[str, DeskUseCase],
        worker: str,
    ) -> None:
        """`answers`: the use case of each request kind (`forward_room_call`);
        `worker`: this host's name on the cards (its NOITU_INSTANCE)."""
        self._host = host
        self._start = start
        self._board = board
        self._desk = desk
        self._answers = dict(answers)
        self._worker = worker

    async def __call__(self, spec: MatchSpec) -> MatchOutcome:
        """Play the match (none when its room was closed, or taken, meanwhile)."""
        room = await self._take(spec)
        if room is None:
            return MatchOutcome(match_id=None)
        serving = asyncio.create_task(self._serve(room))
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
        return MatchOutcome(
            match_id=room.match_id,
            result=room.result if room.archived else None,
            ended_ms=room.finished_ms,
        )

    async def _take(self, spec: MatchSpec) -> Room | None:
        host = self._host
        async with self._board.hold(spec.code):
            card = await self._board.get(spec.code)
            if card is None or card.closed or card.over or card.worker or not card.handed_over:
                return None
            room = room_of(card)
            room.worker = self._worker
            room.queued, room.queue_place = False, None
            host.registry.remove(spec.code)
            host.registry.add(room)
            await self._board.put(card_of(room))
        # The matches behind it move up: the board's pass shows it (every 5 s), not the
        # host, whose every take would otherwise publish every waiting room again.
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

    async def _serve(self, room: Room) -> None:
        """Answer the room's requests while the match lives here: each once the change
        it made is in the feed, so a look asked on any instance after the answer shows
        it (looks are the feed's: `RoomViews`)."""
        while True:
            try:
                listening = self._desk.listen(room.code)
                try:
                    async for asked in listening:
                        reply = await self.answer(asked.request)
                        await self._host.published(room)
                        await asked.answer(reply)
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
