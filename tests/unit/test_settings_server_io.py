"""The bounds on the server's own connections (spec B10) are settings with the spec's
defaults, shown with those defaults in the README's settings table and in the server I/O
table of docs/operating.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noitu.entrypoints.settings import Settings, SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {
    "NOITU_WS_MAX_MESSAGE_BYTES": ("ws_max_message_bytes", 4096),
    "NOITU_HEAD_TIMEOUT_SECONDS": ("head_timeout_s", 10),
    "NOITU_MAX_CONNECTIONS": ("max_connections", 1000),
    "NOITU_MAX_HEAD_BYTES": ("max_head_bytes", 16384),
    "NOITU_BODY_TIMEOUT_SECONDS": ("body_timeout_s", 10),
    "NOITU_BODY_MIN_KIB_PER_SECOND": ("body_min_kib_per_s", 16),
}


def readme_defaults() -> dict[str, str]:
    section = (ROOT / "README.md").read_text().split("## Settings (environment)")[1].split("\n## ")[0]
    rows = [row.split("|") for row in section.splitlines() if row.startswith("| `")]
    return {name: row[2].strip() for row in rows for name in re.findall(r"`([A-Z][A-Z_]+)`", row[1])}


def operating_defaults() -> dict[str, str]:
    """The server I/O table of docs/operating.md ("Limits: the server's own ...")."""
    text = (ROOT / "docs" / "operating.md").read_text()
    section = text.split("### Limits: the server's own")[1].split("\n#")[0]
    rows = [row.split("|") for row in section.splitlines() if row.startswith("| `")]
    return {re.findall(r"`([A-Z][A-Z_]+)`", row[1])[0]: row[2].strip() for row in rows}


def test_the_defaults_are_the_spec_s_and_the_readme_and_operating_guide_show_them() -> None:
    loaded, shown, operating = load_settings({}), readme_defaults(), operating_defaults()
    for name, (field, spec) in SETTINGS.items():
        assert getattr(loaded, field) == getattr(Settings(), field) == spec
        assert shown[name] == operating[name] == f"{spec:g}", name
    assert set(operating) == set(SETTINGS)


def test_each_can_be_set_and_a_bad_value_is_refused_by_name() -> None:
    chosen = {
        "NOITU_WS_MAX_MESSAGE_BYTES": ("8192", 8192), "NOITU_HEAD_TIMEOUT_SECONDS": ("2.5", 2.5),
        "NOITU_MAX_CONNECTIONS": ("50", 50), "NOITU_MAX_HEAD_BYTES": ("8192", 8192),
        "NOITU_BODY_TIMEOUT_SECONDS": ("0.5", 0.5), "NOITU_BODY_MIN_KIB_PER_SECOND": ("64", 64),
    }
    loaded = load_settings({name: raw for name, (raw, _) in chosen.items()})
    for name, (_, value) in chosen.items():
        assert getattr(loaded, SETTINGS[name][0]) == value, name
    with pytest.raises(SettingsError) as refused:
        load_settings({
            "NOITU_WS_MAX_MESSAGE_BYTES": "big", "NOITU_HEAD_TIMEOUT_SECONDS": "0",
            "NOITU_MAX_CONNECTIONS": "-1", "NOITU_MAX_HEAD_BYTES": "100",
            "NOITU_BODY_TIMEOUT_SECONDS": "soon", "NOITU_BODY_MIN_KIB_PER_SECOND": "0",
        })
    assert all(name in str(refused.value) for name in SETTINGS)


def test_serve_raises_its_descriptor_limit_to_hold_the_connection_cap_and_more() -> None:
    from noitu.entrypoints.cli.noitu import SPARE_DESCRIPTORS, descriptor_limit

    # Debian's usual soft limit, 1,024, would leave 24 descriptors beyond 1,000
    # connections: raised within the hard limit.
    assert descriptor_limit(1024, 524288, 1000) == (1000 + SPARE_DESCRIPTORS, "")
    assert descriptor_limit(65536, 524288, 1000) == (65536, "")  # enough already
    low, warning = descriptor_limit(1024, 1024, 1000)
    assert low == 1024 and "NOITU_MAX_CONNECTIONS" in warning
