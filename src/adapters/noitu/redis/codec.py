"""A session as compact JSON: chain words by their text, so a session survives a rebuild
of the dictionary that renumbers the words.

A chain only grows, and every move writes the whole snapshot, so the encoder keeps each
session's encoded words (`ChainEncodings`) and encodes only the words played since: on a
251-word chain the snapshot's encoding was the largest piece of a move's CPU that was
ours. The kept text is used only when the chain it was made from is the same objects up
to its last word (a chain is copied by sharing its immutable links), so a chain decoded
again, or any other chain, is encoded whole.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import msgspec

from noitu.application.noitu.session import GameMessage, ReportState, Session, Ticket
from noitu.domain.noitu.chain import Link, Side
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
    d: bool = False  # a daily game's link (B13)


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


class _GameRecordOut(_GameRecord):
    """`_GameRecord` as written: the chain is JSON made beforehand (`ChainEncodings`).
    msgspec keeps an overridden field in its place, with the same options."""

    chain: msgspec.Raw  # type: ignore[assignment]


class _SessionRecord(msgspec.Struct, omit_defaults=True):
    ticket: _TicketRecord
    game: _GameRecord
    created: int
    active: int
    last_move: int = 0
    report: str = ""
    new_record: bool = False
    replaced_by: str = ""
    refused: str = ""
    day: int = 0  # a daily game's day (B13)
    format: int = 1


class _SessionRecordOut(_SessionRecord):
    game: _GameRecordOut  # type: ignore[assignment]


class ChainEncodings:
    """The JSON of each session's chain as last written, by session id (the `cache_size`
    most recently written; the least recently used is forgotten first)."""

    def __init__(self, cache_size: int) -> None:
        self._size = max(0, cache_size)
        # session id -> (the last link encoded, how many, their records joined by commas)
        self._kept: OrderedDict[str, tuple[Link, int, bytes]] = OrderedDict()
        self._encode = msgspec.json.Encoder().encode

    def encode(self, session_id: str, links: Sequence[Link]) -> bytes:
        """The chain as a JSON array of `[word, by, points]`, from the kept text when
        `links` extends the chain it was made from."""
        count = len(links)
        kept = self._kept.pop(session_id, None)
        if kept is not None and 0 < kept[1] <= count and links[kept[1] - 1] is kept[0]:
            done, body = kept[1], kept[2]
        else:
            done, body = 0, b""
        if done < count:
            encode = self._encode
            fresh = b",".join(
                encode(_LinkRecord(link.word.text, link.by.value, link.points))
                for link in links[done:]
            )
            body = body + b"," + fresh if body else fresh
        if count and self._size:
            self._kept[session_id] = (links[-1], count, body)
            if len(self._kept) > self._size:
                self._kept.popitem(last=False)
        return b"[" + body + b"]"

    def forget(self, session_id: str) -> None:
        self._kept.pop(session_id, None)


class SnapshotError(ValueError):
    """A stored session this server cannot rebuild (e.g. a word its dictionary lacks)."""


class SessionCodec:
    """Session <-> JSON. Words travel as text and are looked up again on the way back."""

    def __init__(self, lexicon: Lexicon, clock: TurnClock, kept_chains: int = 0) -> None:
        self._lexicon = lexicon
        self._clock = clock
        self.chains = ChainEncodings(kept_chains)
        self._encoder = msgspec.json.Encoder()
        self._decoder = msgspec.json.Decoder(_SessionRecord)

    def encode(self, session: Session) -> bytes:
        """UTF-8 JSON, as Redis stores it (the client sends bytes as they are)."""
        game = session.game
        words = self._lexicon.words
        ticket = session.ticket
        message = ticket.message
        record = _SessionRecordOut(
            ticket=_TicketRecord(
                u=ticket.user_id,
                e=ticket.expires_at,
                n=ticket.first_name,
                c=message.chat_id,
                m=message.message_id,
                i=message.inline_message_id,
                t=message.topic_id,
                d=ticket.daily,
            ),
            game=_GameRecordOut(
                difficulty=game.difficulty.value,
                chain=msgspec.Raw(self.chains.encode(session.id, game.chain.links)),
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
            new_record=session.new_record,
            replaced_by=session.replaced_by,
            refused=session.refused,
            day=session.day,
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
                    daily=ticket.d,
                ),
                game=restored,
                created_ms=record.created,
                last_active_ms=record.active,
                last_move_ms=record.last_move,
                report=ReportState(record.report),
                new_record=record.new_record,
                replaced_by=record.replaced_by,
                refused=record.refused,
                day=record.day,
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
