"""What a too-large upload is told names the caps of `application/arena/limits.py` (spec
B5): the upload use case's `FileTooLarge` and the builder's own refusal (the CLI builds
local files without the use case) say the same thing, in the units the guide uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from noitu.adapters.arena.build import DirectBuilder
from noitu.application.arena import limits
from noitu.application.arena.errors import FileTooLarge
from noitu.application.arena.ports import Language


def test_the_caps_are_whole_units_of_what_the_messages_name() -> None:
    assert limits.MAX_SOURCE_BYTES % limits.KIB == 0
    assert limits.MAX_JAR_BYTES % limits.MIB == 0


def test_file_too_large_names_both_caps() -> None:
    message = FileTooLarge().message
    assert f"tối đa {limits.MAX_SOURCE_BYTES // limits.KIB} KiB" in message
    assert f"tối đa {limits.MAX_JAR_BYTES // limits.MIB} MiB" in message


@pytest.mark.parametrize(
    ("name", "language", "cap"),
    [
        ("big.py", Language.PYTHON, limits.MAX_SOURCE_BYTES),
        ("big.jar", Language.JAR, limits.MAX_JAR_BYTES),
    ],
)
async def test_the_builder_refuses_one_byte_past_a_cap_with_the_same_message(
    tmp_path: Path, name: str, language: Language, cap: int
) -> None:
    source = tmp_path / name
    with source.open("wb") as handle:
        handle.truncate(cap + 1)  # sparse: nothing is written
    result = await DirectBuilder().build(source, language, tmp_path / "out")
    assert not result.ok
    assert result.messages == FileTooLarge().message
