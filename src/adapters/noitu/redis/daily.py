"""The DailyGames port on Redis (spec B13): every instance sees each player's daily
game and streak.

Keys, under the link's prefix:

| Key | Type | Holds | Expires |
|---|---|---|---|
| `daily:<day>:<uid>` | hash | `s` the day's session id, `g` the finished game (the session codec's JSON) | at the end of the next day |
| `streak:<uid>` | hash | `d` the last day with a finished daily game, `n` the streak | at the end of the day after `d` (then the streak is 0 anyway) |

The streak is computed by the domain's rule (`Streak.after_finishing`) from the one
read, and written with the finished game in one script that first checks the streak
is still the one read (else read again).
"""

from __future__ import annotations

from noitu.adapters.noitu.redis.codec import SessionCodec, SnapshotError
from noitu.adapters.noitu.redis.scripts import BEGIN_DAILY, FINISH_DAILY
from noitu.adapters.redis.client import RedisLink
from noitu.application.errors import Busy
from noitu.application.noitu.ports import DailyEntry
from noitu.application.noitu.session import Session
from noitu.domain.noitu.daily import Streak
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.players_day import day_start_ms
from noitu.domain.noitu.rules import TurnClock

#: Tries of a streak's compare-and-set while other finishes of the same user come first.
FINISH_ATTEMPTS = 8


class RedisDailyGames:
    def __init__(self, link: RedisLink, lexicon: Lexicon, turn_clock: TurnClock) -> None:
        self._link = link
        self._redis = link.client
        self._codec = SessionCodec(lexicon, turn_clock)
        self._p = link.prefix
        self._begin = link.client.register_script(BEGIN_DAILY)
        self._finish = link.client.register_script(FINISH_DAILY)

    def _entry_key(self, user_id: int, day: int) -> str:
        return f"{self._p}daily:{day}:{user_id}"

    def _streak_key(self, user_id: int) -> str:
        return f"{self._p}streak:{user_id}"

    async def entry(self, user_id: int, day: int) -> DailyEntry | None:
        session_id, snapshot = await self._link.run(
            self._redis.hmget(self._entry_key(user_id, day), ["s", "g"])
        )
        if session_id is None:
            return None
        finished = None
        if snapshot is not None:
            try:
                finished = self._codec.decode(session_id, snapshot, 0)
            except SnapshotError:
                finished = None  # a word this server lacks: as if the game was lost
        return DailyEntry(session_id, finished)

    async def begin(self, user_id: int, day: int, session_id: str) -> None:
        await self._link.run(
            self._begin(
                keys=[self._entry_key(user_id, day)],
                args=[session_id, day_start_ms(day + 2)],
            )
        )

    async def _read_streak(self, user_id: int) -> tuple[str, str, Streak]:
        last, days = await self._link.run(
            self._redis.hmget(self._streak_key(user_id), ["d", "n"])
        )
        if last is None or days is None:
            return last or "", days or "", Streak()
        return last, days, Streak(int(last), int(days))

    async def finish(self, session: Session) -> int:
        user, day = session.user_id, session.day
        snapshot = self._codec.encode(session)
        for _ in range(FINISH_ATTEMPTS):
            last, days, read = await self._read_streak(user)
            streak = read.after_finishing(day)
            written = await self._link.run(
                self._finish(
                    keys=[self._entry_key(user, day), self._streak_key(user)],
                    args=[
                        session.id, snapshot, day_start_ms(day + 2), last, days,
                        streak.last_day, streak.days, day_start_ms(streak.last_day + 2),
                    ],
                )
            )
            if written:
                return streak.on(day)
        raise Busy()

    async def streak(self, user_id: int, day: int) -> int:
        return (await self._read_streak(user_id))[2].on(day)
