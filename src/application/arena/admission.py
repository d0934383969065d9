"""Admission control per client address (spec B10): limits that hold whatever owner
keys a client sends, since a key is free to make.

The HTTP adapter finds the client's address (the socket's peer, or the last hop of
`X-Forwarded-For` behind a proxy the operator trusts) and puts it in the command as
plain text; the use cases ask `Admission` before they make an owner key, store an
upload, rank a bot or open a room. Ranking counts with the uploads: it puts a bot on
everyone's table as an upload puts one in the store, so 12 a minute (the default) is the
address's budget for both together. An empty address (a caller that is not a network client, such
as a test of the use case alone) is not limited.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from noitu.application.arena.errors import (
    AddressTooManyKeys,
    AddressTooManyRooms,
    AddressTooManyUploads,
    GameError,
)
from noitu.application.ports import Clock

#: The window every per-address count slides over.
ADDRESS_WINDOW_MS = 60_000


class AddressAction(StrEnum):
    OWNER_KEY = "owner_key"  # an owner key made for a caller who sent none
    UPLOAD = "upload"
    ROOM = "room"
    RANK = "rank"  # a bot put on the ladder: counted with the uploads


#: Actions counted in another's window and against its limit.
COUNTED_AS = {AddressAction.RANK: AddressAction.UPLOAD}


@dataclass(frozen=True, slots=True)
class AddressLimits:
    """How many of each action one client address may take in any sliding minute
    (defaults of spec B10; the operator's settings)."""

    owner_keys: int = 10
    uploads: int = 12
    rooms: int = 12

    def of(self, action: AddressAction) -> int:
        return {
            AddressAction.OWNER_KEY: self.owner_keys,
            AddressAction.UPLOAD: self.uploads,
            AddressAction.ROOM: self.rooms,
            AddressAction.RANK: self.uploads,
        }[action]


class AddressLimiter(Protocol):
    async def admit(self, action: AddressAction, address: str, now_ms: int) -> int | None:
        """Count one `action` of `address` and answer None; or, at its limit, count
        nothing and answer in how many ms the oldest counted one leaves the window."""
        ...


REFUSALS: dict[AddressAction, type[GameError]] = {
    AddressAction.OWNER_KEY: AddressTooManyKeys,
    AddressAction.UPLOAD: AddressTooManyUploads,
    AddressAction.ROOM: AddressTooManyRooms,
    AddressAction.RANK: AddressTooManyUploads,
}
#: What a refusal says when its error's own sentence is not about the action.
REFUSAL_MESSAGES = {
    AddressAction.RANK: (
        "Địa chỉ mạng của bạn tải lên và xếp hạng bot hơi nhiều trong một phút."
        " Chờ một lát rồi thử lại nhé."
    ),
}


class Admission:
    def __init__(self, limiter: AddressLimiter, clock: Clock) -> None:
        self._limiter = limiter
        self._clock = clock

    async def admit(self, action: AddressAction, address: str) -> None:
        """Count `action` for `address`, or raise its 429 error with the wait."""
        if not address:
            return
        counted = COUNTED_AS.get(action, action)
        wait_ms = await self._limiter.admit(counted, address, self._clock.now_ms())
        if wait_ms is not None:
            raise REFUSALS[action](REFUSAL_MESSAGES.get(action), retry_after_ms=max(1, wait_ms))
