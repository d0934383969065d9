"""`noitu serve --help` names every setting the server reads, from the settings' own
definition, and says where each is explained."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noitu.entrypoints import settings
from noitu.entrypoints.cli import main

ROOT = Path(__file__).resolve().parents[2]


def serve_help(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    return capsys.readouterr().out


def test_serve_help_lists_every_variable_the_settings_read(capsys):
    text = serve_help(capsys)
    read = set(re.findall(r'env\.get\(\s*"([A-Z_]+)"', Path(settings.__file__).read_text()))
    assert {"NOITU_PORT", "NOITU_DATA_DIR", "NOITU_CACHE_DIR"} <= read
    listed = set(re.findall(r"\b[A-Z][A-Z_]+[A-Z]\b", text))
    assert read <= listed


def test_every_setting_of_the_readme_is_in_serve_help_and_the_help_says_where_they_are(capsys):
    text = serve_help(capsys)
    section = (ROOT / "README.md").read_text().split("## Settings (environment)")[1].split("\n## ")[0]
    first_cells = [row.split("|")[1] for row in section.splitlines() if row.startswith("| `")]
    documented = {name for cell in first_cells for name in re.findall(r"`([A-Z][A-Z_]+)`", cell)}
    assert documented and documented <= set(re.findall(r"\b[A-Z][A-Z_]+[A-Z]\b", text))
    assert "README.md" in text and "Settings (environment)" in text
