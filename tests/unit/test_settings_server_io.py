"""The bounds on the server's own connections (spec B10) are settings with the spec's
defaults, shown with those defaults in the README's settings table."""

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
}


def readme_defaults() -> dict[str, str]:
    section = (ROOT / "README.md").read_text().split("## Settings (environment)")[1].split("\n## ")[0]
    rows = [row.split("|") for row in section.splitlines() if row.startswith("| `")]
    return {name: row[2].strip() for row in rows for name in re.findall(r"`([A-Z][A-Z_]+)`", row[1])}


def test_the_defaults_are_the_spec_s_and_the_readme_shows_them() -> None:
    loaded, shown = load_settings({}), readme_defaults()
    for name, (field, spec) in SETTINGS.items():
        assert getattr(loaded, field) == getattr(Settings(), field) == spec
        assert shown[name] == f"{spec:g}"


def test_each_can_be_set_and_a_bad_value_is_refused_by_name() -> None:
    loaded = load_settings({
        "NOITU_WS_MAX_MESSAGE_BYTES": "8192", "NOITU_HEAD_TIMEOUT_SECONDS": "2.5",
        "NOITU_MAX_CONNECTIONS": "50",
    })
    assert (loaded.ws_max_message_bytes, loaded.head_timeout_s, loaded.max_connections) == (8192, 2.5, 50)
    with pytest.raises(SettingsError) as refused:
        load_settings({
            "NOITU_WS_MAX_MESSAGE_BYTES": "big", "NOITU_HEAD_TIMEOUT_SECONDS": "0",
            "NOITU_MAX_CONNECTIONS": "-1",
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
