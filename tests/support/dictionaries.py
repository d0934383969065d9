"""Small dictionaries that make games deterministic.

`LITTLE` has no opening candidate (no syllable starts 20 words), so the opening is the
best-connected word: "mở đầu" ("đầu" starts the most words). From there:

    đầu tiên → tiên sinh → sinh viên → viên chức (chức: a dead end)
    đầu óc   (óc: a dead end)
    đầu bếp → bếp núc (núc: a dead end)
    đầu mối  → mối tình → tình yêu (yêu: a dead end)
    hòa bình (tier 1), hoà bình (tier 3) are one family; lý do / lí lẽ for i/y.
"""

from __future__ import annotations

import random

LITTLE = """\
#@source test
mở đầu\t1
đầu tiên\t1\tdanh|thứ nhất
đầu óc\t2
đầu bếp\t1\tdanh|người nấu ăn chính
đầu mối\t3
tiên sinh\t2
sinh viên\t1
viên chức\t1
bếp núc\t2
mối tình\t2
tình yêu\t1\tdanh|tình cảm gắn bó\tđộng|yêu thương
hòa bình\t1
hoà bình\t3
bình minh\t1
lý do\t1
do dự\t2
dự án\t1
"""


def chain_dictionary(length: int) -> str:
    """Words w0 w1, w1 w2, …: exactly one way to go on, `length` words long."""

    def syllable(i: int) -> str:
        letters = "abcdeghiklmnopqrstuvxy"
        name = ""
        i += len(letters)
        while i:
            i, r = divmod(i, len(letters))
            name = letters[r] + name
        return "x" + name

    return "".join(f"{syllable(i)} {syllable(i + 1)}\n" for i in range(length))


def write(tmp_path, text: str, name: str = "dictionary.txt") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


RANDOM_SYLLABLES = [c + v for c in "bcdghklmnprstv" for v in "aeu"]


def random_words(seed: int = 3, syllables: int = 14, words: int = 70) -> list[str]:
    """`words` two-syllable words over `syllables` syllables drawn with a seed, sorted.
    The defaults give a sparse graph (no syllable starts 20 words: a fixed opening);
    24 syllables and 520 words a dense one, whose openings are drawn and games run long."""
    rng = random.Random(seed)
    chosen = rng.sample(RANDOM_SYLLABLES, syllables)
    found: set[str] = set()
    while len(found) < words:
        found.add(f"{rng.choice(chosen)} {rng.choice(chosen)}")
    return sorted(found)
