"""The operator adds or removes words (spec B11: the CLI and the admin chat's button)."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.noitu.words.follow_additions import FollowAdditions
from noitu.application.noitu.words.ports import AdditionsStore
from noitu.application.noitu.words.report_ports import ReportsStore
from noitu.application.ports import Clock
from noitu.domain.noitu.additions import ADDED_TIER, Action, Unfit, WordChange, unfit
from noitu.domain.noitu.rules import typed_word_too_long
from noitu.domain.noitu.spelling import normalize


@dataclass(frozen=True)
class WordsCommand:
    words: tuple[str, ...]
    action: Action
    tier: int = ADDED_TIER


@dataclass(frozen=True)
class WordOutcome:
    word: str  # normalized
    changed: bool  # the game's words changed (False: already so, or unfit)
    unfit: Unfit | None = None
    canonical: str | None = None  # the spelling the game plays, when it plays the word


class ChangeWords:
    """Keep each fit word's change in the store, then bring this instance's overlay up
    to date, so the answer says what the game now plays. An added word is no longer
    pending (nor rejected)."""

    def __init__(
        self, store: AdditionsStore, reports: ReportsStore, follow: FollowAdditions, clock: Clock
    ) -> None:
        self._store = store
        self._reports = reports
        self._follow = follow
        self._clock = clock

    async def __call__(self, command: WordsCommand) -> list[WordOutcome]:
        await self._follow()
        overlay = self._follow.overlay
        lexicon = overlay.lexicon
        outcomes = []
        for raw in command.words:
            word = normalize(raw)
            problem = Unfit.TOO_LONG if typed_word_too_long(raw) else unfit(word)
            if problem is not None:
                outcomes.append(WordOutcome(word, False, problem))
                continue
            playable = lexicon.resolve(word) is not None
            changed = playable != (command.action is Action.ADD)
            if changed:
                change = WordChange(word, command.action, command.tier, self._clock.now_ms())
                await self._store.append(change)
                await self._follow()
            if command.action is Action.ADD:
                await self._reports.settle(word, rejected=False)
            found = lexicon.resolve(word)
            canonical = None if found is None else lexicon.words[found]
            outcomes.append(WordOutcome(word, changed, canonical=canonical))
        return outcomes
