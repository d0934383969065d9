"""Does a syllable look like Vietnamese? (spec B1, the phonotactics filter)

A syllable is written as an onset, a rhyme (an optional medial o/u, a vowel nucleus and
an optional coda) and at most one tone mark on a vowel. The inventories below are
closed: a syllable is accepted only when its toneless spelling splits into a listed
onset and a listed rhyme that may follow it. Tone placement inside the rhyme is not
checked, so both hòa and hoà (and lý, lí) pass.

Everything here is pure string arithmetic on lowercase NFC text.
"""

from __future__ import annotations

import unicodedata

from noitu.domain.noitu.spelling import ACUTE, DOT, TONE_MARKS

# Written onsets. "q" is always followed by the u of its rhyme (qua, quốc, quyết);
# "gi" may share its i with the rhyme (gì, gìn, giếng).
ONSETS: frozenset[str] = frozenset(
    {
        "", "b", "c", "ch", "d", "đ", "g", "gh", "gi", "h", "k", "kh", "l", "m", "n",
        "ng", "ngh", "nh", "p", "ph", "q", "r", "s", "t", "th", "tr", "v", "x",
    }
)

# Rhymes grouped by their vowel nucleus (with any medial o/u written in front).
# Each string is one whole toneless rhyme: medial + nucleus + coda.
_RHYMES_BY_NUCLEUS: dict[str, tuple[str, ...]] = {
    # single vowels
    "a": ("a", "ac", "ach", "ai", "am", "an", "ang", "anh", "ao", "ap", "at", "au", "ay"),
    "ă": ("ăc", "ăm", "ăn", "ăng", "ăp", "ăt"),
    "â": ("âc", "âm", "ân", "âng", "âp", "ât", "âu", "ây"),
    "e": ("e", "ec", "em", "en", "eng", "eo", "ep", "et"),
    "ê": ("ê", "êch", "êm", "ên", "êng", "ênh", "êp", "êt", "êu"),  # êng: ễng bụng
    "i": ("i", "ich", "im", "in", "inh", "ip", "it", "iu"),
    "y": ("y",),
    "o": ("o", "oc", "oi", "om", "on", "ong", "op", "ot"),
    "oo": ("ooc", "oong"),  # the long o of xoong, boong, moóc
    "ô": ("ô", "ôc", "ôi", "ôm", "ôn", "ông", "ôp", "ôt"),
    "ơ": ("ơ", "ơi", "ơm", "ơn", "ơp", "ơt"),
    "u": ("u", "uc", "ui", "um", "un", "ung", "up", "ut"),
    "ư": ("ư", "ưc", "ưi", "ưm", "ưn", "ưng", "ưt", "ưu"),
    # diphthongs: ia/iê (ya/yê), ua/uô, ưa/ươ
    "iê": ("ia", "iêc", "iêm", "iên", "iêng", "iêp", "iêt", "iêu"),
    "yê": ("yêm", "yên", "yêng", "yêt", "yêu"),  # only without an onset
    "uô": ("ua", "uôc", "uôi", "uôm", "uôn", "uông", "uôp", "uôt"),
    "ươ": ("ưa", "ươc", "ươi", "ươm", "ươn", "ương", "ươp", "ươt", "ươu"),
    # medial o
    "oa": ("oa", "oac", "oach", "oai", "oam", "oan", "oang", "oanh", "oao", "oap", "oat", "oay"),
    "oă": ("oăc", "oăm", "oăn", "oăng", "oăt"),
    "oe": ("oe", "oec", "oem", "oen", "oeng", "oeo", "oet"),  # oéc, loẻng xoẻng
    # medial u
    "uâ": ("uân", "uâng", "uât", "uây"),
    "uê": ("uê", "uêch", "uênh", "uêt", "uêu"),  # khuều
    "uy": ("uy", "uych", "uynh", "uyt", "uyu"),
    "uyê": ("uya", "uyên", "uyêt"),
    "uơ": ("uơ",),
}

RHYMES: frozenset[str] = frozenset(r for group in _RHYMES_BY_NUCLEUS.values() for r in group)

# After q the medial is always written u. It comes either with a rhyme that has no
# medial of its own and an unrounded vowel (qua, quăn, quân, que, quên, quê, qui, quơ),
# or as the medial of a u-rhyme (quy, quýt, quỳnh, quyên). The rounded vowels follow q
# only in quốc and quọ (quạu quọ).
Q_RHYMES: frozenset[str] = frozenset(
    {
        "u" + r
        for r in RHYMES
        if r.startswith(("a", "ă", "â", "e", "ê", "i", "ơ")) and not r.startswith(("ia", "iê"))
    }
    | {r for r in RHYMES if r.startswith(("uâ", "uê", "uy", "uơ"))}
    | {"uôc", "uo"}
)

# Letters a rhyme may start with after k, gh and ngh (and may not after c, g and ng).
FRONT_VOWELS = ("i", "e", "ê", "y")
ONLY_BEFORE_FRONT = frozenset({"k", "gh", "ngh"})
NEVER_BEFORE_FRONT = frozenset({"c", "g", "ng"})

VOWEL_LETTERS = frozenset("aăâeêioôơuưy")
CHECKED_CODAS = ("p", "t", "c", "ch")
CHECKED_TONES = frozenset({ACUTE, DOT})


def split_tone(syllable: str) -> tuple[str, str, int] | None:
    """(toneless NFC syllable, tone mark or "", index of the letter carrying it) or None.

    The index counts letters of the toneless NFC syllable (-1 without a tone). None means
    more than one tone mark, or a tone mark that is not on a vowel letter.
    """
    tone = ""
    position = -1
    letters: list[str] = []
    for char in unicodedata.normalize("NFD", syllable):
        if char in TONE_MARKS:
            if tone or not letters or letters[-1][0] not in VOWEL_LETTERS:
                return None
            tone, position = char, len(letters) - 1
        elif unicodedata.combining(char) and letters:
            letters[-1] += char
        else:
            letters.append(char)
    toneless = "".join(unicodedata.normalize("NFC", letter) for letter in letters)
    if len(toneless) != len(letters):
        return None  # a letter with marks that has no single precomposed form
    return toneless, tone, position


def rhyme_fits(onset: str, rhyme: str) -> bool:
    """Whether a toneless rhyme may follow a written onset."""
    if onset == "q":
        return rhyme in Q_RHYMES
    if onset == "gi":
        if rhyme.startswith(("i", "y")):
            return False
        # gi shares its i with a rhyme that starts with i: gì, gìn, giếng, giết.
        return rhyme == "" or rhyme in RHYMES or ("i" + rhyme) in RHYMES
    if rhyme not in RHYMES:
        return False
    if onset == "":
        return not rhyme.startswith("iê")  # yên, yêu, not iên, iêu
    if rhyme.startswith("yê"):
        return False  # tiên, not tyên
    if onset in ONLY_BEFORE_FRONT:
        return rhyme.startswith(FRONT_VOWELS) and not (onset != "k" and rhyme.startswith("y"))
    if onset in NEVER_BEFORE_FRONT:
        return not rhyme.startswith(FRONT_VOWELS)
    return True


def split_syllable(toneless: str) -> tuple[str, str] | None:
    """The first (onset, rhyme) split of a toneless syllable that fits, or None."""
    for length in range(min(len(toneless), 3), -1, -1):
        onset, rhyme = toneless[:length], toneless[length:]
        if onset in ONSETS and rhyme_fits(onset, rhyme):
            return onset, rhyme
    return None


def _tone_in_rhyme(onset: str, rhyme: str, position: int) -> bool:
    """Whether the tone sits on a vowel of the rhyme, not on the onset's letters.

    gi lends its i to a rhyme that starts with a consonant or nothing (gì, gìn); the u
    after q is the medial but never carries the tone (quá, not qúa).
    """
    if onset == "q":
        return position > 1
    if onset == "gi" and position == 1:
        return not rhyme[:1] in VOWEL_LETTERS
    return position >= len(onset)


def is_vietnamese_syllable(syllable: str, *, checked_tones: bool = True) -> bool:
    """Whether a lowercase NFC syllable fits Vietnamese phonotactics.

    With ``checked_tones`` a syllable ending in p, t, c or ch must carry the acute or
    the dot below (cấp, lạt; not cầp).
    """
    if not syllable:
        return False
    parts = split_tone(syllable)
    if parts is None:
        return False
    toneless, tone, position = parts
    split = split_syllable(toneless)
    if split is None:
        return False
    onset, rhyme = split
    if tone and not _tone_in_rhyme(onset, rhyme, position):
        return False
    if checked_tones and toneless.endswith(CHECKED_CODAS):
        return tone in CHECKED_TONES
    return True


def is_vietnamese_word(word: str, *, checked_tones: bool = True) -> bool:
    """Whether every space-separated syllable of a normalized word fits."""
    return all(
        is_vietnamese_syllable(s, checked_tones=checked_tones) for s in word.split(" ")
    )
