"""Why a bot lost the match on its own account (spec B3: the codes of BOT_FAILED)."""

from __future__ import annotations

from enum import StrEnum


class FailureCode(StrEnum):
    # Process failures, whenever they happen.
    COMPILE_ERROR = "COMPILE_ERROR"
    START_FAILED = "START_FAILED"
    RESOURCE_LIMIT = "RESOURCE_LIMIT"
    INCOMPLETE_LINE = "INCOMPLETE_LINE"
    EXITED = "EXITED"
    EXTRA_OUTPUT = "EXTRA_OUTPUT"
    # Reply failures, in the order the server checks a reply (A4).
    TIMEOUT = "TIMEOUT"
    REPLY_TOO_LONG = "REPLY_TOO_LONG"
    BAD_JSON = "BAD_JSON"
    WRONG_TYPE = "WRONG_TYPE"
    STALE_SEQUENCE = "STALE_SEQUENCE"
    BAD_FIELD = "BAD_FIELD"
    MISMATCH = "MISMATCH"
    NOT_LEGAL = "NOT_LEGAL"
