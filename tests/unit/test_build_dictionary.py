"""scripts/build_dictionary.py on a tiny fake wheel (no network, no underthesea)."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_dictionary.py"


def load_builder() -> ModuleType:
    name = "noitu_build_dictionary_under_test"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


builder = load_builder()

SOURCES = {
    "Viet11K.txt": ["hoà bình", "ăn cơm", "a", ""],
    "Viet22K.txt": ["Hà Nội", "Lúc lắc", "lý do", "ăn cơm"],
    "Viet39K.txt": ["hòa bình", "bình minh", "lí do", "ca-dao", "ca dao 2"],
    "Viet74K.txt": [
        "lúc lắc", "bình minh", "fan hâm mộ", "ampe kế", "Bình Minh", "sơ mi-",
        "  ăn \u00a0 cơm ", "xoong nồi", "thuỷ lợi", "thủy lợi",
        "một con ngựa đau cả tàu không ăn cỏ",  # 9 syllables: more than a player may type
    ],
}

EXPECTED_WORDS = [
    ("bình minh", 3),
    ("hoà bình", 1),  # tier 1 (Viet11K) beats the house spelling hòa (Viet39K)
    ("lúc lắc", 4),  # "Lúc lắc" in Viet22K is dropped as a proper noun
    ("lý do", 2),
    ("thủy lợi", 4),  # a tie goes to the tone on the first vowel
    ("xoong nồi", 4),
    ("ăn cơm", 1),
]


def write_wheel(path: Path, sources: dict[str, list[str]], skip: str = "") -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("underthesea/__init__.py", "")
        for name, lines in sources.items():
            if name != skip:
                archive.writestr(builder.DATA_DIR + name, "\n".join(lines) + "\n")
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def wheel(tmp_path: Path) -> Path:
    return write_wheel(tmp_path / "underthesea-9.5.0-py3-none-any.whl", SOURCES)


def test_read_sources_from_the_zip(wheel: Path) -> None:
    sources = builder.read_sources(wheel)
    assert sources == SOURCES


def test_missing_word_list_is_an_error(tmp_path: Path) -> None:
    broken = write_wheel(tmp_path / "broken.whl", SOURCES, skip="Viet74K.txt")
    with pytest.raises(builder.BuildError, match="Viet74K.txt"):
        builder.read_sources(broken)


def test_filters_tiers_and_families() -> None:
    result = builder.build(SOURCES)
    assert [(e.word, e.tier) for e in result.entries] == EXPECTED_WORDS
    steps = [(s.name, s.kept, s.dropped) for s in result.steps]
    assert steps == [
        ("source lines (blank dropped)", 23, 1),
        ("proper nouns (a capital letter)", 20, 3),
        ("fewer than 2 syllables", 18, 2),  # "a", "ca-dao"
        ("digits, punctuation, hyphens", 16, 2),  # "ca dao 2", "sơ mi-"
        ("letters f, j, w, z", 15, 1),
        ("phonotactics", 14, 1),  # "ampe kế"
        ("more than 8 syllables or 64 characters", 13, 1),  # "một con ngựa đau …"
        ("duplicates", 10, 3),
        ("spelling families merged", 7, 3),
    ]
    assert result.tier_counts() == {1: 2, 2: 1, 3: 1, 4: 3}


def test_words_over_the_input_limits_are_dropped() -> None:
    """B2's limits (8 syllables, 64 characters) bound what a player can type: a longer
    entry could never be played, so the builder drops it and counts it."""
    eight = "con ngựa đau cả tàu không ăn cỏ"
    sources = {name: [] for name, _ in builder.SOURCE_FILES}
    sources["Viet74K.txt"] = [eight, "một " + eight, "hoa hồng"]
    result = builder.build(sources)
    assert [e.word for e in result.entries] == [eight, "hoa hồng"]
    step = next(s for s in result.steps if s.name == "more than 8 syllables or 64 characters")
    assert (step.kept, step.dropped) == (2, 1)


def test_keep_proper_nouns() -> None:
    result = builder.build(SOURCES, keep_proper_nouns=True)
    words = {e.word: e.tier for e in result.entries}
    assert words["hà nội"] == 2
    assert words["lúc lắc"] == 2  # now also met in Viet22K
    assert words["bình minh"] == 3  # "Bình Minh" in Viet74K does not raise the tier
    assert len(words) == 8
    assert result.steps[1].name == "proper nouns (kept by option)"
    assert result.steps[1].dropped == 0


def test_tier_is_the_lowest_file_after_normalization() -> None:
    sources = {name: [] for name, _ in builder.SOURCE_FILES}
    sources["Viet74K.txt"] = ["cá  vàng", "hoa hồng"]
    sources["Viet39K.txt"] = ["hoa\thồng"]
    sources["Viet22K.txt"] = ["cá vàng"]
    result = builder.build(sources)
    assert [(e.word, e.tier) for e in result.entries] == [("cá vàng", 2), ("hoa hồng", 3)]


def test_output_file(wheel: Path, tmp_path: Path) -> None:
    output = tmp_path / "out" / "dictionary.txt"
    builder.build_file(wheel, output, expected_sha256=sha256(wheel))
    text = output.read_bytes().decode("utf-8")
    assert text.endswith("\n") and "\r" not in text
    word_lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert word_lines == [f"{word}\t{tier}" for word, tier in EXPECTED_WORDS]
    lexicon = lexicon_from_lines(text.splitlines(), str(output))
    assert lexicon.metadata["wheel_sha256"] == sha256(wheel)
    assert lexicon.metadata["source"] == "underthesea"
    assert lexicon.metadata["version"] == "9.5.0"
    assert lexicon.metadata["licence"] == "Apache-2.0"
    assert lexicon.metadata["options"] == "keep_proper_nouns=no"
    assert lexicon.metadata["words"] == "7"
    assert lexicon.metadata["tiers"] == "1=2 2=1 3=1 4=3"
    assert lexicon.words == [word for word, _ in EXPECTED_WORDS]


def test_two_runs_are_byte_identical(wheel: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    builder.build_file(wheel, first, expected_sha256=sha256(wheel))
    builder.build_file(wheel, second, expected_sha256=sha256(wheel))
    assert first.read_bytes() == second.read_bytes()


def test_line_order_does_not_matter() -> None:
    shuffled = {name: list(reversed(lines)) for name, lines in SOURCES.items()}
    assert builder.render(builder.build(shuffled), "x") == builder.render(
        builder.build(SOURCES), "x"
    )


def test_sha_mismatch_is_rejected(wheel: Path, tmp_path: Path) -> None:
    output = tmp_path / "dictionary.txt"
    with pytest.raises(builder.BuildError, match="does not match the pinned"):
        builder.build_file(wheel, output)  # the real pin, not this fake wheel's hash
    assert not output.exists()
    with pytest.raises(builder.BuildError):
        builder.verify_wheel(wheel, "0" * 64)
    assert builder.verify_wheel(wheel, sha256(wheel)) == sha256(wheel)


def test_main_reports_a_mismatch(
    wheel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "dictionary.txt"
    assert builder.main(["--wheel", str(wheel), "--output", str(output)]) == 1
    assert "does not match the pinned" in capsys.readouterr().err
    assert not output.exists()


def test_main_prints_the_table(
    wheel: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "dictionary.txt"
    argv = ["--wheel", str(wheel), "--output", str(output), "--keep-proper-nouns"]
    assert builder.main(argv, expected_sha256=sha256(wheel)) == 0
    printed = capsys.readouterr().out
    assert "phonotactics" in printed and "spelling families merged" in printed
    assert "wrote 8 words" in printed
    assert "#@options keep_proper_nouns=yes" in output.read_text(encoding="utf-8")
