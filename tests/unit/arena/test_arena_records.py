"""The arena's records' own rules (spec B5): owner keys stored only as their hash,
display names cleaned, and records that refuse what would corrupt a store."""

from __future__ import annotations

import random

import pytest

from noitu.application.arena.records import (
    MatchStatus,
    Seat,
    bot_display_name,
    new_bot_id,
    new_owner_key,
    owner_hash,
)
from noitu.application.arena.replay import SeatKind
from support.arena_databases import ALICE, RNG, make_bot, make_match


def test_owner_keys_are_stored_only_as_their_hash() -> None:
    key = new_owner_key(random.Random(1))
    assert len(key) == 32 and int(key, 16) >= 0
    digest = owner_hash(key)
    assert len(digest) == 64 and key not in digest
    assert digest == owner_hash(key)
    for bad in ("", key.upper(), key[:-1], key + "0", "g" * 32, f" {key}"[:32]):
        with pytest.raises(ValueError):
            owner_hash(bad)


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("Đấu sĩ Ưng", "Đấu sĩ Ưng"),
        ("bot_v2.final", "bot_v2.final"),
        ("Tie\u0302\u0301ng Vie\u0323\u0302t", "Tiếng Việt"),  # decomposed → NFC
        ("../../etc/passwd", ".. .. etc passwd"),
        ("a\x00b\nc\u202ed<script>", "a b c d script"),
        ("   ", "bot"),
        ("\u0301\u0301", "bot"),
        ("ấ" * 50, "ấ" * 40),
        ("x" * 39 + " y", "x" * 39),
    ],
)
def test_display_names_are_cleaned(raw: str, name: str) -> None:
    assert bot_display_name(raw) == name


def test_records_refuse_what_would_corrupt_the_store() -> None:
    with pytest.raises(ValueError):
        make_bot(id="../../etc/passwd")
    with pytest.raises(ValueError):
        make_bot(name="x" * 41)
    with pytest.raises(ValueError):
        make_match(id="a0000000")  # lower case
    with pytest.raises(ValueError):
        make_match(seed=2**63)
    with pytest.raises(ValueError):
        make_match(status=MatchStatus.FINISHED)  # no result
    with pytest.raises(ValueError):
        Seat(SeatKind.BUILTIN, "random", "random", ALICE)
    with pytest.raises(ValueError):
        Seat(SeatKind.UPLOAD, "not-a-bot-id", "x", ALICE)
    assert len({new_bot_id(RNG) for _ in range(1000)}) == 1000
