"""B13's rules in the domain: the players' day at Vietnam's midnight, the day's seed
under the operator's key, the day's opening, replies that depend only on the day and
the chain, and the streak."""

from __future__ import annotations

import hashlib
import hmac
import random
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.bots import BotIndex, MediumOpponent
from noitu.domain.noitu.chain import Chain, Side
from noitu.domain.noitu.daily import DAILY_DIFFICULTY, DailyPuzzle, Streak, day_seed
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.players_day import civil_date, day_of, day_start_ms, iso_date
from noitu.domain.noitu.rules import TurnClock
from support.dictionaries import random_words
from support.fakes import FakeClock

VIETNAM = ZoneInfo("Asia/Ho_Chi_Minh")
KEY = b"k" * 32
OTHER_KEY = b"o" * 32
# A dense graph: openings are drawn from a large pool, games run long.
LEXICON = lexicon_from_lines(random_words(seed=5, syllables=24, words=520), "dense")
MEDIUM = MediumOpponent(BotIndex(LEXICON))


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def vietnam_day(year: int, month: int, day: int) -> int:
    return (date(year, month, day) - date(1970, 1, 1)).days


def test_a_game_started_at_23_59_50_belongs_to_its_day() -> None:
    clock = FakeClock(epoch_ms(datetime(2026, 12, 7, 23, 59, 50, tzinfo=VIETNAM)))
    assert day_of(clock.now_ms()) == vietnam_day(2026, 12, 7)
    assert iso_date(day_of(clock.now_ms())) == "2026-12-07"
    clock.advance(9_999)
    assert day_of(clock.now_ms()) == vietnam_day(2026, 12, 7)
    clock.advance(1)  # midnight in Vietnam, 17:00 UTC the day before
    assert day_of(clock.now_ms()) == vietnam_day(2026, 12, 8)
    assert day_start_ms(vietnam_day(2026, 12, 8)) == clock.now_ms()


def test_the_fixed_offset_is_the_zone_database_s_day() -> None:
    start = datetime(2020, 1, 1, 12, tzinfo=VIETNAM)
    for hours in range(0, 24 * 800, 7):
        moment = start + timedelta(hours=hours)
        local = moment.astimezone(VIETNAM).date()
        assert civil_date(day_of(epoch_ms(moment))) == (local.year, local.month, local.day)


def test_the_seed_needs_the_key() -> None:
    day = vietnam_day(2026, 12, 7)
    date_text = b"2026-12-07"
    assert day_seed(KEY, day) != day_seed(OTHER_KEY, day)
    # Not a function of the date alone: neither its hash nor an HMAC under an empty key.
    assert day_seed(KEY, day) not in {
        hashlib.sha256(date_text).digest(),
        hmac.new(b"", date_text, hashlib.sha256).digest(),
    }
    assert day_seed(KEY, day) != day_seed(KEY, day + 1)
    with pytest.raises(ValueError):
        DailyPuzzle(b"short")


def test_different_days_open_with_different_words() -> None:
    puzzle = DailyPuzzle(KEY)
    first = vietnam_day(2026, 12, 1)
    openings = [puzzle.opening(LEXICON, first + n) for n in range(7)]
    assert len(set(openings)) >= 5
    # Each day's opening is the same for every player, whenever they start.
    game = puzzle.start(LEXICON, TurnClock(), first + 3, now_ms=123)
    assert game.chain.links[0].word.id == openings[3]
    assert game.difficulty is DAILY_DIFFICULTY is Difficulty.MEDIUM
    # Another operator's days open otherwise.
    theirs = [DailyPuzzle(OTHER_KEY).opening(LEXICON, first + n) for n in range(7)]
    assert theirs != openings


def play_out(puzzle: DailyPuzzle, day: int, rng: random.Random, moves: int) -> list[str]:
    """A game of the day where the player answers the first legal word in code-point
    order; the bot's random source is `rng`, which the daily bot must ignore."""
    game = puzzle.start(LEXICON, TurnClock(), day, now_ms=0)
    opponent = puzzle.opponent(MEDIUM, day)
    for _ in range(moves):
        if game.is_over:
            break
        word = min(game.chain.legal_words(), key=lambda w: LEXICON.words[w], default=None)
        if word is None:
            break
        game.play(LEXICON.words[word], 1_000, opponent, rng)
    return [link.word.text for link in game.chain.links]


def test_the_same_words_get_the_same_replies() -> None:
    puzzle = DailyPuzzle(KEY)
    day = vietnam_day(2026, 12, 7)
    ours = play_out(puzzle, day, random.Random(1), 12)
    # Another instance, another history of random draws: the same game.
    theirs = play_out(DailyPuzzle(KEY), day, random.Random(999), 12)
    assert len(ours) > 6
    assert ours == theirs
    # Another day's bot answers the same chain otherwise somewhere.
    chain = Chain(LEXICON)
    replies = set()
    for offset in range(6):
        chain = Chain(LEXICON)
        chain.append(LEXICON.word_ids[ours[0]], Side.BOT, 0)
        chain.append(LEXICON.word_ids[ours[1]], Side.PLAYER, 0)
        replies.add(puzzle.opponent(MEDIUM, day + offset).choose(chain, random.Random(0)))
    assert len(replies) > 1


def test_a_reply_depends_on_the_chain_not_on_the_history() -> None:
    puzzle = DailyPuzzle(KEY)
    day = vietnam_day(2026, 12, 7)
    opponent = puzzle.opponent(MEDIUM, day)
    game = puzzle.start(LEXICON, TurnClock(), day, now_ms=0)
    word = next(iter(game.chain.legal_words()))
    game.chain.append(word, Side.PLAYER, 0)
    first = opponent.choose(game.chain, random.Random(1))
    for seed in range(5):  # asked again, after any other draws: the same word
        random.Random(seed).random()
        assert opponent.choose(game.chain.copy(), random.Random(seed)) == first


def test_a_streak_counts_days_in_a_row() -> None:
    day = vietnam_day(2026, 12, 7)
    streak = Streak()
    assert streak.on(day) == 0
    streak = streak.after_finishing(day)
    assert streak.on(day) == 1
    assert streak.after_finishing(day) == streak  # finishing twice counts once
    streak = streak.after_finishing(day + 1).after_finishing(day + 2)
    assert streak.on(day + 2) == 3
    assert streak.on(day + 3) == 3  # today's game may still come
    assert streak.after_finishing(day + 1) == streak  # a late finish of an earlier day


def test_a_missed_day_resets_the_streak() -> None:
    day = vietnam_day(2026, 12, 7)
    streak = Streak().after_finishing(day).after_finishing(day + 1)
    assert streak.on(day + 1) == 2
    assert streak.on(day + 3) == 0  # day + 2 was missed
    assert streak.after_finishing(day + 3) == Streak(day + 3, 1)
