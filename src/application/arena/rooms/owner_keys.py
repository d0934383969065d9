"""Who is calling (spec B5): the owner key the page sends, checked, and its hash — the
form every room use case takes. A call that may seat someone (creating or joining a
room) makes a new key when none was sent; the page keeps it."""

from __future__ import annotations

import random
from dataclasses import dataclass

from noitu.application.arena.admission import AddressAction, Admission
from noitu.application.arena.errors import BadOwnerKey
from noitu.application.arena.records import is_owner_key, new_owner_key, owner_hash


@dataclass(frozen=True, slots=True)
class Caller:
    key: str  # the owner key ("" for a spectator who sent none)
    owner: str  # its hash ("" for a spectator)
    new: bool  # made for this call


SPECTATOR = Caller("", "", False)


class OwnerKeys:
    def __init__(self, rng: random.Random, admission: Admission | None = None) -> None:
        """`admission` counts the keys made per client address (spec B10)."""
        self._rng = rng
        self._admission = admission

    async def seating_caller(self, key: str | None, address: str) -> Caller:
        """The caller of a call that may seat someone: `caller(key, create=True)`, a key
        made here counting against `address`'s owner keys per minute (B10)."""
        if key is None and self._admission is not None:
            await self._admission.admit(AddressAction.OWNER_KEY, address)
        return self.caller(key, create=True)

    def caller(self, key: str | None, *, create: bool = False) -> Caller:
        """The caller of key `key` (None: not sent). Without a key: a new one when
        `create`, else a spectator (use cases that need an owner then refuse).
        BadOwnerKey for a malformed key."""
        if key is None:
            if not create:
                return SPECTATOR
            key = new_owner_key(self._rng)
            return Caller(key, owner_hash(key), True)
        if not is_owner_key(key):
            raise BadOwnerKey()
        return Caller(key, owner_hash(key), False)
