"""Spec B14: a replay's `received` event keeps at most 4 KiB of the reply line, cut at a
character's start and marked with the bytes left out; shorter lines are kept whole."""

from __future__ import annotations

import pytest

from noitu.application.arena.replay import RECEIVED_KEPT_BYTES, received_event
from noitu.domain.arena.board import Side


def test_the_kept_size_is_4_kib() -> None:
    assert RECEIVED_KEPT_BYTES == 4096


@pytest.mark.parametrize("size", [0, 1, RECEIVED_KEPT_BYTES])
def test_a_line_up_to_4_kib_is_kept_whole_and_unmarked(size: int) -> None:
    line = b"x" * size
    assert received_event(Side.P2, line, 12) == {
        "event": "received", "player": "P2", "line": "x" * size, "ms": 12,
    }


def test_a_padded_reply_keeps_its_first_4_kib_and_says_how_much_was_cut() -> None:
    reply = b'{"type":"PASS","pad":"' + b"p" * 63_000 + b'"}'
    event = received_event(Side.P1, reply, 3)
    assert event["line"] == reply[:RECEIVED_KEPT_BYTES].decode()
    assert event["cut"] == len(reply) - RECEIVED_KEPT_BYTES
    assert (event["event"], event["player"], event["ms"]) == ("received", "P1", 3)


@pytest.mark.parametrize("before", [1, 2])
def test_a_character_across_the_cut_is_left_out_whole(before: int) -> None:
    """"✂" is three bytes in UTF-8; when the cut falls inside it, the kept text ends
    before it, with no replacement character."""
    line = b"a" * (RECEIVED_KEPT_BYTES - before) + "✂".encode() * 10
    event = received_event(Side.P1, line, 0)
    assert event["line"] == "a" * (RECEIVED_KEPT_BYTES - before)
    assert event["cut"] == len(line) - (RECEIVED_KEPT_BYTES - before)


def test_a_character_that_ends_at_the_cut_is_kept() -> None:
    line = b"a" * (RECEIVED_KEPT_BYTES - 3) + "✂".encode() * 10
    event = received_event(Side.P1, line, 0)
    assert event["line"] == "a" * (RECEIVED_KEPT_BYTES - 3) + "✂"
    assert event["cut"] == len(line) - RECEIVED_KEPT_BYTES


def test_bytes_that_are_not_utf8_still_read_as_replacements_when_cut() -> None:
    line = b"\xff" * (RECEIVED_KEPT_BYTES + 10)
    event = received_event(Side.P1, line, 0)
    assert event["line"] == "\ufffd" * RECEIVED_KEPT_BYTES and event["cut"] == 10
