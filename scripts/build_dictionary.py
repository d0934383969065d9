#!/usr/bin/env python3
"""Rebuild assets/dictionary.txt from the word lists inside the underthesea 9.5.0 wheel.

    python scripts/build_dictionary.py                 # downloads the wheel with pip
    python scripts/build_dictionary.py --wheel PATH    # uses a wheel already on disk

The wheel is only read as a zip file; underthesea is never imported. Its SHA-256 must
match the pinned value. The output depends only on the wheel and the options, so two
runs give byte-identical files. See docs/dictionary.md and assets/ATTRIBUTION.md.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from noitu.domain.noitu.families import merge_families
from noitu.domain.noitu.phonotactics import is_vietnamese_word
from noitu.domain.noitu.rules import MAX_TYPED_CHARACTERS, MAX_TYPED_TOKENS, typed_word_too_long
from noitu.domain.noitu.spelling import normalize, syllables
from noitu.domain.noitu.words import DictionaryEntry

PACKAGE = "underthesea"
VERSION = "9.5.0"
PINNED_SHA256 = "81400f41b75ceff6f80c52b4ad043806c80f5899ec555d8e6374d468a59bce56"
LICENCE = "Apache-2.0"
DATA_DIR = "underthesea/corpus/data/"
# Each word list and the tier its words get; a lower tier is a more common word.
SOURCE_FILES: tuple[tuple[str, int], ...] = (
    ("Viet11K.txt", 1),
    ("Viet22K.txt", 2),
    ("Viet39K.txt", 3),
    ("Viet74K.txt", 4),
)
FOREIGN_LETTERS = frozenset("fjwz")
MIN_SYLLABLES = 2

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = REPO_ROOT / "assets" / "dictionary.txt"
LICENCE_COPY = "LICENSE.underthesea.txt"


class BuildError(Exception):
    """The build cannot go on (wrong wheel, missing file, failed download)."""


@dataclass(frozen=True)
class Step:
    name: str
    kept: int
    dropped: int


@dataclass
class BuildResult:
    entries: list[DictionaryEntry]
    steps: list[Step] = field(default_factory=list)

    def tier_counts(self) -> dict[int, int]:
        counts = {tier: 0 for _, tier in SOURCE_FILES}
        for entry in self.entries:
            counts[entry.tier] += 1
        return counts


# --- the wheel -------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_wheel(path: Path, expected_sha256: str = PINNED_SHA256) -> str:
    """The wheel's SHA-256; raises BuildError when it is not the expected one."""
    actual = sha256_of(path)
    if actual != expected_sha256:
        raise BuildError(
            f"{path}: SHA-256 {actual} does not match the pinned {expected_sha256}; "
            f"refusing to build from a different {PACKAGE} wheel"
        )
    return actual


def download_wheel(directory: Path) -> Path:
    """Fetch the pinned wheel with pip into a directory and return its path."""
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        f"{PACKAGE}=={VERSION}", "-d", str(directory),
    ]
    completed = subprocess.run(command, check=False)
    if completed.returncode != 0:
        raise BuildError(f"pip download failed (exit {completed.returncode}): {' '.join(command)}")
    found = sorted(directory.glob(f"{PACKAGE}-{VERSION}-*.whl"))
    if len(found) != 1:
        raise BuildError(f"expected one {PACKAGE} {VERSION} wheel in {directory}, found {found}")
    return found[0]


def read_sources(wheel: Path) -> dict[str, list[str]]:
    """The lines of each word list, read straight from the wheel's zip archive."""
    sources: dict[str, list[str]] = {}
    with zipfile.ZipFile(wheel) as archive:
        for name, _ in SOURCE_FILES:
            member = DATA_DIR + name
            try:
                data = archive.read(member)
            except KeyError:
                raise BuildError(f"{wheel}: no {member} in the archive") from None
            sources[name] = data.decode("utf-8").splitlines()
    return sources


# --- the filters -----------------------------------------------------------------------


def has_capital(line: str) -> bool:
    return any(char.isupper() for char in line)


def only_letters_and_spaces(word: str) -> bool:
    return all(char.isalpha() or char == " " for char in word)


def has_foreign_letter(word: str) -> bool:
    return any(char in FOREIGN_LETTERS for char in word)


def build(sources: Mapping[str, Sequence[str]], keep_proper_nouns: bool = False) -> BuildResult:
    """Filter, tier and merge the word lists; every step is counted in the result."""
    steps: list[Step] = []

    # (text, tier) pairs, one per line; the filters below drop pairs.
    items = [
        (line, tier)
        for name, tier in SOURCE_FILES
        for line in sources[name]
    ]

    def apply(name: str, keep, pairs: list[tuple[str, int]]) -> list[tuple[str, int]]:
        kept = [pair for pair in pairs if keep(pair[0])]
        steps.append(Step(name, len(kept), len(pairs) - len(kept)))
        return kept

    items = apply("source lines (blank dropped)", lambda text: text.strip() != "", items)
    if keep_proper_nouns:
        steps.append(Step("proper nouns (kept by option)", len(items), 0))
    else:
        items = apply("proper nouns (a capital letter)", lambda text: not has_capital(text), items)
    items = [(normalize(text), tier) for text, tier in items]
    items = apply(
        f"fewer than {MIN_SYLLABLES} syllables",
        lambda word: len(syllables(word)) >= MIN_SYLLABLES,
        items,
    )
    items = apply("digits, punctuation, hyphens", only_letters_and_spaces, items)
    items = apply("letters f, j, w, z", lambda word: not has_foreign_letter(word), items)
    items = apply("phonotactics", is_vietnamese_word, items)
    # A word the page cannot send (B2's input limits) could never be played, yet it
    # would count as a reply: a dead end would not be one, and it could be suggested.
    items = apply(
        f"more than {MAX_TYPED_TOKENS} syllables or {MAX_TYPED_CHARACTERS} characters",
        lambda word: not typed_word_too_long(word),
        items,
    )

    # A word met in several lines (or several files) keeps its lowest tier.
    tiers: dict[str, int] = {}
    for word, tier in items:
        tiers[word] = min(tier, tiers.get(word, tier))
    steps.append(Step("duplicates", len(tiers), len(items) - len(tiers)))

    entries = merge_families(DictionaryEntry(word, tier) for word, tier in tiers.items())
    steps.append(Step("spelling families merged", len(entries), len(tiers) - len(entries)))
    return BuildResult(entries, steps)


# --- the output ------------------------------------------------------------------------


def render(result: BuildResult, wheel_sha256: str, keep_proper_nouns: bool = False) -> str:
    """The B1 file: #@ header lines, then word<TAB>tier lines in code-point order."""
    counts = result.tier_counts()
    header = [
        "# noitu dictionary, built by scripts/build_dictionary.py; see assets/ATTRIBUTION.md.",
        "# Do not edit by hand: rebuild it. Lines are word<TAB>tier (1 = most common).",
        f"#@source {PACKAGE}",
        f"#@version {VERSION}",
        f"#@files {' '.join(DATA_DIR + name for name, _ in SOURCE_FILES)}",
        f"#@wheel_sha256 {wheel_sha256}",
        f"#@licence {LICENCE}",
        f"#@options keep_proper_nouns={'yes' if keep_proper_nouns else 'no'}",
        f"#@words {len(result.entries)}",
        f"#@tiers {' '.join(f'{tier}={count}' for tier, count in sorted(counts.items()))}",
    ]
    body = [f"{entry.word}\t{entry.tier}" for entry in sorted(result.entries, key=lambda e: e.word)]
    return "\n".join(header + body) + "\n"


def format_table(steps: Iterable[Step]) -> str:
    rows = [("step", "kept", "dropped")] + [
        (step.name, f"{step.kept:,}", f"{step.dropped:,}") for step in steps
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for index, (name, kept, dropped) in enumerate(rows):
        lines.append(f"{name:<{widths[0]}}  {kept:>{widths[1]}}  {dropped:>{widths[2]}}")
        if index == 0:
            lines.append("-" * (sum(widths) + 4))
    return "\n".join(lines)


def build_file(
    wheel: Path,
    output: Path,
    keep_proper_nouns: bool = False,
    expected_sha256: str = PINNED_SHA256,
) -> BuildResult:
    """Verify the wheel, build the dictionary and write it to ``output``."""
    digest = verify_wheel(wheel, expected_sha256)
    result = build(read_sources(wheel), keep_proper_nouns)
    text = render(result, digest, keep_proper_nouns)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(text.encode("utf-8"))
    licence = read_licence(wheel)
    if licence is not None:
        (output.parent / LICENCE_COPY).write_bytes(licence)
    return result


def read_licence(wheel: Path) -> bytes | None:
    """The licence text the wheel carries; Apache-2.0 asks that it travel with the data."""
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith(f"{PACKAGE}-{VERSION}.dist-info/") and name.rsplit("/", 1)[-1] in (
                "LICENSE",
                "LICENSE.txt",
            ):
                return archive.read(name)
    return None


def main(argv: Sequence[str] | None = None, expected_sha256: str = PINNED_SHA256) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="where to write the dictionary (default: assets/dictionary.txt)")
    parser.add_argument("--wheel", type=Path,
                        help=f"a {PACKAGE}-{VERSION} wheel already on disk (skips the download)")
    parser.add_argument("--keep-proper-nouns", action="store_true",
                        help="keep entries written with a capital letter in the source")
    args = parser.parse_args(argv)
    try:
        if args.wheel is not None:
            result = build_file(args.wheel, args.output, args.keep_proper_nouns, expected_sha256)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                wheel = download_wheel(Path(tmp))
                result = build_file(wheel, args.output, args.keep_proper_nouns, expected_sha256)
    except BuildError as error:
        print(f"build_dictionary: {error}", file=sys.stderr)
        return 1
    print(format_table(result.steps))
    counts = result.tier_counts()
    print()
    print(f"wrote {len(result.entries):,} words to {args.output}")
    print("tiers: " + ", ".join(f"{tier}: {count:,}" for tier, count in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
