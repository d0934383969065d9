"""FailureDetails: for the owner of an uploaded bot seated in a match only (spec B3,
B5): why it failed (the B3 code and its detail) and the last 8 KiB of its stderr. The
page shows everybody else BOT_FAILED and the code alone.

The stderr tails are in the room from the moment its result is (taken as the match
ended), and in the archive from the write that finished the match: they survive the
room (forgotten 30 minutes after the end) and a restart, like the failure's detail."""

from __future__ import annotations

import msgspec

from noitu.application.arena.errors import MatchNotFound, NotOwner
from noitu.application.arena.records import Seat, is_match_id
from noitu.application.arena.replay import SeatKind
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.seating import check_owner
from noitu.application.arena.storage import MatchArchive
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.match import Result


class FailureDetailsCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    match_id: str
    owner: str


class BotDetails(msgspec.Struct, frozen=True, rename="camel"):
    player: str
    bot_id: str
    failure_code: str | None  # set when this bot lost by failing
    detail: str | None
    stderr: str  # the last bytes it wrote to stderr while the match lasted


class FailureDetailsResult(msgspec.Struct, frozen=True, rename="camel"):
    match_id: str
    bots: tuple[BotDetails, ...]  # the owner's bots in this match


class FailureDetails:
    def __init__(self, host: RoomHost, archive: MatchArchive) -> None:
        self._host = host
        self._archive = archive

    async def __call__(self, command: FailureDetailsCommand) -> FailureDetailsResult:
        who = check_owner(command.owner)
        match_id = command.match_id.strip().upper()
        if not is_match_id(match_id):
            raise MatchNotFound()
        room = self._host.room_of_match(match_id)
        seats: list[Seat]
        result: Result | None
        stderr: tuple[bytes, bytes]
        if room is not None:
            seats = [Seat.held(held) for held in room.card.seats if held is not None]
            result, stderr = room.result, room.stderr
        else:
            record = await self._archive.get_match(match_id)
            if record is None:
                raise MatchNotFound()
            seats, result = list(record.seats), record.result
            stderr = await self._archive.match_stderr(match_id) or (b"", b"")
        failure = None if result is None else result.failure
        mine = tuple(
            BotDetails(
                side.value,
                seat.ref,
                failure.code.value if failure is not None and failure.side is side else None,
                failure.detail if failure is not None and failure.side is side else None,
                stderr[side.number].decode("utf-8", "replace"),
            )
            for side, seat in zip(SIDES, seats)
            if seat.kind is SeatKind.UPLOAD and seat.owner == who
        )
        if not mine:
            raise NotOwner("Chỉ chủ của bot trong trận mới xem được chi tiết lỗi.")
        return FailureDetailsResult(match_id, mine)
