"""The ports the rooms need beyond the arena's stores and the board (`cluster_ports.py`):
the feed of their snapshots, the built-in bots' artefacts, and waiting for a moment of the
clock (`Timer`, shared with RunMatch)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Protocol

from noitu.application.arena.live_match import Timer
from noitu.application.arena.ports import Artefact

if TYPE_CHECKING:
    from noitu.application.arena.rooms.snapshot import RoomViews

__all__ = ["BuiltinArtefacts", "RoomFeed", "Timer"]


class RoomFeed(Protocol):
    """Each change of a room (its `RoomViews`: the spectator's snapshot and what each
    owner sees) to whoever watches it (`WatchRoom`): in memory for one instance,
    through a broker for several.

    A subscription first yields the room's latest views (when some were published),
    then each published after them, in order; it ends when the room's feed is closed
    (the room is over, after its last views) or when the subscriber stops iterating
    (close the iterator: `aclose()`). A subscriber too slow to keep up loses the oldest
    views it has not read, never the latest: each is the whole room. Subscribing to a
    room whose feed was closed ends at once (`latest` still has its last views); to a
    room that has not published yet waits for its first views.
    """

    async def publish(self, code: str, views: RoomViews) -> None: ...

    async def close(self, code: str) -> None:
        """The room is over: end every subscription after what was published."""
        ...

    def subscribe(self, code: str) -> AsyncGenerator[RoomViews, None]: ...

    async def latest(self, code: str) -> RoomViews | None:
        """The room's latest views, when some were published (through a broker, also a
        room that lives on another instance; None once it is forgotten)."""
        ...


class BuiltinArtefacts(Protocol):
    """The server's own bots (`adapters/arena/builtin.py` BuiltinBots)."""

    def names(self) -> tuple[str, ...]: ...

    async def artefact(self, name: str) -> Artefact:
        """The artefact of built-in bot `name`, built once; raises when it cannot be."""
        ...
