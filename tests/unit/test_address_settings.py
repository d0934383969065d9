"""The per-address limits and the trusted proxies (spec B10): read from the environment
with the spec's defaults, bad values refused at start, and the README's table says the
same defaults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from noitu.application.arena.admission import AddressLimits
from noitu.entrypoints.settings import SettingsError, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_the_defaults_are_the_specs_and_no_proxy_is_trusted():
    settings = load_settings({})
    assert settings.address_limits == AddressLimits(owner_keys=10, uploads=12, rooms=12)
    assert settings.trusted_proxies == frozenset()


def test_the_operator_sets_them():
    settings = load_settings(
        {
            "NOITU_ARENA_KEYS_PER_MINUTE": "3",
            "NOITU_ARENA_UPLOADS_PER_MINUTE": "40",
            "NOITU_ARENA_ROOMS_PER_MINUTE": "5",
            "NOITU_TRUSTED_PROXY": "127.0.0.1, ::1",
        }
    )
    assert settings.address_limits == AddressLimits(owner_keys=3, uploads=40, rooms=5)
    assert settings.trusted_proxies == {"127.0.0.1", "::1"}


@pytest.mark.parametrize(
    "env",
    [
        {"NOITU_ARENA_UPLOADS_PER_MINUTE": "0"},
        {"NOITU_ARENA_ROOMS_PER_MINUTE": "many"},
        {"NOITU_TRUSTED_PROXY": "proxy.local"},
    ],
)
def test_bad_values_stop_the_start(env):
    with pytest.raises(SettingsError):
        load_settings(env)


def test_the_readme_gives_the_same_defaults():
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if "`NOITU_ARENA_KEYS_PER_MINUTE`" in line)
    defaults = AddressLimits()
    figures = re.search(r"\| (\d+) / (\d+) / (\d+) \|", row)
    assert figures is not None
    assert tuple(map(int, figures.groups())) == (defaults.owner_keys, defaults.uploads, defaults.rooms)
