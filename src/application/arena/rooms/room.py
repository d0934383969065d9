"""A room (spec B4): a short code, two seats (P1, P2), any number of spectators, and
the match played in it. Live rooms are process-local objects; what outlives them is the
match in the `MatchArchive` and its replay in `ArenaFiles`.

Phases: WAITING (a seat is empty, or the match is being recorded) → PLACEMENT (people
place; bots are placed and ready at once; a match whose sides are all ready waits here
for a slot of the match queue, then for its bots to start) → PLAYING (a side is to
move) → FINISHED. ABANDONED: everybody left before
the match began, a waiting room expired, or the server could not go on with the match.
"""

from __future__ import annotations

import asyncio
import random
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from noitu.application.arena.fair_order import who
from noitu.application.arena.live_match import LiveMatch
from noitu.application.arena.records import ROOM_CODE_LENGTH, Seat
from noitu.application.arena.replay import SeatKind
from noitu.domain.arena.board import SIDES, Side
from noitu.domain.arena.match import EndReason, Phase, Result


class RoomSnapshotLike(Protocol):
    """What a room reads of its latest snapshot (`RoomSnapshot`, which imports this
    module) when its match runs on another process."""

    @property
    def phase(self) -> str: ...

    @property
    def version(self) -> int: ...

#: Room codes: upper-case letters and digits in which no two characters look alike —
#: none of 0/O/Q/D, 1/I/L, 2/Z, 5/S, 8/B, U/V, and 6 without G: 20 characters, so
#: 20**6 = 64 million codes.
ROOM_CODE_ALPHABET = "34679ACEFHJKMNPRTWXY"
#: A person's display name, in code points, and what an empty one becomes.
MAX_PERSON_NAME = 40
DEFAULT_PERSON_NAME = "Người chơi"
#: A room nobody completes is closed after this long.
WAITING_ROOM_MS = 30 * 60_000
#: A finished room stays readable (its snapshot, its bots' stderr) this long.
FINISHED_ROOM_MS = 30 * 60_000


class RoomPhase(StrEnum):
    WAITING = "WAITING"
    PLACEMENT = "PLACEMENT"
    PLAYING = "PLAYING"
    FINISHED = "FINISHED"
    ABANDONED = "ABANDONED"


def new_room_code(rng: random.Random) -> str:
    return "".join(rng.choice(ROOM_CODE_ALPHABET) for _ in range(ROOM_CODE_LENGTH))


def normalize_code(text: str) -> str:
    """A code as typed: spaces trimmed, letters upper-cased."""
    return text.strip().upper()


def is_room_code(text: str) -> bool:
    return len(text) == ROOM_CODE_LENGTH and all(c in ROOM_CODE_ALPHABET for c in text)


def person_name(raw: str) -> str:
    """A person's display name: NFC, control characters dropped, runs of spaces
    collapsed, at most 40 code points; "Người chơi" when nothing is left."""
    text = unicodedata.normalize("NFC", raw)
    kept = "".join(" " if unicodedata.category(c)[0] in ("C", "Z") else c for c in text)
    name = " ".join(kept.split())[:MAX_PERSON_NAME].rstrip()
    return name or DEFAULT_PERSON_NAME


@dataclass(frozen=True, slots=True)
class RoomSeat:
    """Who holds a seat (the archive's `Seat`: kind, ref, name, owner) and who put it
    there (an owner key's hash, and the client address they asked from: spec B10)."""

    seat: Seat
    seated_by: str
    address: str = ""

    def controlled_by(self, who: str) -> bool:
        """Whether `who` plays or answers for this seat: the person themself, or the
        owner of the uploaded bot (built-in bots answer to nobody)."""
        return self.seat.kind is not SeatKind.BUILTIN and self.seat.owner == who


@dataclass(eq=False)
class Room:
    code: str
    created_ms: int
    creator: str
    seats: list[RoomSeat | None] = field(default_factory=lambda: [None, None])
    #: Set while the match is being recorded (seats full, the live match not made yet).
    starting: bool = False
    #: The match, from PLACEMENT on.
    live: LiveMatch | None = None
    match_id: str | None = None
    placement_deadline_ms: int | None = None
    #: Waiting for a slot of the match queue (all sides ready), and the place there
    #: (from 1; None while the room waits for no slot).
    queued: bool = False
    queue_place: int | None = None
    #: Closed before any match (everybody left, or nobody came).
    closed: bool = False
    #: After the end: the replay's name once stored (shown as ready once archived).
    replay: str | None = None
    #: The replay could not be stored (a disk's or a store's failure): none is kept.
    replay_lost: bool = False
    archived: bool = False
    finished_ms: int | None = None
    #: The version of what the room shows: +1 at every change.
    version: int = 0
    #: Snapshots (or the end of the feed) waiting to be published, in order.
    outbox: deque[object] = field(default_factory=deque)
    sending: bool = False
    #: The feed was closed (after the last snapshot).
    feed_closed: bool = False
    task: asyncio.Task[None] | None = None
    #: A ladder match's room (spec B8): made by the server, its seed and turn limit fixed
    #: by the pairing, counted toward no owner's or address's limit.
    ladder: bool = False
    seed: int | None = None
    turn_limit: int | None = None
    #: Set once the match is archived (its result and replay known), however it ended.
    concluded: asyncio.Event = field(default_factory=asyncio.Event)
    #: As the room's card says: its match was handed to the queue (it waits for a host,
    #: or a host runs it), the host running it (once one took it) and, in a copy read for
    #: the lobby, the room's latest snapshot as that host published it.
    handed_over: bool = False
    #: When it was handed over, and its rank then among the matches handed over and not
    #: over (B10's fair order of the rooms waiting for a host: `fair_order.py`).
    handed_ms: int | None = None
    queue_rank: int = 0
    worker: str = ""
    remote: RoomSnapshotLike | None = None

    # -- reading ---------------------------------------------------------------------

    @property
    def result(self) -> Result | None:
        return None if self.live is None else self.live.match.result

    @property
    def stderr(self) -> tuple[bytes, bytes]:
        """The bots' stderr tails (P1, P2), there from the moment the match ended."""
        return (b"", b"") if self.live is None else self.live.stderr

    @property
    def phase(self) -> RoomPhase:
        if self.closed:
            return RoomPhase.ABANDONED
        live = self.live
        if live is None and self.handed_over:
            # Waiting for a worker, or played by one: as its latest snapshot shows it.
            shown = self.remote
            return RoomPhase.PLACEMENT if shown is None else RoomPhase(shown.phase)
        if live is None:
            return RoomPhase.WAITING
        if live.match.phase is Phase.FINISHED:
            result = live.match.result
            if result is not None and result.reason is EndReason.ABANDONED:
                return RoomPhase.ABANDONED
            return RoomPhase.FINISHED
        # PLAYING from the moment a side is to move: until the runner begins play (the
        # match waits for a queue slot, the bots start) everyone is ready in PLACEMENT.
        return RoomPhase.PLAYING if live.started else RoomPhase.PLACEMENT

    @property
    def is_over(self) -> bool:
        return self.phase in (RoomPhase.FINISHED, RoomPhase.ABANDONED)

    @property
    def full(self) -> bool:
        return all(seat is not None for seat in self.seats)

    def seat(self, side: Side) -> RoomSeat | None:
        return self.seats[side.number]

    def sides_of(self, who: str) -> list[Side]:
        """The sides `who` controls (see RoomSeat.controlled_by), P1 first."""
        return [
            side
            for side in SIDES
            if (held := self.seats[side.number]) is not None and held.controlled_by(who)
        ]

    def person_side(self, who: str) -> Side | None:
        """The side where `who` sits as a person, if any."""
        for side in SIDES:
            held = self.seats[side.number]
            if held is not None and held.seat.kind is SeatKind.PERSON and held.seat.owner == who:
                return side
        return None

    @property
    def spectacle(self) -> bool:
        """Two built-in bots: a show, not a right (spec B10)."""
        return all(held is not None and held.seat.kind is SeatKind.BUILTIN for held in self.seats)

    def queue_tags(self) -> frozenset[str]:
        """Who the match counts for in the match queue's fair order: the owners and
        client addresses that seated its sides (nobody's for a ladder match)."""
        if self.ladder:
            return frozenset()
        return frozenset().union(
            *(who(held.seated_by, held.address) for held in self.seats if held is not None)
        )

    def spectacle_of(self, address: str) -> bool:
        """A spectacle not over yet that `address` seated a side of."""
        return (
            bool(address)
            and self.spectacle
            and not self.is_over
            and any(held is not None and held.address == address for held in self.seats)
        )

    def involves(self, who: str) -> bool:
        """Whether `who` sits here, answers for a seat, or seated something here (a
        ladder match involves nobody: it counts toward no owner's limit)."""
        return not self.ladder and any(
            held is not None and (held.seated_by == who or held.controlled_by(who))
            for held in self.seats
        )
