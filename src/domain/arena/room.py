"""A room (spec B4) as one frozen value: a short code, two seats (P1, P2), who made it,
and where its match stands. It is the room's card (issue 31): what every process reads
of a room on the board, what a match job carries to its host, and what the host keeps
beside the live match it runs (`HostedRoom`). A change is a new value (`replace`).

Phases: WAITING (a seat is empty) → PLACEMENT (both seats filled: the match handed to
the queue, then made by its host; people place, bots are placed and ready at once) →
PLAYING (a side is to move) → FINISHED. ABANDONED: everybody left before the match
began, a waiting room expired, or the server could not go on with the match. A card
alone knows WAITING, PLACEMENT and the end; the host knows the rest (its live match).
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, replace
from enum import StrEnum

from noitu.domain.arena.board import SIDES, Side

#: Room codes: upper-case letters and digits in which no two characters look alike —
#: none of 0/O/Q/D, 1/I/L, 2/Z, 5/S, 8/B, U/V, and 6 without G: 20 characters, so
#: 20**6 = 64 million codes.
ROOM_CODE_ALPHABET = "34679ACEFHJKMNPRTWXY"
ROOM_CODE_LENGTH = 6
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


class SeatKind(StrEnum):
    UPLOAD = "upload"
    BUILTIN = "builtin"
    PERSON = "person"


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


def who(owner: str, address: str = "") -> frozenset[str]:
    """The tags of what one owner key (its hash) asked for from one client address
    (empty for either: not counted), in spec B10's fair order (`fair_order.py`)."""
    tags = set()
    if owner:
        tags.add(f"owner:{owner}")
    if address:
        tags.add(f"address:{address}")
    return frozenset(tags)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomSeat:
    """Who holds a seat — its kind, `ref` (the bot's id, the built-in bot's name or the
    person's name), display name and owner (the owner key's hash of an upload's owner
    or of the person; None for a built-in bot) — and who put it there (an owner key's
    hash, and the client address they asked from: spec B10)."""

    kind: SeatKind
    ref: str
    name: str
    owner: str | None = None
    seated_by: str
    address: str = ""

    def controlled_by(self, who: str) -> bool:
        """Whether `who` plays or answers for this seat: the person themself, or the
        owner of the uploaded bot (built-in bots answer to nobody)."""
        return self.kind is not SeatKind.BUILTIN and self.owner == who


@dataclass(frozen=True, slots=True, kw_only=True)
class Room:
    code: str
    created_ms: int
    creator: str
    seats: tuple[RoomSeat | None, RoomSeat | None] = (None, None)
    #: The version of what the room shows: +1 at every change.
    version: int = 0
    #: Closed before any match (everybody left, or nobody came).
    closed: bool = False
    #: Both seats filled and the match handed to the queue (PLACEMENT from then).
    handed_over: bool = False
    #: When it was handed over (ms), and its rank then among the matches handed over
    #: and not over: the order of the rooms waiting for a host (B10, `fair_order.py`).
    handed_ms: int | None = None
    queue_rank: int = 0
    #: The match's id, once its host made it.
    match_id: str | None = None
    #: The host (its NOITU_INSTANCE) running the match, once one took it.
    worker: str = ""
    #: The match is over (finished, abandoned): its result is in the archive.
    over: bool = False
    #: When the room was closed or its match ended (ms), for forgetting it later.
    finished_ms: int | None = None
    #: A ladder match (spec B8): made by the server, its seed and turn limit fixed by
    #: the pairing, counted toward no owner's or address's limit.
    ladder: bool = False
    seed: int | None = None
    turn_limit: int | None = None

    # -- where it stands -------------------------------------------------------------

    @property
    def ended(self) -> bool:
        """Closed, or its match over."""
        return self.over or self.closed

    @property
    def phase(self) -> RoomPhase:
        """The phase as the card knows it (its host knows PLAYING and how it ended)."""
        if self.closed:
            return RoomPhase.ABANDONED
        if self.over:
            return RoomPhase.FINISHED
        return RoomPhase.PLACEMENT if self.handed_over else RoomPhase.WAITING

    @property
    def hosted(self) -> bool:
        """A host runs the room's match now: it answers the room's requests."""
        return self.handed_over and bool(self.worker) and not self.ended

    @property
    def waits_for_a_host(self) -> bool:
        """Its match was handed to the queue and no host took it yet."""
        return self.handed_over and not self.worker and not self.ended

    def expired(self, now_ms: int) -> bool:
        """A waiting room nobody completed in time (closed by the next pass or change)."""
        waited = now_ms - self.created_ms
        return not self.handed_over and not self.closed and waited >= WAITING_ROOM_MS

    def forgotten(self, now_ms: int) -> bool:
        """Over for longer than a finished room stays readable."""
        ended = self.finished_ms
        return self.ended and ended is not None and now_ms - ended >= FINISHED_ROOM_MS

    # -- its seats -------------------------------------------------------------------

    @property
    def full(self) -> bool:
        return all(seat is not None for seat in self.seats)

    def seated(self, side: Side, held: RoomSeat | None) -> Room:
        """The room with `held` on `side`."""
        seats = list(self.seats)
        seats[side.number] = held
        return replace(self, seats=(seats[0], seats[1]))

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
            if held is not None and held.kind is SeatKind.PERSON and held.owner == who:
                return side
        return None

    @property
    def spectacle(self) -> bool:
        """Two built-in bots: a show, not a right (spec B10)."""
        return all(held is not None and held.kind is SeatKind.BUILTIN for held in self.seats)

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
            and not self.ended
            and any(held is not None and held.address == address for held in self.seats)
        )

    def involves(self, who: str) -> bool:
        """Whether `who` sits here, answers for a seat, or seated something here (a
        ladder match involves nobody: it counts toward no owner's limit)."""
        return not self.ladder and any(
            held is not None and (held.seated_by == who or held.controlled_by(who))
            for held in self.seats
        )
