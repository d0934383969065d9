"""The Lexicon: every playable word, indexed for the game (spec B1, B3, B5, B6).

The Lexicon is built from the lines of a dictionary file; reading the file itself is an
adapter's job. Words get dense integer ids so that the game and the bots can work on
ints and lists instead of strings and sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from noitu.domain.noitu.spelling import (
    normalize,
    preferred_spelling_score,
    resolve_spelling,
    syllable_key,
)

MIN_SYLLABLES = 2
MAX_MEANINGS = 5
COMMON_TIER = 2
OPENING_MIN_REPLIES = 20
TIERS = ("1", "2", "3", "4")


@dataclass(frozen=True, slots=True)
class Meaning:
    pos: str
    gloss: str


class DictionaryEntry(NamedTuple):
    """One word line of a dictionary file."""

    word: str
    tier: int = 1
    meanings: tuple[Meaning, ...] = ()
    line: int = 0


@dataclass(frozen=True, slots=True)
class DictionaryFile:
    """The parsed content of a dictionary file, before spelling families are merged."""

    entries: tuple[DictionaryEntry, ...]
    metadata: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Word:
    """A playable word as the game shows it."""

    id: int
    text: str
    syllables: int
    tier: int
    meanings: tuple[Meaning, ...]


class DictionaryFormatError(ValueError):
    """A dictionary file that cannot be loaded; names the source and the line."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}:{line}: {problem}")
        self.source = source
        self.line = line
        self.problem = problem


def parse_dictionary(lines: Iterable[str], source: str = "<dictionary>") -> DictionaryFile:
    """Parse the B1 file format. Rejects unnormalized, short or repeated words."""
    entries: list[DictionaryEntry] = []
    metadata: dict[str, str] = {}
    seen: dict[str, int] = {}
    tier_cells = {cell: int(cell) for cell in TIERS}
    for number, line in enumerate(lines, start=1):
        if line.endswith("\n"):
            line = line[:-1]
        if line.endswith("\r"):
            line = line[:-1]
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
        if word in seen:
            raise DictionaryFormatError(source, number, f"word {word!r} repeats line {seen[word]}")
        seen[word] = number
        fast_tier = tier_cells.get(rest)
        if fast_tier is not None:
            entries.append(DictionaryEntry(word, fast_tier, (), number))
        elif not rest:
            entries.append(DictionaryEntry(word, 1, (), number))
        else:
            tier, meanings = _parse_cells(rest.split("\t"), source, number)
            entries.append(DictionaryEntry(word, tier, meanings, number))
    return DictionaryFile(tuple(entries), metadata)


def _parse_cells(cells: list[str], source: str, number: int) -> tuple[int, tuple[Meaning, ...]]:
    """A tier cell (a single digit 1-4) and meaning cells (pos|gloss) of one word line."""
    tier: int | None = None
    meanings: list[Meaning] = []
    for cell in cells:
        if not cell.strip():
            continue  # a stray tab is harmless
        if cell in TIERS:
            if tier is not None:
                raise DictionaryFormatError(source, number, "more than one tier cell")
            tier = int(cell)
            continue
        pos, bar, gloss = cell.partition("|")
        if not bar:
            raise DictionaryFormatError(
                source, number, f"cell {cell!r} is neither a tier 1-4 nor a meaning pos|gloss"
            )
        if gloss.strip():
            meanings.append(Meaning(pos.strip(), gloss.strip()))
    return tier or 1, tuple(meanings)


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


class _SyllableIds(dict[str, int]):
    """written syllable -> the Lexicon's syllable id (spellings of one syllable share it)."""

    def __init__(self, lexicon: Lexicon) -> None:
        super().__init__()
        self._lexicon = lexicon

    def __missing__(self, syllable: str) -> int:
        found = self[syllable] = self._lexicon._syllable_id(syllable)
        return found


class Lexicon:
    """Every playable word, with ids, tiers, meanings and the first-syllable index."""

    def __init__(self, entries: Iterable[DictionaryEntry], metadata: dict[str, str] | None = None):
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
        ids = _SyllableIds(self)
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
        # Words with the same first and last syllable are interchangeable for the rest of
        # a game; the bots search over these "edges" instead of over single words.
        edge_ids: dict[tuple[int, int], int] = {}
        self.edge_of: list[int] = []
        self.edge_last: list[int] = []
        self.edge_size: list[int] = []
        edges_from: list[list[int]] = [[] for _ in self.syllable_names]
        for first, last in zip(self.first, self.last):
            edge = edge_ids.get((first, last))
            if edge is None:
                edge = edge_ids[(first, last)] = len(self.edge_last)
                self.edge_last.append(last)
                self.edge_size.append(0)
                edges_from[first].append(edge)
            self.edge_of.append(edge)
            self.edge_size[edge] += 1
        self.edges_from: list[tuple[int, ...]] = [tuple(e) for e in edges_from]
        self.opening_candidates: tuple[int, ...] = tuple(
            i for i, last in enumerate(self.last) if self.out_degree[last] >= OPENING_MIN_REPLIES
        )
        self.common_opening_candidates: tuple[int, ...] = tuple(
            i for i in self.opening_candidates if self.tiers[i] <= COMMON_TIER
        )
        self._index_for_bots()

    def _index_for_bots(self) -> None:
        """Indexes the bots read on every reply, built once so that a reply stays cheap.

        - `edge_first[e]`: the first syllable of edge e.
        - `edges_into[s]`: the edges whose words end on syllable s.
        - `outcome[s]`: the value of syllable s for the side to move, by retrograde
          analysis of the syllable graph: d > 0 when that side wins and d < 0 when it
          loses, the game ending on the |d|-th position from here (this one counts as
          the first: a syllable no word starts with is -1, one with a word into such a
          syllable is +2); 0 when neither side can force an end. The analysis lets
          every word be played again, except words that start and end on the same
          syllable (such as "gì gì"): such words only hand the same syllable
          back, so they decide by their number, odd or even, when every other move
          loses. Words do run out, so this is exact for -1 and +2 and a guide beyond.
        - `draw_moves[s]`: for a syllable of outcome 0, how many words lead from it to
          a syllable of outcome 0 (its only moves that do not lose by the analysis);
          once a game has used them all, the side to move there is lost by it too.
        - `draw_edges_from[s]`: the edges from s into a syllable of outcome 0.
        - `edges_ranked[s]`: the edges from s, best first for the side moving by the
          outcome of their last syllable: quick wins, slower wins, draws, slow losses,
          quick losses; ties in edge order.
        """
        count = len(self.syllable_names)
        edge_last = self.edge_last
        first_of_edge = dict(zip(self.edge_of, self.first))
        edge_first = list(map(first_of_edge.__getitem__, range(len(edge_last))))
        into: list[list[int]] = [[] for _ in range(count)]
        loops = [0] * count  # words that start and end on the same syllable
        edge_size = self.edge_size
        for edge, (first, last) in enumerate(zip(edge_first, edge_last)):
            into[last].append(edge)
            if first == last:
                loops[first] = edge_size[edge]
        self.edge_first: list[int] = edge_first
        self.edges_into: list[list[int]] = into
        self._common_starting_with: list[tuple[int, ...] | None] = [None] * count

        # Retrograde analysis, breadth first so that every distance is the shortest win
        # (or the longest loss) once the position is decided.
        # A syllable whose other moves all lose is won by whoever does not play the last
        # of its looping words: the side to move when an odd number of them is left.
        outcome = [0] * count
        undecided_moves = [len(edges) - (loops[s] > 0) for s, edges in enumerate(self.edges_from)]
        queue = [s for s in range(count) if not undecided_moves[s]]
        for s in queue:
            outcome[s] = loops[s] + 1 if loops[s] % 2 else -loops[s] - 1
        head = 0
        while head < len(queue):
            target = queue[head]
            head += 1
            value = outcome[target]
            for edge in into[target]:
                source = edge_first[edge]
                if outcome[source]:
                    continue
                if value < 0:
                    outcome[source] = 1 - value
                    queue.append(source)
                else:
                    undecided_moves[source] -= 1
                    if not undecided_moves[source]:
                        spins = loops[source]
                        outcome[source] = spins + value + 1 if spins % 2 else -spins - value - 1
                        queue.append(source)
        self.outcome: list[int] = outcome
        draw_moves = [0] * count
        draw_edges: list[list[int]] = [[] for _ in range(count)]
        for target, value in enumerate(outcome):
            if not value:
                for edge in into[target]:
                    source = edge_first[edge]
                    draw_edges[source].append(edge)
                    if not outcome[source]:
                        draw_moves[source] += edge_size[edge]
        self.draw_moves: list[int] = draw_moves
        self.draw_edges_from: list[list[int]] = draw_edges

        worst = -2 * count  # below any distance
        badness = [
            worst - value if value < 0 else (-worst - value if value > 0 else 0)
            for value in outcome
        ]
        edge_badness = list(map(badness.__getitem__, edge_last))
        self.edges_ranked: list[tuple[int, ...]] = [
            tuple(sorted(edges, key=edge_badness.__getitem__)) for edges in self.edges_from
        ]

    def common_starting_with(self, syllable: int) -> tuple[int, ...]:
        """The tier ≤ 2 words starting with a syllable (an index filled on first use)."""
        found = self._common_starting_with[syllable]
        if found is None:
            tiers = self.tiers
            found = tuple(w for w in self.starting_with[syllable] if tiers[w] <= COMMON_TIER)
            self._common_starting_with[syllable] = found
        return found

    @classmethod
    def from_lines(cls, lines: Iterable[str], source: str = "<dictionary>") -> Lexicon:
        parsed = parse_dictionary(lines, source)
        return cls(parsed.entries, parsed.metadata)

    def _syllable_id(self, name: str) -> int:
        key = syllable_key(name)
        found = self.syllable_ids.get(key)
        if found is None:
            found = len(self.syllable_names)
            self.syllable_ids[key] = found
            self.syllable_names.append(key)
        return found

    def syllable_id(self, syllable: str) -> int | None:
        """The id of a syllable, whichever of its spellings is given."""
        return self.syllable_ids.get(syllable_key(syllable))

    def last_syllable(self, word_id: int) -> str:
        """The last syllable of a word as the word writes it."""
        return self.words[word_id].rpartition(" ")[2]

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.word_ids

    def word(self, word_id: int) -> Word:
        return Word(
            word_id,
            self.words[word_id],
            self.syllable_counts[word_id],
            self.tiers[word_id],
            self.meanings[word_id],
        )

    def resolve(self, typed: str) -> int | None:
        """The id of the word a normalized spelling stands for (spec B3), or None."""
        found = self.word_ids.get(typed)
        if found is not None:
            return found
        canonical = resolve_spelling(typed, self.word_ids.__contains__)
        return None if canonical is None else self.word_ids[canonical]

    def replies_to(self, syllable: str) -> int:
        """How many dictionary words start with a syllable (used or not)."""
        found = self.syllable_id(syllable)
        return 0 if found is None else self.out_degree[found]

    def words_starting_with(self, syllable: str) -> Sequence[int]:
        found = self.syllable_id(syllable)
        return () if found is None else self.starting_with[found]


# --- snapshots ---------------------------------------------------------------------------
# A built Lexicon as plain lists, dicts and tuples, so that an adapter can keep it on disk
# and skip the build next time (as Python keeps .pyc files). The domain does no I/O.

SNAPSHOT_FORMAT = 1


def lexicon_snapshot(lexicon: Lexicon) -> dict[str, object]:
    """Every attribute of a built Lexicon, meanings as (pos, gloss) pairs."""
    state = dict(vars(lexicon))
    state["meanings"] = [tuple((m.pos, m.gloss) for m in ms) for ms in lexicon.meanings]
    state["_common_starting_with"] = None
    return {"format": SNAPSHOT_FORMAT, "state": state}


def lexicon_from_snapshot(snapshot: dict[str, object]) -> Lexicon:
    if snapshot.get("format") != SNAPSHOT_FORMAT:
        raise ValueError("unknown lexicon snapshot format")
    state = dict(snapshot["state"])  # type: ignore[arg-type]
    state["meanings"] = [
        tuple(Meaning(pos, gloss) for pos, gloss in ms) if ms else () for ms in state["meanings"]
    ]
    state["_common_starting_with"] = [None] * len(state["syllable_names"])
    lexicon = Lexicon.__new__(Lexicon)
    vars(lexicon).update(state)
    return lexicon
