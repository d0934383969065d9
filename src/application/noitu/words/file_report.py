"""A player reports a missing word (spec B11): the answer for a word already there or
refused by B1's filter, the daily cap, and the admin chat told in the background."""

from __future__ import annotations

import msgspec

from noitu.application.errors import BadRequest, GameError
from noitu.application.noitu.words.messages import KNOWN, REPORTED, TOO_MANY_REPORTS, UNFIT
from noitu.application.noitu.words.report_ports import ReportsStore, ReviewChat
from noitu.application.ports import Background, Clock
from noitu.domain.noitu.additions import Overlay, Unfit, unfit
from noitu.domain.noitu.reports import (
    ADMIN_EDIT_EVERY_MS,
    DAILY_REPORTS,
    MAX_PENDING_WORDS,
    Filed,
    PendingWord,
    Report,
    next_day_ms,
    report_day,
)
from noitu.domain.noitu.rules import typed_word_too_long
from noitu.domain.noitu.spelling import normalize, word_variants

NEAREST_WORDS = 5


class TooManyReports(GameError):
    code = "too_many_reports"
    default_message = TOO_MANY_REPORTS


class ReportAnswer(msgspec.Struct, frozen=True):
    """`reported` (thanks), `known` (`word` is the spelling the game plays) or `unfit`
    (`reason` says which of B1's filters refuses it); `message` says it in Vietnamese."""

    result: str
    word: str
    reason: str
    message: str


def nearest_words(overlay: Overlay, word: str, limit: int = NEAREST_WORDS) -> list[str]:
    """The dictionary's words nearest a reported one: its spelling variants that are
    words, then the words sharing its first syllable (common first)."""
    lexicon = overlay.lexicon
    found = [v for v in word_variants(word) if v in lexicon]
    syllable = lexicon.syllable_id(word.split(" ")[0])
    if syllable is not None:
        tiers = lexicon.tiers
        sharing = sorted(lexicon.starting_with[syllable], key=lambda w: (tiers[w], lexicon.words[w]))
        found += [lexicon.words[w] for w in sharing[: limit]]
    return list(dict.fromkeys(found))[:limit]


class FileReport:
    def __init__(
        self,
        store: ReportsStore,
        overlay: Overlay,
        review: ReviewChat | None,
        background: Background,
        clock: Clock,
    ) -> None:
        self._store = store
        self._overlay = overlay
        self._review = review
        self._background = background
        self._clock = clock

    def check(self, raw: str) -> tuple[str, ReportAnswer | None]:
        """The normalized word, and the answer when it is not to be stored."""
        if typed_word_too_long(raw):
            raise BadRequest(UNFIT[Unfit.TOO_LONG])
        word = normalize(raw)
        problem = unfit(word)
        if problem is not None:
            return word, ReportAnswer("unfit", word, problem.value, UNFIT[problem])
        lexicon = self._overlay.lexicon
        found = lexicon.resolve(word)
        if found is not None:
            canonical = lexicon.words[found]
            return word, ReportAnswer("known", canonical, "", KNOWN.format(word=canonical))
        return word, None

    async def __call__(self, raw: str, user_id: int, chat_id: int | None) -> ReportAnswer:
        word, answer = self.check(raw)
        if answer is not None:
            return answer
        now = self._clock.now_ms()
        receipt = await self._store.file(
            Report(word, user_id, chat_id, now), report_day(now), DAILY_REPORTS, MAX_PENDING_WORDS
        )
        if receipt.filed is Filed.TOO_MANY:
            raise TooManyReports(retry_after_ms=next_day_ms(now) - now)
        if receipt.pending is not None and self._review is not None:
            self._background.spawn(self._tell_review(receipt.pending, receipt.new, now))
        return ReportAnswer("reported", word, "", REPORTED.format(word=word))

    async def _tell_review(self, pending: PendingWord, new: bool, now: int) -> None:
        review = self._review
        if review is None:
            return
        nearest = nearest_words(self._overlay, pending.word)
        if new:
            message_id = await review.post(pending, nearest)
            if message_id is not None:
                await self._store.shown(pending.word, message_id, now)
            return
        due = pending.message_id is not None and now - pending.shown_ms >= ADMIN_EDIT_EVERY_MS
        if due and pending.message_id is not None and await review.update(pending, nearest):
            await self._store.shown(pending.word, pending.message_id, now)
