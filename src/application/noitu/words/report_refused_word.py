"""`api/report-word`: the solo player reports the word they were just refused (B11)."""

from __future__ import annotations

import msgspec

from noitu.application.errors import GameError
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.application.noitu.words.file_report import FileReport, ReportAnswer
from noitu.application.noitu.words.messages import NOT_REFUSED
from noitu.domain.noitu.spelling import normalize


class ReportWordCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session: str
    word: str


class NotRefused(GameError):
    code = "word_not_refused"
    default_message = NOT_REFUSED


class ReportRefusedWord:
    def __init__(self, sessions: Sessions, file_report: FileReport) -> None:
        self._sessions = sessions
        self._file = file_report

    async def __call__(self, command: ReportWordCommand) -> ReportAnswer:
        work = await self._sessions.change(command.session, _read, touch=False)
        session = work.session
        if not session.refused or normalize(command.word) != session.refused:
            raise NotRefused()
        return await self._file(session.refused, session.user_id, session.ticket.message.chat_id)


def _read(work: SessionWork) -> SessionWork:
    return work
