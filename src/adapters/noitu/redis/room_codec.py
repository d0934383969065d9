"""A room as compact JSON: chain words by their text (as the session codec does), so a
room survives a rebuild of the dictionary that renumbers the words."""

from __future__ import annotations

import msgspec

from noitu.adapters.noitu.redis.codec import SnapshotError
from noitu.application.noitu.rooms.record import RoomRecord
from noitu.application.noitu.session import GameMessage, ReportState
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.room import Member, Page, Room
from noitu.domain.noitu.room_game import OutReason, Player, RoomGame
from noitu.domain.noitu.rules import TurnClock


class _MemberRecord(msgspec.Struct, array_like=True):
    user: int
    name: str
    bot: str  # "" for a person
    absent: int | None = None  # since when no page of the member holds the feed


class _PageRecord(msgspec.Struct, array_like=True):
    id: str
    user: int
    until: int


class _PlayerRecord(msgspec.Struct, array_like=True):
    seat: int
    user: int
    name: str
    bot: str
    score: int
    out: str
    step: int


class _LinkRecord(msgspec.Struct, array_like=True):
    word: str
    seat: int
    points: int


class _GameRecord(msgspec.Struct):
    players: list[_PlayerRecord]
    chain: list[_LinkRecord]
    turn: int
    deadline: int
    over: bool
    ended: int
    winner: int
    steps: int
    bot_word: str = ""  # the bot seat's word waiting for its pause to end
    bot_due: int = 0


class _RoomRecord(msgspec.Struct, omit_defaults=True):
    chat: int
    message: int
    active: int
    members: list[_MemberRecord]
    topic: int | None = None
    game: _GameRecord | None = None
    games: int = 0
    report: str = ""
    last_moves: dict[int, int] = {}
    host: int | None = None
    pages: list[_PageRecord] = []
    tags: dict[int, str] = {}  # per member, its credential's tag
    format: int = 2


def _level(text: str) -> Difficulty | None:
    return Difficulty(text) if text else None


class RoomCodec:
    def __init__(self, lexicon: Lexicon, turn_clock: TurnClock) -> None:
        self._lexicon = lexicon
        self._turn_clock = turn_clock
        self._encoder = msgspec.json.Encoder()
        self._decoder = msgspec.json.Decoder(_RoomRecord)

    def encode(self, record: RoomRecord) -> str:
        room, card = record.room, record.card
        game = room.game
        words = self._lexicon.words
        stored = _RoomRecord(
            chat=card.chat_id or 0,
            message=card.message_id or 0,
            topic=card.topic_id,
            active=record.last_active_ms,
            members=[_MemberRecord(m.user_id, m.name, m.bot.value if m.bot else "",
                                   m.absent_since_ms)
                     for m in room.members],
            game=None if game is None else _GameRecord(
                players=[
                    _PlayerRecord(p.seat, p.user_id, p.name, p.bot.value if p.bot else "",
                                  p.score, p.out_reason.value if p.out_reason else "", p.out_step)
                    for p in game.players
                ],
                chain=[_LinkRecord(words[w], seat, points) for w, seat, points in game.links()],
                turn=game.turn, deadline=game.deadline_ms, over=game.over,
                ended=game.ended_ms, winner=game.winner, steps=game.steps,
                bot_word=words[game.bot_word] if game.bot_word is not None else "",
                bot_due=game.bot_due_ms,
            ),
            games=record.games,
            report=record.report.value,
            last_moves=dict(record.last_move_ms),
            host=room.host_id,
            pages=[_PageRecord(page_id, p.user_id, p.until_ms)
                   for page_id, p in room.pages.items()],  # in order: the oldest first
            tags=dict(record.credential_tags),
        )
        return self._encoder.encode(stored).decode()

    def decode(self, key: str, data: str, version: int) -> RoomRecord:
        try:
            stored = self._decoder.decode(data)
            room = Room(
                [Member(m.user, m.name, _level(m.bot), m.absent) for m in stored.members],
                host_id=stored.host,
                pages={p.id: Page(p.user, p.until) for p in stored.pages},
            )
            if stored.game is not None:
                room.game = self._game(stored.game)
            return RoomRecord(
                key=key,
                card=GameMessage(chat_id=stored.chat, message_id=stored.message,
                                 topic_id=stored.topic),
                room=room,
                last_active_ms=stored.active,
                games=stored.games,
                report=ReportState(stored.report),
                last_move_ms=dict(stored.last_moves),
                credential_tags=dict(stored.tags),
                version=version,
            )
        except (msgspec.DecodeError, ValueError, KeyError) as error:
            raise SnapshotError(str(error)) from error

    def _word(self, text: str) -> int:
        found = self._lexicon.word_ids.get(text)
        if found is None:
            found = self._lexicon.resolve(text)
        if found is None:
            raise SnapshotError(f"the dictionary has no word {text!r}")
        return found

    def _game(self, stored: _GameRecord) -> RoomGame:
        links = [(self._word(link.word), link.seat, link.points) for link in stored.chain]
        players = [
            Player(p.seat, p.user, p.name, _level(p.bot), p.score,
                   OutReason(p.out) if p.out else None, p.step)
            for p in stored.players
        ]
        return RoomGame.restore(
            self._lexicon, self._turn_clock, players, links, turn=stored.turn,
            deadline_ms=stored.deadline, over=stored.over, ended_ms=stored.ended,
            winner=stored.winner, steps=stored.steps,
            bot_word=self._word(stored.bot_word) if stored.bot_word else None,
            bot_due_ms=stored.bot_due,
        )
