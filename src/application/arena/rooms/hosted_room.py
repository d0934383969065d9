"""A room whose match this process hosts (`RoomHost`): its card, the domain's frozen
`Room` (a new value at each change, written back to the board by `PlayMatch`), and
what runs its match beside it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from noitu.application.arena.live_match import LiveMatch
from noitu.domain.arena.match import EndReason, Phase, Result
from noitu.domain.arena.room import Room, RoomPhase


@dataclass(eq=False)
class HostedRoom:
    """A room whose match this process hosts: its card, and its match beside it."""

    card: Room
    #: The match, once made.
    live: LiveMatch | None = None
    placement_deadline_ms: int | None = None
    #: After the end: the replay's name once stored (shown as ready once archived).
    replay: str | None = None
    #: The replay could not be stored (a disk's or a store's failure): none is kept.
    replay_lost: bool = False
    archived: bool = False
    #: Set once the match is archived (its result and replay known), however it ended.
    concluded: asyncio.Event = field(default_factory=asyncio.Event)
    #: The room's feed was closed (after its last views).
    feed_closed: bool = False

    @property
    def code(self) -> str:
        return self.card.code

    @property
    def match_id(self) -> str | None:
        return self.card.match_id

    @property
    def result(self) -> Result | None:
        return None if self.live is None else self.live.match.result

    @property
    def stderr(self) -> tuple[bytes, bytes]:
        """The bots' stderr tails (P1, P2), there from the moment the match ended."""
        return (b"", b"") if self.live is None else self.live.stderr

    @property
    def phase(self) -> RoomPhase:
        live = self.live
        if self.card.closed or live is None:
            return self.card.phase
        if live.match.phase is Phase.FINISHED:
            result = live.match.result
            if result is not None and result.reason is EndReason.ABANDONED:
                return RoomPhase.ABANDONED
            return RoomPhase.FINISHED
        # PLAYING from the moment a side is to move: until the runner begins play (its
        # bots start) everyone is ready in PLACEMENT.
        return RoomPhase.PLAYING if live.started else RoomPhase.PLACEMENT
