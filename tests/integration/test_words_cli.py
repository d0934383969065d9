"""`noitu words pending|add|reject|remove` on the default store (the SQLite file in
NOITU_DATA_DIR), read by a server's container the way its poll reads it (B11)."""

from __future__ import annotations

import asyncio

import pytest

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.reports import Report
from noitu.entrypoints.cli import main
from support.dictionaries import LITTLE, write
from tests.integration.conftest import build_container


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as stopped:
        main(["words", *argv])
    return int(stopped.value.code or 0), capsys.readouterr().out


def test_the_cli_adds_rejects_and_removes_for_every_server(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("NOITU_DICTIONARY", write(tmp_path, LITTLE))
    monkeypatch.setenv("NOITU_CACHE_DIR", "off")
    server = build_container(lexicon_from_lines(LITTLE.splitlines(), "little"))
    reports = server.reports_store()
    for word, user in (("trà sữa", 1), ("trà sữa", 2), ("tắc đường", 1)):
        asyncio.run(reports.file(Report(word, user, None, 1_800_000_000_000), 1, 20, 100))

    code, out = run(capsys, "pending")
    assert code == 0
    assert out.splitlines()[0].split() == ["word", "reporters", "first", "report", "last", "report"]
    assert out.splitlines()[1].split()[:3] == ["trà", "sữa", "2"]

    code, out = run(capsys, "add", "Trà  Sữa", "hoà bình", "x", "--tier", "2")
    assert code == 1
    assert out.splitlines() == [
        "added: trà sữa (tier 2)",
        "already in the game: hòa bình",
        "refused: x: one_syllable (Từ cần có ít nhất 2 tiếng.)",
    ]
    code, out = run(capsys, "reject", "tắc đường")
    assert (code, out) == (0, "rejected: tắc đường (1 reporter(s))\n")
    assert asyncio.run(reports.pending()) == []

    asyncio.run(server.follow_additions()())  # what the server's poll does each second
    lexicon = server.lexicon()
    assert lexicon.tiers[lexicon.resolve("trà sữa")] == 2

    code, out = run(capsys, "remove", "trà sữa")
    assert (code, out) == (0, "removed: trà sữa\n")
    asyncio.run(server.follow_additions()())
    assert lexicon.resolve("trà sữa") is None
