"""The dictionary shipped in noitu.assets (spec B1)."""

from __future__ import annotations

from importlib.resources import files

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines, parse_dictionary
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.phonotactics import is_vietnamese_word
from noitu.domain.noitu.rules import typed_word_too_long
from noitu.domain.noitu.spelling import normalize, syllables

WHEEL_SHA256 = "81400f41b75ceff6f80c52b4ad043806c80f5899ec555d8e6374d468a59bce56"


@pytest.fixture(scope="module")
def lines() -> list[str]:
    resource = files("noitu.assets") / "dictionary.txt"
    return resource.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def lexicon(lines: list[str]) -> Lexicon:
    return lexicon_from_lines(lines, "noitu.assets/dictionary.txt")


def test_header_records_the_source(lexicon: Lexicon) -> None:
    assert lexicon.metadata["wheel_sha256"] == WHEEL_SHA256
    assert lexicon.metadata["source"] == "underthesea"
    assert lexicon.metadata["version"] == "9.5.0"
    assert lexicon.metadata["licence"] == "Apache-2.0"
    assert int(lexicon.metadata["words"]) == len(lexicon)


def test_every_line_is_a_word_a_player_can_type(lines: list[str]) -> None:
    """The builder drops entries over the input limits; none is left to skip at load."""
    assert parse_dictionary(lines).skipped_lines == ()


def test_word_count(lexicon: Lexicon) -> None:
    assert 50_000 <= len(lexicon) <= 65_000


def test_file_is_already_merged_and_sorted(lines: list[str], lexicon: Lexicon) -> None:
    entries = parse_dictionary(lines).entries
    words = [entry.word for entry in entries]
    assert words == sorted(words)
    assert len(set(words)) == len(words)
    # No two lines of the file are spellings of one family.
    assert lexicon.words == words
    assert all(1 <= entry.tier <= 4 for entry in entries)
    assert all(line.count("\t") == 1 for line in lines if line and not line.startswith("#"))


def test_tier_counts_match_the_header(lexicon: Lexicon) -> None:
    counts = {tier: lexicon.tiers.count(tier) for tier in (1, 2, 3, 4)}
    assert lexicon.metadata["tiers"] == " ".join(f"{t}={n}" for t, n in counts.items())
    assert all(counts.values())


def test_every_word_is_playable(lexicon: Lexicon) -> None:
    for word_id, word in enumerate(lexicon.words):
        assert normalize(word) == word, word
        assert len(syllables(word)) >= 2, word
        assert is_vietnamese_word(word), word
        assert not any(letter in word for letter in "fjwz"), word
        assert not typed_word_too_long(word), word  # a player can type it (B2)
        assert lexicon.resolve(word) == word_id, word


def test_common_words_and_variants(lexicon: Lexicon) -> None:
    assert lexicon.tiers[lexicon.word_ids["hòa bình"]] == 1
    assert lexicon.resolve("hoà bình") == lexicon.word_ids["hòa bình"]
    assert lexicon.resolve("thư kí") == lexicon.word_ids["thư ký"]
    assert len(lexicon.opening_candidates) > 1_000
