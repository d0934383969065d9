"""Normalization (spec B2) and spelling variants (spec B3)."""

from __future__ import annotations

import unicodedata

import pytest

from noitu.domain.noitu.spelling import (
    family_key,
    i_y_variant,
    normalize,
    preferred_spelling_score,
    resolve_spelling,
    syllable_spellings,
    syllables,
    tone_placement_variant,
    word_variants,
)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


# --- normalization ---------------------------------------------------------------------


def test_nfd_input_becomes_nfc() -> None:
    typed = nfd("hòa bình")
    assert typed != "hòa bình"
    assert normalize(typed) == "hòa bình"
    assert unicodedata.is_normalized("NFC", normalize(nfd("người Việt")))


def test_nfc_input_is_unchanged() -> None:
    assert normalize("hòa bình") == "hòa bình"


def test_mixed_case_is_lowered() -> None:
    assert normalize("HÒA Bình") == "hòa bình"
    assert normalize("ĐƯỜNG Đi") == "đường đi"
    assert normalize(nfd("NGƯỜI")) == "người"


@pytest.mark.parametrize(
    "typed",
    [
        "hòa\tbình",
        "  hòa   bình  ",
        "hòa\u00a0bình",
        "hòa\u3000bình",
        "\thòa \u00a0\u3000 bình\n",
        "hòa\u2003bình",
    ],
)
def test_whitespace_is_collapsed(typed: str) -> None:
    assert normalize(typed) == "hòa bình"


def test_empty_and_blank_strings() -> None:
    assert normalize("") == ""
    assert normalize(" \t\u00a0\u3000") == ""


def test_nothing_else_is_stripped() -> None:
    assert normalize("Hồng-Hào") == "hồng-hào"
    assert syllables(normalize("hồng-hào")) == ["hồng-hào"]
    assert normalize("hồng hào!") == "hồng hào!"


# --- tone placement --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [("hòa", "hoà"), ("khỏe", "khoẻ"), ("thúy", "thuý"), ("hủy", "huỷ"), ("họa", "hoạ"),
     ("ủy", "uỷ"), ("lõa", "loã")],
)
def test_tone_placement_pairs(one: str, other: str) -> None:
    assert tone_placement_variant(one) == other
    assert tone_placement_variant(other) == one


@pytest.mark.parametrize(
    "syllable",
    ["hoàn", "hoài", "quý", "quỳ", "hoa", "khuy", "thuở", "ngoằn", "hoèn", "a", ""],
)
def test_tone_placement_does_not_apply(syllable: str) -> None:
    assert tone_placement_variant(syllable) is None


def test_tone_placement_works_on_nfd_clusters() -> None:
    assert tone_placement_variant(nfd("hòa")) == "hoà"


# --- i/y -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [("lý", "lí"), ("kỳ", "kì"), ("quý", "quí"), ("ti", "ty"), ("hỷ", "hỉ"), ("mỹ", "mĩ"),
     ("sĩ", "sỹ"), ("vĩ", "vỹ")],
)
def test_i_y_pairs(one: str, other: str) -> None:
    assert i_y_variant(one) == other
    assert i_y_variant(other) == one


@pytest.mark.parametrize("syllable", ["gì", "chì", "thi", "tính", "si", "vi", "sỉ", "lê", "y", "í"])
def test_i_y_does_not_apply(syllable: str) -> None:
    assert i_y_variant(syllable) is None


def test_syllable_spellings_lists_itself_first() -> None:
    assert list(syllable_spellings("hòa")) == ["hòa", "hoà"]
    assert list(syllable_spellings("lý")) == ["lý", "lí"]
    assert list(syllable_spellings("bình")) == ["bình"]


# --- whole words -----------------------------------------------------------------------


def test_word_without_variants() -> None:
    assert word_variants("bình minh") == []


def test_one_syllable_varied() -> None:
    assert word_variants("hòa bình") == ["hoà bình"]
    assert word_variants("lý do") == ["lí do"]


def test_all_syllables_are_varied_together() -> None:
    variants = word_variants("thủy lý")
    assert sorted(variants) == sorted(["thủy lí", "thuỷ lý", "thuỷ lí"])
    assert "thủy lý" not in variants


def test_product_over_syllables() -> None:
    assert sorted(word_variants("hòa khỏe ti")) == sorted(
        f"{a} {b} {c}"
        for a in ("hòa", "hoà")
        for b in ("khỏe", "khoẻ")
        for c in ("ti", "ty")
        if (a, b, c) != ("hòa", "khỏe", "ti")
    )


def test_variants_are_capped_at_32() -> None:
    assert len(word_variants(" ".join(["hòa"] * 6))) == 32


# --- resolution ------------------------------------------------------------------------


def test_exact_word_is_returned() -> None:
    assert resolve_spelling("hòa bình", {"hòa bình"}.__contains__) == "hòa bình"


def test_variant_resolves_to_the_known_word() -> None:
    known = {"hòa bình", "sĩ quan"}
    assert resolve_spelling("hoà bình", known.__contains__) == "hòa bình"
    assert resolve_spelling("sỹ quan", known.__contains__) == "sĩ quan"


def test_exact_beats_variant() -> None:
    known = {"hòa bình", "hoà bình"}
    assert resolve_spelling("hoà bình", known.__contains__) == "hoà bình"
    assert resolve_spelling("hòa bình", known.__contains__) == "hòa bình"


def test_two_matching_variants_are_ambiguous() -> None:
    known = {"thủy lý", "thuỷ lí"}
    assert resolve_spelling("thủy lí", known.__contains__) is None


def test_no_match() -> None:
    assert resolve_spelling("hoà bình", {"bình minh"}.__contains__) is None
    assert resolve_spelling("gì đó", {"gỳ đó"}.__contains__) is None


# --- families --------------------------------------------------------------------------


def test_family_key_is_shared_by_every_spelling() -> None:
    spellings = ["thủy lý", "thủy lí", "thuỷ lý", "thuỷ lí"]
    assert len({family_key(word) for word in spellings}) == 1
    assert family_key("hòa bình") != family_key("hoa bình")


def test_preferred_spelling_score() -> None:
    assert preferred_spelling_score("hòa bình") > preferred_spelling_score("hoà bình")
    assert preferred_spelling_score("lý do") > preferred_spelling_score("lí do")
    assert preferred_spelling_score("quý giá") > preferred_spelling_score("quí giá")
    assert preferred_spelling_score("bình minh") == 0
