"""GetDaily: the daily game's end screen (spec B13): the day, the player's words and
score, the streak, and the share text with no word of the game in it.

Asked by the page once the game is over (`pending` before). The finished game and the
streak were recorded by the unit of work when the game ended (`Sessions`), so this only
reads them.
"""

from __future__ import annotations

import enum

import msgspec

from noitu.application.noitu.commands import SessionCommand
from noitu.application.noitu.errors import BadRequest
from noitu.application.noitu.messages import DAILY_SHARE, NOT_DAILY
from noitu.application.noitu.ports import DailyGames
from noitu.application.noitu.session import Session
from noitu.application.noitu.unit_of_work import Sessions, SessionWork
from noitu.domain.noitu.chain import Side
from noitu.domain.noitu.players_day import civil_date, iso_date


class DailyStatus(str, enum.Enum):
    PENDING = "pending"  # the game goes on: ask once it is over
    READY = "ready"


class DailyAnswer(msgspec.Struct, frozen=True):
    status: DailyStatus
    day: str = ""  # YYYY-MM-DD, the players' day of the game
    words: int = 0  # the player's words in the chain
    score: int = 0
    streak: int = 0  # days in a row with a finished daily game, this one's included
    share: str = ""  # e.g. "Nối từ hôm nay 07/12 · 14 từ · 812 điểm · 5 ngày liền"


PENDING = DailyAnswer(DailyStatus.PENDING)


def share_text(day: int, words: int, score: int, streak: int) -> str:
    """The spoiler-free share text: the date (dd/mm), the counts, no word."""
    _, month, month_day = civil_date(day)
    return DAILY_SHARE.format(
        date=f"{month_day:02d}/{month:02d}", words=words, score=score, streak=streak
    )


def player_words(session: Session) -> int:
    return sum(1 for link in session.game.chain.links if link.by is Side.PLAYER)


class GetDaily:
    def __init__(self, sessions: Sessions, daily_games: DailyGames) -> None:
        self._sessions = sessions
        self._daily_games = daily_games

    async def __call__(self, command: SessionCommand) -> DailyAnswer:
        session = await self._sessions.change(command.session, _read, touch=False)
        if not session.day:
            raise BadRequest(NOT_DAILY)
        if session.is_playing:
            return PENDING
        day, score = session.day, session.game.score
        words = player_words(session)
        streak = await self._daily_games.streak(session.user_id, day)
        return DailyAnswer(
            DailyStatus.READY,
            day=iso_date(day),
            words=words,
            score=score,
            streak=streak,
            share=share_text(day, words, score, streak),
        )


def _read(work: SessionWork) -> Session:
    return work.session
