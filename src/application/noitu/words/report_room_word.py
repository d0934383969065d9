"""`api/room/report-word`: a room member reports the word they were just refused (B11).

The rooms' move stays as it is: `RememberRoomRefusals` wraps it and keeps each member's
last `not_in_dictionary` word beside the room."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.rooms.commands import RoomMoveCommand
from noitu.application.noitu.rooms.play_room_move import PlayRoomMove, RoomMoveResult
from noitu.application.noitu.rooms.unit_of_work import Rooms
from noitu.application.noitu.words.file_report import FileReport, ReportAnswer
from noitu.application.noitu.words.report_ports import RefusalMemory
from noitu.application.noitu.words.report_refused_word import NotRefused
from noitu.domain.noitu.rules import Rejection
from noitu.domain.noitu.spelling import normalize


class RoomReportWordCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    member: str
    word: str


class RememberRoomRefusals:
    """PlayRoomMove, and the member's word remembered when it is not in the dictionary."""

    def __init__(self, play: PlayRoomMove, refusals: RefusalMemory) -> None:
        self._play = play
        self._refusals = refusals

    async def __call__(self, command: RoomMoveCommand) -> RoomMoveResult:
        result = await self._play(command)
        if result.result.reason == Rejection.NOT_IN_DICTIONARY.value:
            await self._refusals.remember(command.member, normalize(command.word))
        return result


class ReportRoomWord:
    def __init__(self, rooms: Rooms, refusals: RefusalMemory, file_report: FileReport) -> None:
        self._rooms = rooms
        self._refusals = refusals
        self._file = file_report

    async def __call__(self, command: RoomReportWordCommand) -> ReportAnswer:
        async with self._rooms.open_as(command.member) as work:
            user_id, chat_id = work.user_id, work.record.card.chat_id
        refused = await self._refusals.recall(command.member)
        if not refused or normalize(command.word) != refused:
            raise NotRefused()
        return await self._file(refused, user_id, chat_id)
