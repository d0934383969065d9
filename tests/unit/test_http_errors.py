"""The error table's Retry-After: every 429 says when to ask again, in whole seconds."""

from __future__ import annotations

import pytest

from noitu.adapters.http.errors import (
    ERROR_STATUS,
    RETRY_AFTER_MS,
    error_response,
    retry_after_s,
)
from noitu.application.arena.errors import TooManyMatches, TooManyUploads
from noitu.application.arena.limits import UPLOAD_WINDOW_MS
from noitu.application.noitu.errors import NoSession, TooFast


def test_the_upload_wait_is_the_upload_window() -> None:
    assert RETRY_AFTER_MS["too_many_uploads"] == UPLOAD_WINDOW_MS


def test_every_code_of_the_retry_table_is_a_429() -> None:
    assert {ERROR_STATUS[code] for code in RETRY_AFTER_MS} == {429}


@pytest.mark.parametrize(
    ("error", "seconds"),
    [
        (TooFast(retry_after_ms=1), 1),
        (TooFast(retry_after_ms=0), 1),
        (TooFast(retry_after_ms=1_000), 1),
        (TooFast(retry_after_ms=1_001), 2),
        (TooFast(retry_after_ms=60_000), 60),
        (TooFast(), 1),
        (TooManyUploads(), UPLOAD_WINDOW_MS // 1000),
        (TooManyMatches(), RETRY_AFTER_MS["too_many_matches"] // 1000),
    ],
)
def test_the_wait_is_whole_seconds_rounded_up_at_least_one(error, seconds: int) -> None:
    assert retry_after_s(error) == seconds
    answer = error_response(error)
    assert answer.status_code == 429
    assert answer.headers["Retry-After"] == str(seconds)


def test_other_answers_carry_no_retry_after() -> None:
    assert "Retry-After" not in error_response(NoSession()).headers
