"""Nối từ hôm nay (spec B13): one game a day, the same for everyone.

The day is the players' calendar day (`players_day`). Its seed is an HMAC of the date
under the operator's secret, so nobody without the secret can compute a coming day's
game. From the seed come the day's opening word and the bot's choices: the daily bot
plays medium, and each of its replies draws from a `random.Random` seeded by (the day's
seed, the words of the chain so far) alone. Two players who play the same words get
the same replies, on any instance and whatever else the server did in between.

The streak: days in a row with a finished daily game; a day without one resets it.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import dataclass

from noitu.domain.noitu.chain import Chain
from noitu.domain.noitu.game import Game
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty, Opponent
from noitu.domain.noitu.players_day import iso_date
from noitu.domain.noitu.rules import TurnClock, draw_opening

DAILY_DIFFICULTY = Difficulty.MEDIUM  # everyone's daily game is against medium
SEED_LABEL = b"noitu/daily/v1/"  # the seed is HMAC(key, label + YYYY-MM-DD)
MIN_KEY_BYTES = 32


def day_seed(key: bytes, day: int) -> bytes:
    """The seed of a day: HMAC-SHA256 of its date under the operator's key."""
    return hmac.new(key, SEED_LABEL + iso_date(day).encode("ascii"), hashlib.sha256).digest()


def opening_random(seed: bytes) -> random.Random:
    """The random source the day's opening word is drawn with."""
    return random.Random(hashlib.sha256(seed + b"/opening").digest())


def reply_random(seed: bytes, chain: Chain) -> random.Random:
    """The random source of the bot's reply after this chain: a function of the day's
    seed and the chain's words (their text, which every instance shares) alone."""
    digest = hashlib.sha256(seed + b"/reply")
    for link in chain.links:
        digest.update(b"\n" + link.word.text.encode("utf-8"))
    return random.Random(digest.digest())


class DailyOpponent:
    """An `Opponent` whose choice depends only on the day and the chain: it hands its
    policy a random source made from them, ignoring the one it is given."""

    def __init__(self, policy: Opponent, seed: bytes) -> None:
        self._policy = policy
        self._seed = seed

    def choose(self, chain: Chain, rng: random.Random) -> int | None:
        return self._policy.choose(chain, reply_random(self._seed, chain))


class DailyPuzzle:
    """The days' games under one operator key."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_BYTES:
            raise ValueError(f"the daily game's key needs at least {MIN_KEY_BYTES} bytes")
        self._key = key

    def seed(self, day: int) -> bytes:
        return day_seed(self._key, day)

    def opening(self, lexicon: Lexicon, day: int) -> int:
        """The day's opening word (B6's opening rule, drawn from the day's seed)."""
        return draw_opening(lexicon, opening_random(self.seed(day)))

    def start(self, lexicon: Lexicon, clock: TurnClock, day: int, now_ms: int) -> Game:
        """A player's game of the day: the day's opening, the clock running from now."""
        return Game.start(lexicon, clock, DAILY_DIFFICULTY, opening_random(self.seed(day)), now_ms)

    def opponent(self, medium: Opponent, day: int) -> DailyOpponent:
        """The day's bot: medium, its choices drawn from the day and the chain."""
        return DailyOpponent(medium, self.seed(day))


@dataclass(frozen=True, slots=True)
class Streak:
    """Days in a row with a finished daily game: the last such day and how many."""

    last_day: int = 0  # 0: no daily game finished yet
    days: int = 0

    def after_finishing(self, day: int) -> Streak:
        """The streak once the game of `day` is finished. Finishing the same day again
        changes nothing; so does a game of an earlier day finishing late."""
        if self.days and day <= self.last_day:
            return self
        if self.days and day == self.last_day + 1:
            return Streak(day, self.days + 1)
        return Streak(day, 1)

    def on(self, day: int) -> int:
        """The streak as it stands on `day`: still alive while its last day is today or
        yesterday (today's game may yet be played), else 0."""
        if self.days and self.last_day in (day, day - 1):
            return self.days
        return 0
