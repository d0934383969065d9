"""A session as compact JSON: chain words by their text, so a session survives a rebuild
of the dictionary that renumbers the words."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.session import GameMessage, ReportState, Session, Ticket
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.game import EndReason, Game, Status
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import TurnClock


class _TicketRecord(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    u: int
    e: int
    n: str = ""
    c: int | None = None
    m: int | None = None
    i: str | None = None
    t: int | None = None


class _LinkRecord(msgspec.Struct, array_like=True):
    word: str
    by: str
    points: int


class _GameRecord(msgspec.Struct, omit_defaults=True):
    difficulty: str
    chain: list[_LinkRecord]
    status: str
    deadline: int = 0
    ended: int = 0
    score: int = 0
    reason: str = ""
    suggestions: list[str] = []


class _SessionRecord(msgspec.Struct, omit_defaults=True):
    ticket: _TicketRecord
    game: _GameRecord
    created: int
    active: int
    last_move: int = 0
    report: str = ""
    replaced_by: str = ""
    format: int = 1


class SnapshotError(ValueError):
    """A stored session this server cannot rebuild (e.g. a word its dictionary lacks)."""


class SessionCodec:
    """Session <-> JSON. Words travel as text and are looked up again on the way back."""

    def __init__(self, lexicon: Lexicon, clock: TurnClock) -> None:
        self._lexicon = lexicon
        self._clock = clock
        self._encoder = msgspec.json.Encoder()
        self._decoder = msgspec.json.Decoder(_SessionRecord)

    def encode(self, session: Session) -> bytes:
        """UTF-8 JSON, as Redis stores it (the client sends bytes as they are)."""
        game = session.game
        words = self._lexicon.words
        ticket = session.ticket
        message = ticket.message
        record = _SessionRecord(
            ticket=_TicketRecord(
                u=ticket.user_id,
                e=ticket.expires_at,
                n=ticket.first_name,
                c=message.chat_id,
                m=message.message_id,
                i=message.inline_message_id,
                t=message.topic_id,
            ),
            game=_GameRecord(
                difficulty=game.difficulty.value,
                chain=[_LinkRecord(l.word.text, l.by.value, l.points) for l in game.chain.links],
                status=game.status.value,
                deadline=game.deadline_ms,
                ended=game.ended_ms,
                score=game.score,
                reason=game.end_reason.value if game.end_reason else "",
                suggestions=[words[w] for w in game.suggestions],
            ),
            created=session.created_ms,
            active=session.last_active_ms,
            last_move=session.last_move_ms,
            report=session.report.value,
            replaced_by=session.replaced_by,
        )
        return self._encoder.encode(record)

    def decode(self, session_id: str, data: str | bytes, version: int) -> Session:
        try:
            record = self._decoder.decode(data)
            ticket = record.ticket
            game = record.game
            restored = Game.restore(
                self._lexicon,
                self._clock,
                Difficulty(game.difficulty),
                [(self._word(link.word), Side(link.by), link.points) for link in game.chain],
                status=Status(game.status),
                end_reason=EndReason(game.reason) if game.reason else None,
                deadline_ms=game.deadline,
                ended_ms=game.ended,
                score=game.score,
                suggestions=[self._word(w) for w in game.suggestions],
            )
            return Session(
                id=session_id,
                ticket=Ticket(
                    user_id=ticket.u,
                    first_name=ticket.n,
                    message=GameMessage(
                        chat_id=ticket.c,
                        message_id=ticket.m,
                        inline_message_id=ticket.i,
                        topic_id=ticket.t,
                    ),
                    expires_at=ticket.e,
                ),
                game=restored,
                created_ms=record.created,
                last_active_ms=record.active,
                last_move_ms=record.last_move,
                report=ReportState(record.report),
                replaced_by=record.replaced_by,
                version=version,
            )
        except (msgspec.DecodeError, ValueError, KeyError) as error:
            raise SnapshotError(f"session {session_id}: {error}") from error

    def _word(self, text: str) -> int:
        found = self._lexicon.word_ids.get(text)
        if found is None:
            found = self._lexicon.resolve(text)
        if found is None:
            raise KeyError(f"{text!r} is not in this server's dictionary")
        return found
