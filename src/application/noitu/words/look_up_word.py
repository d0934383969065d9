"""`/tu <từ>`: whether a word is in the game (spec B11)."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.errors import BadRequest
from noitu.application.noitu.words.messages import UNFIT
from noitu.domain.noitu.additions import Overlay, Unfit
from noitu.domain.noitu.rules import typed_word_too_long
from noitu.domain.noitu.spelling import normalize


@dataclass(frozen=True)
class WordInGame:
    asked: str  # normalized
    canonical: str | None  # the spelling the game plays; None: not in the game
    added_ms: int | None = None  # when the operators added it, for an added word


class LookUpWord:
    def __init__(self, overlay: Overlay) -> None:
        self._overlay = overlay

    def __call__(self, raw: str) -> WordInGame:
        if typed_word_too_long(raw):
            raise BadRequest(UNFIT[Unfit.TOO_LONG])
        word = normalize(raw)
        lexicon = self._overlay.lexicon
        found = lexicon.resolve(word)
        if found is None:
            return WordInGame(word, None)
        added = self._overlay.added(word)
        return WordInGame(word, lexicon.words[found], None if added is None else added.at_ms)
