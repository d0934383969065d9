"""Dictionary files (the shipped one, or an operator's NOITU_DICTIONARY): the B1 file
format, and the built-Lexicon cache.

Building a Lexicon from 58,000 lines takes about half a second, and the bots' index of
it another ~40 ms; both are kept in a cache file (like Python's .pyc files) named by the
dictionary's SHA-256 and the code that builds them, so later starts load them in a few
tens of milliseconds. A missing, unwritable or stale cache only costs the build; it
never changes what is loaded.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import structlog

from noitu.domain.noitu import families, rules, spelling, words
from noitu.domain.noitu import lexicon as lexicon_module
from noitu.domain.noitu.bots import index as bot_index_module
from noitu.domain.noitu.bots.index import BotIndex
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.rules import (
    MAX_TYPED_CHARACTERS,
    MAX_TYPED_TOKENS,
    MIN_SYLLABLES,
    TIERS,
    typed_word_too_long,
)
from noitu.domain.noitu.spelling import normalize
from noitu.domain.noitu.words import DictionaryEntry, Meaning

SHIPPED_DICTIONARY = "dictionary.txt"
CACHE_FILES_KEPT = 4  # the newest built Lexicons; older ones (old versions) are removed
SKIPPED_LINES_LOGGED = 20  # untypable words named one by one; the rest are counted
UNTYPABLE = f"more than {MAX_TYPED_TOKENS} syllables or {MAX_TYPED_CHARACTERS} characters"
SNAPSHOT_FORMAT = 3
log = structlog.get_logger("noitu.dictionary")


class DictionaryUnreadable(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class DictionaryFile:
    """The parsed content of a dictionary file, before spelling families are merged."""

    entries: tuple[DictionaryEntry, ...]
    metadata: dict[str, str] = field(default_factory=dict)
    skipped_lines: tuple[int, ...] = ()  # words no player can type (B2's input limits)


class DictionaryFormatError(ValueError):
    """A dictionary file that cannot be loaded; names the source and the line."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}:{line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


def parse_dictionary(lines: Iterable[str], source: str = "<dictionary>") -> DictionaryFile:
    """Parse the B1 file format. Rejects unnormalized, short or repeated words; skips,
    with a warning naming the line, words longer than a player may type (they could
    never be played, yet would count as replies, suggestions and bot moves)."""
    entries: list[DictionaryEntry] = []
    skipped: list[int] = []
    metadata: dict[str, str] = {}
    seen: dict[str, int] = {}
    tier_cells = {str(tier): tier for tier in TIERS}
    for number, line in enumerate(lines, start=1):
        line = line.removesuffix("\n")
        line = line.removesuffix("\r")
        if not line or line[0] == "#":
            if line.startswith("#@"):
                key, _, value = line[2:].partition(" ")
                if key:
                    metadata[key] = value.strip()
            continue
        word, _, rest = line.partition("\t")
        if normalize(word) != word:
            if not line.strip():
                continue
            raise DictionaryFormatError(
                source, number, f"word {word!r} is not normalized (expected {normalize(word)!r})"
            )
        if word.count(" ") + 1 < MIN_SYLLABLES:
            raise DictionaryFormatError(
                source, number, f"word {word!r} has fewer than {MIN_SYLLABLES} syllables"
            )
        if typed_word_too_long(word):
            skipped.append(number)
            if len(skipped) <= SKIPPED_LINES_LOGGED:
                log.warning(
                    "dictionary_word_skipped",
                    at=f"{source}:{number}",
                    word=word[: MAX_TYPED_CHARACTERS + 16],
                    reason=f"{UNTYPABLE}: no player can type it",
                )
            continue
        if word in seen:
            raise DictionaryFormatError(source, number, f"word {word!r} repeats line {seen[word]}")
        seen[word] = number
        fast_tier = tier_cells.get(rest)
        if fast_tier is not None:
            entries.append(DictionaryEntry(word, fast_tier, (), number))
        elif not rest:
            entries.append(DictionaryEntry(word, 1, (), number))
        else:
            tier, meanings = _parse_cells(rest.split("\t"), tier_cells, source, number)
            entries.append(DictionaryEntry(word, tier, meanings, number))
    if len(skipped) > SKIPPED_LINES_LOGGED:
        log.warning(
            "dictionary_words_skipped",
            source=source,
            count=len(skipped),
            unnamed=len(skipped) - SKIPPED_LINES_LOGGED,
            reason=UNTYPABLE,
        )
    return DictionaryFile(tuple(entries), metadata, tuple(skipped))


def _parse_cells(
    cells: list[str], tier_cells: dict[str, int], source: str, number: int
) -> tuple[int, tuple[Meaning, ...]]:
    """A tier cell (a single digit 1-4) and meaning cells (pos|gloss) of one word line."""
    tier: int | None = None
    meanings: list[Meaning] = []
    for cell in cells:
        if not cell.strip():
            continue  # a stray tab is harmless
        if cell in tier_cells:
            if tier is not None:
                raise DictionaryFormatError(source, number, "more than one tier cell")
            tier = tier_cells[cell]
            continue
        pos, bar, gloss = cell.partition("|")
        if not bar:
            raise DictionaryFormatError(
                source, number, f"cell {cell!r} is neither a tier 1-4 nor a meaning pos|gloss"
            )
        if gloss.strip():
            meanings.append(Meaning(pos.strip(), gloss.strip()))
    return tier or 1, tuple(meanings)


def lexicon_from_lines(lines: Iterable[str], source: str = "<dictionary>") -> Lexicon:
    """The Lexicon of the lines of a dictionary file."""
    parsed = parse_dictionary(lines, source)
    return Lexicon(parsed.entries, parsed.metadata)


# --- the built-Lexicon cache ---------------------------------------------------------------


def lexicon_snapshot(lexicon: Lexicon, index: BotIndex) -> dict[str, object]:
    """A built Lexicon and its BotIndex as plain lists, dicts and tuples (what marshal
    can write): their SNAPSHOT_FIELDS, meanings as (pos, gloss) pairs."""
    fields = lexicon.fields()
    fields["meanings"] = [tuple((m.pos, m.gloss) for m in ms) for ms in lexicon.meanings]
    return {"format": SNAPSHOT_FORMAT, "lexicon": fields, "bots": index.fields()}


def lexicon_from_snapshot(snapshot: Any) -> Lexicon:
    if not isinstance(snapshot, dict) or snapshot.get("format") != SNAPSHOT_FORMAT:
        raise ValueError("unknown lexicon snapshot format")
    fields = dict(snapshot["lexicon"])
    fields["meanings"] = [
        tuple(Meaning(pos, gloss) for pos, gloss in ms) if ms else () for ms in fields["meanings"]
    ]
    lexicon = Lexicon.from_fields(fields)
    _LOADED_INDEXES[lexicon] = BotIndex.from_fields(lexicon, snapshot["bots"])
    return lexicon


# The bots' index of each Lexicon loaded from the cache, until the Lexicon is gone.
_LOADED_INDEXES: weakref.WeakKeyDictionary[Lexicon, BotIndex] = weakref.WeakKeyDictionary()


def bot_index_of(lexicon: Lexicon) -> BotIndex:
    """The bots' index of a Lexicon: the one its cache file held, else built now."""
    found = _LOADED_INDEXES.get(lexicon)
    if found is None:
        found = _LOADED_INDEXES[lexicon] = BotIndex(lexicon)
    return found


def _code_fingerprint() -> bytes:
    """The source of everything that shapes a built Lexicon: a new version rebuilds."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for module in (lexicon_module, families, spelling, rules, words, bot_index_module):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    return digest.digest()


def _read(path: str | None) -> tuple[str, bytes]:
    if path:
        try:
            return path, Path(path).read_bytes()
        except OSError as error:
            raise DictionaryUnreadable(
                f"{path}: cannot read the dictionary ({error.strerror})"
            ) from None
    shipped = resources.files("noitu.assets") / SHIPPED_DICTIONARY
    return f"<shipped {SHIPPED_DICTIONARY}>", shipped.read_bytes()


def _build(source: str, data: bytes) -> Lexicon:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DictionaryUnreadable(f"{source}: the dictionary is not UTF-8 ({error.reason})") from None
    try:
        return lexicon_from_lines(text.split("\n"), source)
    except DictionaryFormatError:
        raise
    except ValueError as error:
        raise DictionaryUnreadable(f"{source}: {error}") from None


def load_lexicon(path: str | None = None, cache_dir: Path | None = None) -> Lexicon:
    """The Lexicon of a dictionary file (the shipped one without a path); errors name
    the file (and the line). With a cache folder, a built Lexicon is kept there."""
    source, data = _read(path)
    if cache_dir is None:
        return _build(source, data)
    key = hashlib.sha256(_code_fingerprint() + hashlib.sha256(data).digest()).hexdigest()
    cached = Path(cache_dir) / f"lexicon-{key[:32]}.marshal"
    try:
        return lexicon_from_snapshot(marshal.loads(cached.read_bytes()))
    except FileNotFoundError:
        pass
    except (OSError, ValueError, EOFError, TypeError, KeyError) as error:
        log.warning("lexicon_cache_unreadable", path=str(cached), error=type(error).__name__)
    lexicon = _build(source, data)
    _store(cached, lexicon)
    return lexicon


def _store(cached: Path, lexicon: Lexicon) -> None:
    try:
        blob = marshal.dumps(lexicon_snapshot(lexicon, bot_index_of(lexicon)))
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cached.parent, delete=False) as handle:
            handle.write(blob)
        os.replace(handle.name, cached)
        _forget_old(cached)
    except (OSError, ValueError) as error:
        log.info("lexicon_cache_skipped", path=str(cached), error=type(error).__name__)


def _forget_old(newest: Path) -> None:
    """Keep the cache small: every code or dictionary change leaves a file behind."""
    others = [f for f in newest.parent.glob("lexicon-*.marshal") if f != newest]
    others.sort(key=lambda f: f.stat().st_mtime, reverse=True)
    for stale in others[CACHE_FILES_KEPT - 1 :]:
        stale.unlink(missing_ok=True)
