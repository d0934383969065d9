"""B11's report rules on the use case with fakes: the daily cap on the players'
calendar day, what is not counted, the admin chat told once and edited at most once a
minute, and the nearest words."""

from __future__ import annotations

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.adapters.noitu.words.memory import InMemoryReports
from noitu.application.errors import BadRequest
from noitu.application.noitu.words.file_report import FileReport, TooManyReports, nearest_words
from noitu.domain.noitu.additions import Overlay
from noitu.domain.noitu.reports import DAILY_REPORTS, DAY_MS, PendingWord, next_day_ms, report_day
from support.dictionaries import LITTLE
from support.fakes import CollectingBackground, FakeClock

# 2027-01-15 16:59:59 UTC: one second before midnight in Vietnam (UTC+7)
BEFORE_MIDNIGHT_MS = 1_800_000_000_000 + (16 * 3600 + 59 * 60 + 59) * 1000 - 8 * 3600 * 1000


class RecordingReview:
    def __init__(self) -> None:
        self.posted: list[tuple[PendingWord, list[str]]] = []
        self.updated: list[PendingWord] = []

    async def post(self, pending: PendingWord, nearest: list[str]) -> int | None:
        self.posted.append((pending, nearest))
        return 500 + len(self.posted)

    async def update(self, pending: PendingWord, nearest: list[str]) -> bool:
        self.updated.append(pending)
        return True


def make(clock: FakeClock, review: RecordingReview | None = None):
    overlay = Overlay(lexicon_from_lines(LITTLE.splitlines(), "little"))
    background = CollectingBackground()
    store = InMemoryReports()
    return FileReport(store, overlay, review, background, clock), store, background


def test_the_players_day_ends_at_midnight_in_vietnam():
    assert report_day(BEFORE_MIDNIGHT_MS + 1_000) == report_day(BEFORE_MIDNIGHT_MS) + 1
    assert next_day_ms(BEFORE_MIDNIGHT_MS) == BEFORE_MIDNIGHT_MS + 1_000
    assert next_day_ms(BEFORE_MIDNIGHT_MS + 1_000) == BEFORE_MIDNIGHT_MS + 1_000 + DAY_MS


async def test_the_daily_cap_lifts_at_the_players_midnight():
    clock = FakeClock(BEFORE_MIDNIGHT_MS)
    report, _, _ = make(clock)
    words = [f"đầu {s}" for s in ["ba", "bà", "bá", "bả", "bã", "bạ", "ca", "cà", "cá", "cả", "cã", "cạ", "da", "dà", "dá", "dả", "dã", "dạ", "ga", "gà", "gá"]]
    for word in words[:DAILY_REPORTS]:
        assert (await report(word, 7, None)).result == "reported"
    with pytest.raises(TooManyReports) as refused:
        await report(words[DAILY_REPORTS], 7, None)
    assert refused.value.retry_after_ms == 1_000
    assert (await report(words[DAILY_REPORTS], 8, None)).result == "reported"  # another user
    clock.advance(1_000)
    assert (await report(words[DAILY_REPORTS], 7, None)).result == "reported"


async def test_known_and_unfit_words_are_answered_and_not_counted():
    clock = FakeClock(BEFORE_MIDNIGHT_MS - 3_600_000)
    report, store, _ = make(clock)
    for _ in range(DAILY_REPORTS + 1):
        known = await report("Hoà  Bình", 7, None)
        assert (known.result, known.word) == ("known", "hòa bình")
        unfit = await report("đầu 2", 7, None)
        assert (unfit.result, unfit.reason) == ("unfit", "not_letters")
    assert await store.pending() == []
    assert (await report("tắc đường", 7, None)).result == "reported"
    with pytest.raises(BadRequest):
        await report("a " * 40, 7, None)


async def test_the_admin_chat_hears_once_and_edits_at_most_once_a_minute():
    clock = FakeClock()
    review = RecordingReview()
    report, store, background = make(clock, review)
    await report("đầu gối", 1, -5)
    await background.settle()
    [(pending, nearest)] = review.posted
    assert (pending.word, pending.reporters) == ("đầu gối", 1)
    assert nearest == ["đầu bếp", "đầu tiên", "đầu óc", "đầu mối"]
    assert (await store.pending())[0].message_id == 501
    clock.advance(30_000)
    await report("đầu gối", 2, -5)
    await background.settle()
    assert review.updated == []
    clock.advance(30_000)
    await report("đầu gối", 3, -5)
    await background.settle()
    assert [p.reporters for p in review.updated] == [3]
    assert len(review.posted) == 1


def test_nearest_words_share_the_first_syllable_common_first_at_most_five():
    words = ["lạ kỳ\t3", "lạ lùng\t1", "lạ mặt\t2", "lạ nhà\t2", "lạ đời\t4", "lạ tai\t1"]
    overlay = Overlay(lexicon_from_lines(sorted(words), "near"))
    assert nearest_words(overlay, "lạ mắt") == ["lạ lùng", "lạ tai", "lạ mặt", "lạ nhà", "lạ kỳ"]
    assert nearest_words(overlay, "kỹ lạ") == []  # no word starts with "kỹ"
