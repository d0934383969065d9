"""Spelling families (spec B3): the spellings of one word ("hòa bình", "hoà bình") are
one playable word, kept under one canonical spelling."""

from __future__ import annotations

from collections.abc import Iterable

from noitu.domain.noitu.spelling import preferred_spelling_score, syllable_key
from noitu.domain.noitu.words import DictionaryEntry, Meaning


class _SyllableKeys(dict[str, str]):
    """syllable -> syllable_key(syllable), computed once per distinct syllable."""

    def __missing__(self, syllable: str) -> str:
        key = self[syllable] = syllable_key(syllable)
        return key


def merge_families(entries: Iterable[DictionaryEntry]) -> list[DictionaryEntry]:
    """Merge spellings of one family into one entry under its canonical spelling.

    The canonical spelling is the one of the most common tier; on a tie, the one using
    the house spelling (tone on the first vowel of oa/oe/uy, y over i) in more
    syllables; then code-point order. Meanings are joined, the canonical ones first.
    The result is in code-point order of the canonical spellings.
    """
    families: dict[str, list[DictionaryEntry]] = {}
    keys = _SyllableKeys()
    for entry in entries:
        family = " ".join(map(keys.__getitem__, entry.word.split(" ")))
        found = families.get(family)
        if found is None:
            families[family] = [entry]
        else:
            found.append(entry)
    merged: list[DictionaryEntry] = []
    for members in families.values():
        if len(members) == 1:
            merged.append(members[0])
            continue
        ranked = sorted(
            members, key=lambda e: (e.tier, -preferred_spelling_score(e.word), e.word)
        )
        canonical = ranked[0]
        meanings: list[Meaning] = []
        for member in ranked:
            for meaning in member.meanings:
                if meaning not in meanings:
                    meanings.append(meaning)
        merged.append(
            DictionaryEntry(canonical.word, canonical.tier, tuple(meanings), canonical.line)
        )
    merged.sort(key=lambda e: e.word)
    return merged
