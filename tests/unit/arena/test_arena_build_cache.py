"""The CLI's build cache: identical source is built once, across runs; an edited file,
another name or a failed build is built again."""

from __future__ import annotations

from pathlib import Path

from noitu.adapters.arena.build_cache import CachedBuilder
from noitu.application.arena.ports import Artefact, BuildResult, Language


class CountingBuilder:
    """Builds by copying the source to the artefact's entry; `fail` makes it refuse."""

    def __init__(self) -> None:
        self.builds = 0
        self.fail = False

    async def build(
        self, source: Path, language: Language, into: Path, *, shown_as: str | None = None
    ) -> BuildResult:
        self.builds += 1
        if self.fail:
            return BuildResult(False, None, "lỗi biên dịch")
        into.mkdir(parents=True)
        (into / "bot").write_bytes(source.read_bytes())
        return BuildResult(True, Artefact(language, into), "")


async def test_identical_source_is_built_once_even_by_a_new_run(tmp_path):
    source = tmp_path / "bot.cpp"
    source.write_text("int main() {}\n")
    builder = CountingBuilder()
    first = await CachedBuilder(builder, tmp_path / "cache").build(source, Language.CPP, tmp_path / "x")
    cache = CachedBuilder(builder, tmp_path / "cache")  # a later run
    again = await cache.build(source, Language.CPP, tmp_path / "y")
    assert builder.builds == 1 and first.ok and again.ok
    assert again.artefact == first.artefact and cache.reused(again.artefact)
    assert (again.artefact.directory / "bot").read_text() == "int main() {}\n"


async def test_an_edited_or_renamed_file_builds_again_and_a_failure_is_not_kept(tmp_path):
    source = tmp_path / "bot.cpp"
    source.write_text("int main() {}\n")
    builder = CountingBuilder()
    cache = CachedBuilder(builder, tmp_path / "cache")
    first = await cache.build(source, Language.CPP, tmp_path / "x")
    source.write_text("int main() { return 0; }\n")
    edited = await cache.build(source, Language.CPP, tmp_path / "x")
    renamed = tmp_path / "other.cpp"
    renamed.write_text("int main() {}\n")
    await cache.build(renamed, Language.CPP, tmp_path / "x")
    assert builder.builds == 3 and edited.artefact != first.artefact
    assert not cache.reused(edited.artefact)
    broken = tmp_path / "broken.cpp"
    broken.write_text("int main( {}\n")
    builder.fail = True
    assert not (await cache.build(broken, Language.CPP, tmp_path / "x")).ok
    assert not (await cache.build(broken, Language.CPP, tmp_path / "x")).ok
    assert builder.builds == 5
