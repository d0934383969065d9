"""What a member asks of a room (spec B10 "API and live feed"). Unknown fields are
refused; the word limits and the bot level are checked by the use cases."""

from __future__ import annotations

import msgspec


class JoinRoomCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    token: str


class MemberCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`room/start`, `room/give-up`, `room/leave`: a member credential alone."""

    member: str


class AddRoomBotCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    member: str
    level: str | None  # easy, medium or hard; null removes the bot


class RoomMoveCommand(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    member: str
    word: str
