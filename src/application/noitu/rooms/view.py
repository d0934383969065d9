"""The member's view of a room (spec B10 "The view"): what the page and the feed show."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.rooms.record import RoomRecord
from noitu.application.noitu.view import MeaningView, meanings_of
from noitu.domain.noitu.room import RoomLimits
from noitu.domain.noitu.room_result import RoomResult
from noitu.domain.noitu.rules import TurnClock


class RoomPlayerView(msgspec.Struct, frozen=True):
    seat: int
    name: str
    bot: bool
    alive: bool
    out_reason: str
    score: int


class RoomLinkView(msgspec.Struct, frozen=True):
    word: str
    by: str  # bot (the opening and the bot seat) or player
    seat: int  # 0: the server's opening
    name: str
    points: int
    meanings: tuple[MeaningView, ...]


class StandingView(msgspec.Struct, frozen=True):
    seat: int
    name: str
    score: int
    bonus: int
    out_reason: str


class RoomResultView(msgspec.Struct, frozen=True):
    winner: int
    words: int
    standings: list[StandingView]
    score_reported: str


class RoomView(msgspec.Struct, frozen=True):
    status: str  # lobby or playing
    you: int | None  # your seat (in the game, or at the next one), None when watching
    host: int | None  # the host's seat
    players: list[RoomPlayerView]
    watchers: int
    turn: int  # the seat on turn, 0 in the lobby
    current: str  # the syllable to answer ("" before the first game)
    chain: list[RoomLinkView]
    deadline_ms: int
    server_now_ms: int
    turn_limit_ms: int
    max_players: int
    bot: str  # the bot seat's level, "" without one
    result: RoomResultView | None = None


class JoinView(msgspec.Struct, frozen=True):
    member: str
    room: RoomView


class RoomViews:
    def __init__(self, limits: RoomLimits, clock: TurnClock) -> None:
        self._limits = limits
        self._clock = clock

    def of(self, record: RoomRecord, user_id: int, now_ms: int) -> RoomView:
        room, limits = record.room, self._limits
        game = room.game
        host = room.host
        if room.playing and game is not None:
            players = [
                RoomPlayerView(p.seat, p.name, p.bot is not None, p.alive,
                               p.out_reason.value if p.out_reason else "", p.score)
                for p in game.players
            ]
        else:
            players = [
                RoomPlayerView(seat, m.name, m.is_bot, True, "", 0)
                for seat, m in enumerate(room.members[: limits.max_players], start=1)
            ]
        chain: list[RoomLinkView] = []
        current = ""
        if game is not None:
            lexicon = game.lexicon
            names = {p.seat: p.name for p in game.players}
            chain = [
                RoomLinkView(link.word.text, link.by.value, seat, names.get(seat, ""),
                             link.points, meanings_of(lexicon, link.word.id))
                for link, seat in zip(game.chain.links, game.seats, strict=True)
            ]
            current = game.chain.current_syllable
        bot = room.bot
        return RoomView(
            status="playing" if room.playing else "lobby",
            you=room.seat_of(user_id, limits) if room.member(user_id) else None,
            host=room.seat_of(host, limits) if host is not None else None,
            players=players,
            watchers=room.watchers(limits),
            turn=game.turn if room.playing and game is not None else 0,
            current=current,
            chain=chain,
            deadline_ms=game.deadline_ms if room.playing and game is not None else 0,
            server_now_ms=now_ms,
            turn_limit_ms=self._clock.turn_ms,
            max_players=limits.max_players,
            bot=bot.bot.value if bot is not None and bot.bot is not None else "",
            result=self._result(record) if game is not None and game.over else None,
        )

    def _result(self, record: RoomRecord) -> RoomResultView:
        game = record.room.game
        assert game is not None
        result: RoomResult = game.result(self._limits.winner_bonus)
        return RoomResultView(
            winner=result.winner,
            words=result.words,
            standings=[
                StandingView(s.seat, s.name, s.total, s.bonus,
                             s.out_reason.value if s.out_reason else "")
                for s in result.standings
            ],
            score_reported=record.report.value,
        )

