"""The dictionary file format and the Lexicon (spec B1, B3, B6)."""

from __future__ import annotations

import unicodedata

import pytest
import structlog

from noitu.adapters.noitu.dictionary_file import (
    DictionaryFormatError,
    lexicon_from_lines,
    parse_dictionary,
)
from noitu.domain.noitu.families import merge_families
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.words import DictionaryEntry, Meaning, Word

# --- families --------------------------------------------------------------------------


def only_word(lexicon: Lexicon) -> str:
    assert len(lexicon) == 1
    return lexicon.words[0]


def test_lower_tier_wins() -> None:
    lexicon = lexicon_from_lines(["hòa bình\t3", "hoà bình\t1"])
    assert only_word(lexicon) == "hoà bình"
    assert lexicon.tiers[0] == 1


def test_tie_goes_to_tone_on_first_vowel() -> None:
    for lines in (["hòa bình\t2", "hoà bình\t2"], ["hoà bình\t2", "hòa bình\t2"]):
        assert only_word(lexicon_from_lines(lines)) == "hòa bình"
    assert only_word(lexicon_from_lines(["khoẻ mạnh", "khỏe mạnh"])) == "khỏe mạnh"
    assert only_word(lexicon_from_lines(["thuý vân", "thúy vân"])) == "thúy vân"


def test_tie_goes_to_y() -> None:
    assert only_word(lexicon_from_lines(["lí do", "lý do"])) == "lý do"
    assert only_word(lexicon_from_lines(["kĩ càng\t3", "kỹ càng\t3"])) == "kỹ càng"
    assert only_word(lexicon_from_lines(["quí giá", "quý giá"])) == "quý giá"


def test_lower_tier_beats_house_spelling() -> None:
    assert only_word(lexicon_from_lines(["lý do\t4", "lí do\t2"])) == "lí do"


def test_one_spelling_is_kept_as_written() -> None:
    lexicon = lexicon_from_lines(["hoà bình\t4"])
    assert only_word(lexicon) == "hoà bình"
    assert lexicon.resolve("hòa bình") == 0


def test_either_spelling_resolves_to_the_canonical_id() -> None:
    lexicon = lexicon_from_lines(["bình minh", "hoà bình\t2", "hòa bình\t2", "lí do", "lý do"])
    assert lexicon.words == ["bình minh", "hòa bình", "lý do"]
    canonical = lexicon.word_ids["hòa bình"]
    assert lexicon.resolve("hòa bình") == canonical
    assert lexicon.resolve("hoà bình") == canonical
    assert lexicon.resolve("lí do") == lexicon.resolve("lý do") == lexicon.word_ids["lý do"]
    assert "hoà bình" not in lexicon
    assert lexicon.resolve("hoa bình") is None


def test_whole_families_of_multi_syllable_words() -> None:
    lexicon = lexicon_from_lines(["thuỷ lí\t3", "thủy lí\t3", "thủy lý\t3", "thuỷ lý\t4"])
    assert only_word(lexicon) == "thủy lý"
    for spelling in ("thuỷ lí", "thủy lí", "thủy lý", "thuỷ lý"):
        assert lexicon.resolve(spelling) == 0


def test_meanings_are_joined_canonical_first() -> None:
    lexicon = lexicon_from_lines(
        ["hoà bình\t2\tn|không có chiến tranh", "hòa bình\t2\tn|yên ổn\tn|không có chiến tranh"]
    )
    assert only_word(lexicon) == "hòa bình"
    assert lexicon.meanings[0] == (
        Meaning("n", "yên ổn"),
        Meaning("n", "không có chiến tranh"),
    )


def test_merge_families_sorts_by_code_point() -> None:
    merged = merge_families(
        [DictionaryEntry("đi học"), DictionaryEntry("ăn cơm"), DictionaryEntry("an toàn")]
    )
    assert [e.word for e in merged] == ["an toàn", "ăn cơm", "đi học"]


# --- the file format -------------------------------------------------------------------

SAMPLE = [
    "# a comment",
    "#@source test data",
    "#@licence Apache-2.0",
    "",
    "bình minh\t1",
    "   ",
    "hòa bình\t3\tn|trạng thái không có chiến tranh\tv|làm lành",
    "ăn cơm",
    "ca dao\tn|\t2\tn|thơ ca dân gian",
    "# trailing comment",
]


def test_tiers_meanings_and_metadata() -> None:
    parsed = parse_dictionary(SAMPLE, "sample.txt")
    assert parsed.metadata == {"source": "test data", "licence": "Apache-2.0"}
    by_word = {entry.word: entry for entry in parsed.entries}
    assert list(by_word) == ["bình minh", "hòa bình", "ăn cơm", "ca dao"]
    assert by_word["bình minh"].tier == 1
    assert by_word["hòa bình"].tier == 3
    assert by_word["hòa bình"].meanings == (
        Meaning("n", "trạng thái không có chiến tranh"),
        Meaning("v", "làm lành"),
    )
    assert by_word["ăn cơm"].tier == 1  # no tier cell
    assert by_word["ăn cơm"].meanings == ()
    assert by_word["ca dao"].tier == 2  # the tier cell may come after meanings
    assert by_word["ca dao"].meanings == (Meaning("n", "thơ ca dân gian"),)  # "n|" skipped
    assert by_word["hòa bình"].line == 7


def test_windows_line_endings() -> None:
    parsed = parse_dictionary(["bình minh\t2\r\n", "hòa bình\r\n"])
    assert [(e.word, e.tier) for e in parsed.entries] == [("bình minh", 2), ("hòa bình", 1)]


def test_lexicon_keeps_five_meanings() -> None:
    cells = "\t".join(f"n|nghĩa {i}" for i in range(1, 8))
    lexicon = lexicon_from_lines([f"hòa bình\t{cells}"])
    assert [m.gloss for m in lexicon.meanings[0]] == [f"nghĩa {i}" for i in range(1, 6)]


def test_lexicon_metadata() -> None:
    lexicon = lexicon_from_lines(SAMPLE, "sample.txt")
    assert lexicon.metadata["licence"] == "Apache-2.0"
    assert len(lexicon) == 4


@pytest.mark.parametrize(
    ("lines", "line_number", "fragment"),
    [
        (["bình minh", "Hòa bình"], 2, "not normalized"),
        (["bình minh", "hòa  bình"], 2, "not normalized"),
        (["bình minh", "hòa bình "], 2, "not normalized"),
        ([unicodedata.normalize("NFD", "hòa bình")], 1, "not normalized"),
        (["bình minh", "# note", "bình minh\t2"], 3, "repeats line 1"),
        (["bình minh", "", "hòa"], 3, "fewer than 2 syllables"),
        (["bình minh\tdanh từ"], 1, "neither a tier"),
        (["bình minh\t5"], 1, "neither a tier"),
        (["bình minh\t1\t2"], 1, "more than one tier"),
    ],
)
def test_rejected_lines_name_source_and_line(
    lines: list[str], line_number: int, fragment: str
) -> None:
    with pytest.raises(DictionaryFormatError) as caught:
        lexicon_from_lines(lines, "operator.txt")
    error = caught.value
    assert error.source == "operator.txt"
    assert error.line == line_number
    assert str(error).startswith(f"operator.txt:{line_number}: ")
    assert fragment in str(error)


NINE_SYLLABLES = "một con ngựa đau cả tàu không ăn cỏ"
EIGHT_SYLLABLES = "con ngựa đau cả tàu không ăn cỏ"
LONG_TWO_SYLLABLES = "a" * 40 + " " + "b" * 24  # 65 characters


def test_words_no_player_can_type_are_skipped_with_a_warning_naming_the_line() -> None:
    lines = ["bình minh", NINE_SYLLABLES, EIGHT_SYLLABLES, f"{LONG_TWO_SYLLABLES}\t2", "minh bạch"]
    with structlog.testing.capture_logs() as logs:
        parsed = parse_dictionary(lines, "operator.txt")
    assert [entry.word for entry in parsed.entries] == ["bình minh", EIGHT_SYLLABLES, "minh bạch"]
    assert parsed.skipped_lines == (2, 4)
    warnings = [entry for entry in logs if entry["log_level"] == "warning"]
    assert [w["at"] for w in warnings] == ["operator.txt:2", "operator.txt:4"]
    assert all(w["event"] == "dictionary_word_skipped" for w in warnings)
    assert warnings[0]["word"] == NINE_SYLLABLES
    assert "8 syllables or 64 characters" in warnings[0]["reason"]
    lexicon = lexicon_from_lines(lines, "operator.txt")
    assert lexicon.resolve(NINE_SYLLABLES) is None
    assert lexicon.resolve(LONG_TWO_SYLLABLES) is None
    assert len(lexicon) == 3


def test_a_skipped_word_does_not_count_as_a_repeat() -> None:
    parsed = parse_dictionary([NINE_SYLLABLES, NINE_SYLLABLES, "bình minh"])
    assert [entry.word for entry in parsed.entries] == ["bình minh"]
    assert parsed.skipped_lines == (1, 2)


def test_many_skipped_words_are_named_up_to_a_limit_then_counted() -> None:
    lines = [NINE_SYLLABLES] * 30 + ["bình minh"]
    with structlog.testing.capture_logs() as logs:
        parsed = parse_dictionary(lines, "big.txt")
    assert len(parsed.skipped_lines) == 30
    named = [e for e in logs if e["event"] == "dictionary_word_skipped"]
    counted = [e for e in logs if e["event"] == "dictionary_words_skipped"]
    assert len(named) == 20
    assert counted == [
        {
            "event": "dictionary_words_skipped",
            "source": "big.txt",
            "count": 30,
            "unnamed": 10,
            "reason": "more than 8 syllables or 64 characters",
            "log_level": "warning",
        }
    ]


def test_an_empty_dictionary_is_refused() -> None:
    with pytest.raises(ValueError):
        lexicon_from_lines(["# nothing here", "#@source none"])


# --- indexes ---------------------------------------------------------------------------

REPLY_SYLLABLES = [
    "an", "ba", "ca", "da", "đa", "ga", "ha", "la", "ma", "na",
    "pha", "ra", "sa", "ta", "tha", "tra", "va", "xa", "kha", "nha",
]


def chain_lexicon(replies_to_binh: int) -> Lexicon:
    lines = [f"bình {s}" for s in REPLY_SYLLABLES[:replies_to_binh]]
    lines += ["hòa bình\t2", "ca dao\t4", "dao cạo", "lý do"]
    return lexicon_from_lines(lines)


def test_first_syllable_index_and_out_degree() -> None:
    lexicon = chain_lexicon(3)
    binh = lexicon.syllable_id("bình")
    assert [lexicon.words[i] for i in lexicon.starting_with[binh]] == ["bình an", "bình ba", "bình ca"]
    assert lexicon.out_degree[binh] == 3
    assert lexicon.out_degree[lexicon.syllable_id("dao")] == 1
    assert lexicon.out_degree[lexicon.syllable_id("cạo")] == 0  # ends a word, starts none
    assert lexicon.syllable_id("không") is None  # in no word at all
    hoa_binh = lexicon.word_ids["hòa bình"]
    assert lexicon.out_degree[lexicon.last[hoa_binh]] == 3
    assert lexicon.word(hoa_binh) == Word(hoa_binh, "hòa bình", 2, 2)
    # Both spellings of a syllable are one syllable for the link.
    assert lexicon.syllable_id("hòa") == lexicon.syllable_id("hoà") == lexicon.first[hoa_binh]
    assert lexicon.syllable_counts[hoa_binh] == 2


def test_opening_candidates_need_twenty_replies() -> None:
    nineteen = chain_lexicon(19)
    assert nineteen.opening_candidates == ()
    twenty = chain_lexicon(20)
    assert [twenty.words[i] for i in twenty.opening_candidates] == ["hòa bình"]
