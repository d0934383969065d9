"""The Lexicon: every playable word, indexed for the rules (spec B1, B3, B5, B6).

A Lexicon is built from dictionary entries (reading and parsing a file is an adapter's
job); spellings of one word are merged first (`families`). Words get dense integer ids
so that the game works on ints and lists instead of strings and sets. The indexes only
the bots need are theirs (`bots.index`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from noitu.domain.noitu.families import merge_families
from noitu.domain.noitu.rules import COMMON_TIER, OPEN_MIN_COMMON_REPLIES, OPENING_MIN_REPLIES
from noitu.domain.noitu.spelling import resolve_spelling, syllable_key
from noitu.domain.noitu.words import DictionaryEntry, Meaning, Word

MAX_MEANINGS = 5


class _SyllableIds(dict[str, int]):
    """written syllable -> the Lexicon's syllable id (spellings of one syllable share it)."""

    def __init__(self, names: list[str], ids: dict[str, int]) -> None:
        super().__init__()
        self._names = names
        self._ids = ids

    def __missing__(self, syllable: str) -> int:
        key = syllable_key(syllable)
        found = self._ids.get(key)
        if found is None:
            found = self._ids[key] = len(self._names)
            self._names.append(key)
        self[syllable] = found
        return found


class Lexicon:
    """Every playable word, with ids, tiers, meanings and the first-syllable index."""

    # What a built Lexicon is made of: the attributes a snapshot (the adapters' cache
    # of a built Lexicon) keeps and `from_fields` takes back, named one by one.
    SNAPSHOT_FIELDS = (
        "metadata",
        "words",
        "tiers",
        "meanings",
        "word_ids",
        "syllable_names",
        "syllable_ids",
        "first",
        "last",
        "syllable_counts",
        "starting_with",
        "out_degree",
        "common_out_degree",
        "opening_candidates",
        "common_opening_candidates",
        "open_opening_candidates",
    )
    # Filled as the game goes, never stored: one Word per word id that was played; and
    # the words the live overlay took out (spec B11), still in `word_ids` for the chains
    # under way.
    CACHES = ("_played", "retired")

    def __init__(self, entries: Iterable[DictionaryEntry], metadata: Mapping[str, str] | None = None):
        merged = merge_families(entries)
        if not merged:
            raise ValueError("the dictionary has no words")
        self.metadata: dict[str, str] = dict(metadata or {})
        self.words: list[str] = [e.word for e in merged]
        self.tiers: list[int] = [e.tier for e in merged]
        self.meanings: list[tuple[Meaning, ...]] = [e.meanings[:MAX_MEANINGS] for e in merged]
        self.word_ids: dict[str, int] = {w: i for i, w in enumerate(self.words)}

        self.syllable_names: list[str] = []
        self.syllable_ids: dict[str, int] = {}
        ids = _SyllableIds(self.syllable_names, self.syllable_ids)
        heads, _, tails = zip(*(w.partition(" ") for w in self.words))
        self.first: list[int] = list(map(ids.__getitem__, heads))
        self.last: list[int] = [ids[t.rpartition(" ")[2]] for t in tails]
        self.syllable_counts: list[int] = [t.count(" ") + 2 for t in tails]

        starting: list[list[int]] = [[] for _ in self.syllable_names]
        for word_id, first in enumerate(self.first):
            starting[first].append(word_id)
        # Words are sorted, so every list is in code-point order.
        self.starting_with: list[tuple[int, ...]] = [tuple(ids) for ids in starting]
        self.out_degree: list[int] = [len(ids) for ids in starting]
        self.opening_candidates: tuple[int, ...] = tuple(
            i for i, last in enumerate(self.last) if self.out_degree[last] >= OPENING_MIN_REPLIES
        )
        self.common_opening_candidates: tuple[int, ...] = tuple(
            i for i in self.opening_candidates if self.tiers[i] <= COMMON_TIER
        )
        common_degree = [0] * len(self.syllable_names)
        for first, tier in zip(self.first, self.tiers):
            if tier <= COMMON_TIER:
                common_degree[first] += 1
        # syllable -> the common words (tier ≤ 2) starting with it
        self.common_out_degree: list[int] = common_degree
        self.open_opening_candidates: tuple[int, ...] = self._open_openings()
        self._played: dict[int, Word] = {}
        # word -> id of a word the overlay removed: no longer playable, still decodable
        self.retired: dict[str, int] = {}

    def _open_openings(self) -> tuple[int, ...]:
        """The common opening candidates whose last syllable starts ≥ 20 common words and
        that offer no immediate win: with only the opening played, no word answering it
        leaves the other side without a reply."""
        out_degree = self.out_degree
        last = self.last
        first = self.first
        starting_with = self.starting_with
        # syllable -> whether a word from it leads where no word starts
        into_dead_end: dict[int, bool] = {}
        found = []
        for opening in self.common_opening_candidates:
            answered = last[opening]
            if self.common_out_degree[answered] < OPEN_MIN_COMMON_REPLIES:
                continue
            wins = into_dead_end.get(answered)
            if wins is None:
                wins = into_dead_end[answered] = any(
                    not out_degree[last[w]] for w in starting_with[answered]
                )
            if wins:
                continue
            # The opening used the only word of its first syllable: a word into that
            # syllable leaves no reply. (A word into the answered syllable itself always
            # leaves one: it starts at least 20 words.)
            start = first[opening]
            if out_degree[start] == 1 + (start == answered) and any(
                last[w] == start for w in starting_with[answered] if w != opening
            ):
                continue
            found.append(opening)
        return tuple(found)

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> Lexicon:
        """A built Lexicon back from its SNAPSHOT_FIELDS (and nothing else)."""
        missing = [name for name in cls.SNAPSHOT_FIELDS if name not in fields]
        if missing or len(fields) != len(cls.SNAPSHOT_FIELDS):
            raise ValueError("a Lexicon snapshot needs exactly its SNAPSHOT_FIELDS")
        lexicon = cls.__new__(cls)
        for name in cls.SNAPSHOT_FIELDS:
            setattr(lexicon, name, fields[name])
        lexicon._played = {}
        lexicon.retired = {}
        return lexicon

    def fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.SNAPSHOT_FIELDS}

    def copy(self) -> Lexicon:
        """A Lexicon of the same words that changes on its own: every table the live
        overlay writes (each list and dict) is copied; strings and tuples are shared.
        Copying only reads this Lexicon."""
        fields = {
            name: value.copy() if isinstance(value, (list, dict)) else value
            for name, value in self.fields().items()
        }
        copied = Lexicon.from_fields(fields)
        copied.retired = dict(self.retired)
        return copied

    def syllable_id(self, syllable: str) -> int | None:
        """The id of a syllable, whichever of its spellings is given."""
        return self.syllable_ids.get(syllable_key(syllable))

    def last_syllable(self, word_id: int) -> str:
        """The last syllable of a word as the word writes it."""
        return self.words[word_id].rpartition(" ")[2]

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        """Whether a canonical word is playable (known, and not removed by the overlay)."""
        return word in self.word_ids and word not in self.retired

    def word(self, word_id: int) -> Word:
        """The Word of an id; one object per word, shared by every chain that holds it."""
        found = self._played.get(word_id)
        if found is None:
            found = self._played[word_id] = Word(
                word_id, self.words[word_id], self.syllable_counts[word_id], self.tiers[word_id]
            )
        return found

    def resolve(self, typed: str) -> int | None:
        """The id of the playable word a normalized spelling stands for (spec B3), or
        None."""
        found = self.word_ids.get(typed)
        retired = self.retired
        if found is not None:
            return None if retired and typed in retired else found
        canonical = resolve_spelling(
            typed, self.__contains__ if retired else self.word_ids.__contains__
        )
        return None if canonical is None else self.word_ids[canonical]

    # --- the live overlay (spec B11): words added and removed while the server runs ----
    #
    # Ids never change: an added word gets the next id (or its old id back), a removed
    # word keeps its id, its row and its place in `word_ids` (chains under way, and the
    # stores' codecs, still name it) and leaves only the indexes a new move or a bot
    # reads; `retired` says which. Each change costs the work of one first syllable's
    # word list, so a move costs the same with 0 or 10,000 additions.

    def id_of_any(self, word: str) -> int | None:
        """The id of a canonical word, playable or removed (what a stored chain names)."""
        return self.word_ids.get(word)

    def is_live(self, word_id: int) -> bool:
        return self.words[word_id] not in self.retired

    def add_word(self, word: str, tier: int, meanings: tuple[Meaning, ...] = ()) -> int:
        """Make a normalized, filtered word playable; its id. A spelling variant of a
        playable word (B3) joins that word's family: nothing changes."""
        known = self.resolve(word)
        if known is not None:
            return known
        word_id = self.retired.pop(word, None)
        if word_id is None:
            word_id = self._new_row(word, tier, meanings)
            self.word_ids[word] = word_id
        else:
            self.tiers[word_id] = tier
            self._played.pop(word_id, None)
        first = self.first[word_id]
        words = self.words
        self.starting_with[first] = tuple(
            sorted((*self.starting_with[first], word_id), key=words.__getitem__)
        )
        self.out_degree[first] += 1
        if tier <= COMMON_TIER:
            self.common_out_degree[first] += 1
        return word_id

    def remove_word(self, word: str) -> int | None:
        """Take a word (any spelling of it) out of new moves; its id, or None when it is
        not playable. Chains that hold it keep it."""
        word_id = self.resolve(word)
        if word_id is None:
            return None
        canonical = self.words[word_id]
        self.retired[canonical] = word_id
        first = self.first[word_id]
        self.starting_with[first] = tuple(w for w in self.starting_with[first] if w != word_id)
        self.out_degree[first] -= 1
        if self.tiers[word_id] <= COMMON_TIER:
            self.common_out_degree[first] -= 1
        for name in ("opening_candidates", "common_opening_candidates", "open_opening_candidates"):
            found = getattr(self, name)
            if word_id in found:
                setattr(self, name, tuple(w for w in found if w != word_id))
        return word_id

    def _new_row(self, word: str, tier: int, meanings: tuple[Meaning, ...]) -> int:
        word_id = len(self.words)
        self.words.append(word)
        self.tiers.append(tier)
        self.meanings.append(meanings[:MAX_MEANINGS])
        head, _, tail = word.partition(" ")
        self.first.append(self._syllable(head))
        self.last.append(self._syllable(tail.rpartition(" ")[2]))
        self.syllable_counts.append(tail.count(" ") + 2)
        return word_id

    def _syllable(self, syllable: str) -> int:
        key = syllable_key(syllable)
        found = self.syllable_ids.get(key)
        if found is None:
            found = self.syllable_ids[key] = len(self.syllable_names)
            self.syllable_names.append(key)
            self.starting_with.append(())
            self.out_degree.append(0)
            self.common_out_degree.append(0)
        return found
