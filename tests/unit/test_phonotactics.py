"""The phonotactics filter of the dictionary builder (spec B1)."""

from __future__ import annotations

import unicodedata

import pytest

from noitu.domain.noitu.phonotactics import (
    Q_RHYMES,
    RHYMES,
    is_vietnamese_syllable,
    is_vietnamese_word,
    split_syllable,
    split_tone,
)

ACCEPTED = [
    # every onset
    "ba", "ca", "cha", "da", "đa", "ga", "ghe", "gia", "ha", "kê", "kha", "la", "ma", "na",
    "nga", "nghe", "nha", "pin", "pha", "qua", "ra", "sa", "ta", "tha", "tra", "va", "xa",
    "an", "ơi", "ước", "yêu", "uể", "oải",
    # tone placement either way, i/y either way
    "hòa", "hoà", "khỏe", "khoẻ", "thúy", "thuý", "hủy", "huỷ", "lý", "lí", "quý", "quí",
    "kỳ", "kì", "ty", "ti", "sĩ", "sỹ", "mỹ", "mĩ",
    # diphthongs and triphthongs
    "mía", "tiếng", "khuya", "chuyện", "mua", "muối", "mưa", "người", "rượu", "hươu",
    "khuyên", "tuyết", "xoay", "ngoặt", "loét", "ngoẹo", "thuở", "huơ", "khuỷu", "huỳnh",
    "huých", "suýt", "khuấy", "tuần", "khuâng", "thuế", "huệch", "huênh", "ngoạm",
    # gi sharing its i, q with its u
    "già", "gì", "gìn", "giếng", "giết", "giữ", "giường", "giuộc", "quốc", "quên", "quyết",
    "quỳnh", "quýt", "quắp", "quạu", "quờ", "quậy",
    # the long o, checked syllables
    "xoong", "boong", "moóc", "cấp", "lạt", "học", "thích", "kịch", "ốc",
    # rare but real
    "ễng", "loẻng", "oẳng", "ngoao",
]

REJECTED = [
    # loanword spellings
    "ampe", "xtốp", "bloc", "axit", "acid", "logic", "video", "ôtô", "ximăng", "tuyn",
    "tuýp", "clo", "gram", "kilôgam",
    # spelling rules: k/gh/ngh before front vowels, c/g/ng elsewhere
    "ce", "ci", "ge", "nge", "ngi", "ka", "gha", "ngha", "ko",
    # q without u, iê/yê in the wrong place
    "qa", "qo", "tyên", "iên", "ya",
    # tones: two marks, a mark off the rhyme, a level/falling tone on a checked syllable
    "cưỡì", "lưỡí", "qúy", "qùy", "gìa", "cầp", "nhiêt", "thach", "ỏc",
    # letters and shapes that do not exist
    "", "hồng-hào", "ba1", "fa", "wa", "za", "ja", "h", "x", "ngườii",
    "trưởnc", "thhủ", "hìinh", "ðo",
]


@pytest.mark.parametrize("syllable", ACCEPTED)
def test_accepted(syllable: str) -> None:
    assert is_vietnamese_syllable(syllable), syllable


@pytest.mark.parametrize("syllable", REJECTED)
def test_rejected(syllable: str) -> None:
    assert not is_vietnamese_syllable(syllable), syllable


def test_checked_tone_rule_can_be_switched_off() -> None:
    assert not is_vietnamese_syllable("cầp")
    assert is_vietnamese_syllable("cầp", checked_tones=False)
    assert is_vietnamese_syllable("cap", checked_tones=False)


def test_words() -> None:
    assert is_vietnamese_word("hòa bình")
    assert is_vietnamese_word("quý giá vô cùng")
    assert not is_vietnamese_word("ampe kế")
    assert not is_vietnamese_word("kế  hoạch")  # an empty syllable


def test_split_tone() -> None:
    assert split_tone("hòa") == ("hoa", "\u0300", 1)
    assert split_tone("hoà") == ("hoa", "\u0300", 2)
    assert split_tone("người") == ("ngươi", "\u0300", 3)
    assert split_tone("ba") == ("ba", "", -1)
    assert split_tone(unicodedata.normalize("NFD", "khỏe")) == ("khoe", "\u0309", 2)
    assert split_tone("lưỡí") is None
    assert split_tone("\u0301a") is None


def test_split_syllable() -> None:
    assert split_syllable("nghiêng") == ("ngh", "iêng")
    assert split_syllable("gin") == ("gi", "n")
    assert split_syllable("gia") == ("gi", "a")
    assert split_syllable("quyêt") == ("q", "uyêt")
    assert split_syllable("uy") == ("", "uy")
    assert split_syllable("xtop") is None


def test_inventories_are_toneless_nfc() -> None:
    for rhyme in RHYMES | Q_RHYMES:
        assert unicodedata.is_normalized("NFC", rhyme)
        assert split_tone(rhyme) == (rhyme, "", -1)
