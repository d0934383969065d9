"""The rooms' ports (issue 31: one room runtime; spec B9): the board every process reads
rooms from, and the desk that carries a person's action to the process hosting the
room's match. In memory on one machine (the embedded default), on Redis for several.

- `RoomBoard`: each room's card (the domain's frozen `Room`: its seats, who made it,
  its version, the match's id and the host running it once one took it), every room's cross-process
  hold (one change of a room at a time, whichever instance is asked), and the workers'
  heartbeats (a worker that stops beating is taken for dead, its matches abandoned).
- `RoomDesk`: a request for a room (the same commands as the REST routes') asked from
  any instance and answered by the worker hosting the room, the answer awaited (B9: the
  REST answer comes after the worker judged it, within 2 s); the worker's side listens
  to its room's requests for as long as it hosts it.
- `ReplayJournal`: a running match's replay events, kept where every process reaches
  them as they happen, so a worker that dies leaves what was played (B9 "Faults": the
  abandoned match's replay keeps it and ends with its `end`).

Cards (frozen dataclasses) and requests (msgspec structs) travel as JSON.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol

import msgspec

from noitu.domain.arena.room import Room

__all__ = [
    "ASK_WITHIN_S",
    "HOLD_WITHIN_S",
    "REPLAY_JOURNAL_TTL_MS",
    "WORKER_BEAT_MS",
    "WORKER_TTL_MS",
    "Asked",
    "DeskReply",
    "DeskRequest",
    "ReplayJournal",
    "RoomBoard",
    "RoomDesk",
]

#: How long an instance waits for the worker's answer to a request (B9: 2 s).
ASK_WITHIN_S = 2.0
#: How long a change waits for a room's hold before answering `busy`.
HOLD_WITHIN_S = 2.0
#: A worker beats this often, each beat good for `WORKER_TTL_MS` (B9: a dead worker's
#: matches are abandoned within 30 s: its last beat runs out within 20 s, and every
#: process looks every 5 s).
WORKER_BEAT_MS = 5_000
WORKER_TTL_MS = 20_000
#: A match's journal is forgotten this long after its last append (a match appends at
#: least every 2 minutes: placement is 120 s, a person's turn 60 s, a bot's 10 s).
REPLAY_JOURNAL_TTL_MS = 3600 * 1000


class RoomBoard(Protocol):
    async def add(self, card: Room) -> bool:
        """Keep a new room's card; False (nothing kept) when its code is taken."""
        ...

    async def get(self, code: str) -> Room | None: ...

    async def put(self, card: Room) -> None:
        """Store the card of a room (replacing what was there): done under its hold."""
        ...

    async def cards(self) -> list[Room]:
        """Every card kept, oldest first."""
        ...

    async def remove(self, code: str) -> None:
        """Forget a room (no error when it is not kept)."""
        ...

    def hold(self, code: str) -> AbstractAsyncContextManager[None]:
        """The room's hold across processes, for one change (or the hold of any other
        name a change must be alone with, such as an owner's limit): waits while another
        holds it, raises `Busy` when not had within `HOLD_WITHIN_S`. A holder that dies
        releases it after a few seconds (5 s on Redis), and so does one that keeps it
        longer: the change made under it must be short. Not reentrant: asking again for
        a hold one has waits on oneself, then `Busy`."""
        ...

    async def beat(self, worker: str, ttl_ms: int, matches: int = 0) -> None:
        """`worker` is alive for the next `ttl_ms`, and plays `matches` at once."""
        ...

    async def match_slots(self) -> int:
        """The matches at once of every worker alive (the cluster's match capacity)."""
        ...

    async def alive(self, worker: str) -> bool:
        """Whether `worker` beat within its last time to live."""
        ...


class DeskRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A request for a room: its kind (`get`, `place`, `act`, `surrender`, `leave`) and
    the use case's command, encoded."""

    kind: str
    command: msgspec.Raw


class DeskReply(msgspec.Struct, frozen=True, kw_only=True):
    """The worker's answer: the room as the asker sees it (a `RoomSnapshot`, encoded),
    or the error's code and message (a `GameError`'s).

    msgspec cannot decode a `Raw | None` field (it accepts only `null` there): an
    adapter that carries replies as JSON decodes them through a form of its own."""

    snapshot: msgspec.Raw | None = None
    error: str | None = None
    message: str = ""


class Asked(Protocol):
    """A request the worker received, and the way to answer it."""

    @property
    def request(self) -> DeskRequest: ...

    async def answer(self, reply: DeskReply) -> None:
        """Send the answer (a lost asker is no error; answering twice neither, the
        second answer being dropped). `Busy` when the broker is away."""
        ...


class RoomDesk(Protocol):
    async def ask(self, code: str, request: DeskRequest) -> DeskReply:
        """Hand the request to the worker hosting room `code` and wait for its answer;
        `Busy` when none came within `ASK_WITHIN_S` (the request is then dropped, never
        acted on later) or the broker is away. A request the worker took before that
        time ran out is waited for a little longer (the adapter's grace): `Busy` after
        it means the outcome is unknown, and the next snapshot shows it. A cancelled
        ask withdraws its request when it can."""
        ...

    def listen(self, code: str) -> AsyncGenerator[Asked, None]:
        """The requests for room `code` (the worker's side), in the order they were
        asked, including those asked before the listening began that are still awaited;
        runs until the caller stops iterating (`aclose()`). `Busy` while the broker is
        away ends it (listen again)."""
        ...


class ReplayJournal(Protocol):
    """A running match's replay events (spec B4's JSON lines, each one event encoded),
    appended by the worker as they happen and read by whoever abandons the match when
    that worker died. Every call raises `Busy` when the store is away."""

    async def append(self, match_id: str, events: Sequence[bytes]) -> None:
        """Add `events` after the match's earlier ones, in order; the journal lives
        `REPLAY_JOURNAL_TTL_MS` after its last append."""
        ...

    async def events(self, match_id: str) -> list[bytes]:
        """Every event appended so far, oldest first (none for an unknown match)."""
        ...

    async def drop(self, match_id: str) -> None:
        """Forget the match's events (nothing happens when there are none)."""
        ...
