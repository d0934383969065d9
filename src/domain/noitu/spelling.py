"""How typed text becomes a word: normalization (spec B2) and spelling variants (B3).

Everything here is pure string arithmetic on Unicode; nothing reads a file or a clock.
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Callable, Iterable

GRAVE, ACUTE, TILDE, HOOK, DOT = "\u0300", "\u0301", "\u0303", "\u0309", "\u0323"
TONE_MARKS = frozenset({GRAVE, ACUTE, TILDE, HOOK, DOT})

MAX_WORD_VARIANTS = 32

# Pairs of plain vowels whose tone may sit on either letter (hòa / hoà).
TONE_PLACEMENT_PAIRS = frozenset({("o", "a"), ("o", "e"), ("u", "y")})
# Onsets after which a final i and y are the same sound (lý / lí).
I_Y_ONSETS = frozenset({"h", "k", "l", "m", "t", "qu"})
# Whole-syllable pairs outside the onset rule.
FIXED_SYLLABLE_PAIRS = {"sĩ": "sỹ", "sỹ": "sĩ", "vĩ": "vỹ", "vỹ": "vĩ"}


def normalize(text: str) -> str:
    """NFC, lowercase, NFC again, then single spaces between whitespace-separated tokens."""
    lowered = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).lower())
    return " ".join(lowered.split())


def syllables(word: str) -> list[str]:
    """The syllables of a normalized word."""
    return word.split(" ")


class Cluster:
    """One base letter with its combining marks, split into letter marks and a tone."""

    __slots__ = ("base", "letter_marks", "tone")

    def __init__(self, base: str, letter_marks: str, tone: str) -> None:
        self.base = base
        self.letter_marks = letter_marks
        self.tone = tone

    @property
    def is_plain(self) -> bool:
        return not self.letter_marks

    def render(self, tone: str | None = None) -> str:
        return self.base + self.letter_marks + (self.tone if tone is None else tone)


def clusters(syllable: str) -> list[Cluster]:
    """Split a syllable into NFD clusters (a base letter plus its combining marks)."""
    result: list[Cluster] = []
    for char in unicodedata.normalize("NFD", syllable):
        if unicodedata.combining(char) and result:
            last = result[-1]
            if char in TONE_MARKS:
                last.tone += char
            else:
                last.letter_marks += char
        else:
            result.append(Cluster(char, "", ""))
    return result


def _render(parts: Iterable[Cluster]) -> str:
    return unicodedata.normalize("NFC", "".join(part.render() for part in parts))


def tone_placement_variant(syllable: str) -> str | None:
    """hòa ↔ hoà, khỏe ↔ khoẻ, thúy ↔ thuý; None when the rule does not apply."""
    parts = clusters(syllable)
    if len(parts) < 2:
        return None
    first, second = parts[-2], parts[-1]
    if (first.base, second.base) not in TONE_PLACEMENT_PAIRS:
        return None
    if not (first.is_plain and second.is_plain):
        return None
    if first.base == "u" and len(parts) >= 3 and parts[-3].base == "q":
        return None
    if first.tone and not second.tone:
        moved = [*parts[:-2], Cluster(first.base, "", ""), Cluster(second.base, "", first.tone)]
    elif second.tone and not first.tone:
        moved = [*parts[:-2], Cluster(first.base, "", second.tone), Cluster(second.base, "", "")]
    else:
        return None
    return _render(moved)


def i_y_variant(syllable: str) -> str | None:
    """lý ↔ lí, kỳ ↔ kì, quý ↔ quí, ti ↔ ty, and the fixed pairs sĩ ↔ sỹ, vĩ ↔ vỹ."""
    fixed = FIXED_SYLLABLE_PAIRS.get(syllable)
    if fixed is not None:
        return fixed
    parts = clusters(syllable)
    if len(parts) < 2:
        return None
    last = parts[-1]
    if last.base not in ("i", "y") or not last.is_plain:
        return None
    onset = parts[:-1]
    if any(part.letter_marks or part.tone for part in onset):
        return None
    if "".join(part.base for part in onset) not in I_Y_ONSETS:
        return None
    swapped = Cluster("y" if last.base == "i" else "i", "", last.tone)
    return _render([*onset, swapped])


@functools.lru_cache(maxsize=1 << 16)
def syllable_spellings(syllable: str) -> tuple[str, ...]:
    """The syllable itself first, then its other accepted spellings.

    Cached: a dictionary has a few thousand distinct syllables, and the cache is bounded
    so that typed nonsense cannot grow it without limit.
    """
    found = [syllable]
    for variant in (tone_placement_variant(syllable), i_y_variant(syllable)):
        if variant is not None and variant not in found:
            found.append(variant)
    return tuple(found)


@functools.lru_cache(maxsize=1 << 16)
def syllable_key(syllable: str) -> str:
    """One name for all spellings of a syllable: hòa and hoà, lý and lí are one syllable
    for the link between two words."""
    return min(syllable_spellings(syllable))


def word_variants(word: str) -> list[str]:
    """Every other spelling of a normalized word: the product over its syllables, at most 32."""
    options = [syllable_spellings(s) for s in syllables(word)]
    if all(len(option) == 1 for option in options):
        return []
    variants: list[str] = []
    for combination in itertools.product(*options):
        candidate = " ".join(combination)
        if candidate != word:
            variants.append(candidate)
            if len(variants) == MAX_WORD_VARIANTS:
                break
    return variants


def resolve_spelling(word: str, is_known: Callable[[str], bool]) -> str | None:
    """The dictionary word a normalized spelling stands for, or None.

    An exact match wins; otherwise exactly one known variant is accepted, and zero or
    several matches mean the word is not in the dictionary.
    """
    if is_known(word):
        return word
    matches = [variant for variant in word_variants(word) if is_known(variant)]
    return matches[0] if len(matches) == 1 else None


def preferred_spelling_score(word: str) -> int:
    """How many syllables use the house spelling: tone on the first vowel of oa/oe/uy, and y.

    Used to pick a family's canonical spelling when tiers tie (spec B1).
    """
    score = 0
    for syllable in syllables(word):
        parts = clusters(syllable)
        if tone_placement_variant(syllable) is not None and parts[-2].tone:
            score += 1
        if syllable in ("sỹ", "vỹ") or (i_y_variant(syllable) and parts[-1].base == "y"):
            score += 1
    return score


def family_key(word: str) -> str:
    """One name for a whole spelling family: each syllable's smallest spelling."""
    return " ".join(syllable_key(s) for s in syllables(word))
