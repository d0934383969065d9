"""What a player asks of nối từ: the commands of the four use cases (spec "HTTP API").

Unknown fields are refused (spec "Limits"); the word limits and the difficulty are
checked by the use cases, in the spec's order, so they are not constraints here.
"""

from __future__ import annotations

import msgspec


class StartGameCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    token: str
    difficulty: str = ""


class PlayMoveCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    session: str
    word: str


class SessionCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`api/state` and `api/give-up`: a session id alone."""

    session: str
