"""PlayMatch: a match as one unit of work (issue 31; spec B4, B8, B9). Given the card of
the room it is played in (a full room's, or a ladder match's) it records, places,
plays, archives and publishes the match under the room's code, and answers its
`MatchOutcome`. It is the handler of every match
job, a room's or the ladder's: in this process on one machine, on a worker on several
(`NOITU_ARENA_QUEUE=saq`); the same either way.

The room is taken as its card on the board says it is (the card names this host from
then on, so no other takes it; a room closed, or taken by another host, before this one took it
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
from dataclasses import replace
from typing import Any

import msgspec

from noitu.application.arena.errors import BadRequest, Busy, GameError
from noitu.application.arena.jobs import MatchOutcome
from noitu.application.arena.rooms.cluster_ports import DeskReply, DeskRequest, RoomBoard, RoomDesk
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.hosted_room import HostedRoom
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.domain.arena.room import Room

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
        start: StartMatch,
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

    async def __call__(self, card: Room) -> MatchOutcome:
        """Play the match (none when its room was closed, or taken, meanwhile)."""
        room = await self._take(card.code)
        if room is None:
            return MatchOutcome(match_id=None)
        serving = asyncio.create_task(self._serve(room))
        try:
            try:
                await self._start(room)
            except BaseException:
                if room.live is None and not room.card.closed:
                    self._host.abandon_waiting(room)  # nothing was started
                raise
            if room.live is None and not room.card.closed:
                self._host.abandon_waiting(room)  # its match could not be made
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
            self._host.forget(room.code)
        return MatchOutcome(
            match_id=room.match_id,
            result=room.result if room.archived else None,
            ended_ms=room.card.finished_ms,
        )

    async def _take(self, code: str) -> HostedRoom | None:
        """The room as its card is now, if no host took it and it is not over: its card
        from the board (its seats may have changed since the job was queued)."""
        async with self._board.hold(code):
            card = await self._board.get(code)
            if card is None or card.ended or card.worker or not card.handed_over:
                return None
            room = self._host.host(replace(card, worker=self._worker))
            await self._board.put(room.card)
        # The matches behind it move up: the board's pass shows it (every 5 s), not the
        # host, whose every take would otherwise publish every waiting room again.
        return room

    async def _write(self, room: HostedRoom) -> None:
        async with self._board.hold(room.code):
            await self._board.put(room.card)

    async def _until_done(self, room: HostedRoom) -> None:
        """Until the match is archived and the room's last snapshot is out; its card
        written again now and then meanwhile, so the board keeps it however long the
        match lasts."""
        while room.live is not None and not room.concluded.is_set():
            try:
                await asyncio.wait_for(room.concluded.wait(), KEEP_CARD_S)
            except TimeoutError:
                with contextlib.suppress(Busy):
                    await self._write(room)
        await self._host.until_sent(lambda: room.feed_closed and self._host.quiet(room.code))

    async def _serve(self, room: HostedRoom) -> None:
        """Answer the room's requests while the match lives here: each once the change
        it made is in the feed, so a look asked on any instance after the answer shows
        it (looks are the feed's: `RoomViews`)."""
        while True:
            try:
                listening = self._desk.listen(room.code)
                try:
                    async for asked in listening:
                        reply = await self.answer(asked.request)
                        await self._host.published(room.code)
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
