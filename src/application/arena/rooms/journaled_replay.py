"""A match's replay on several machines (spec B9, "Faults": the replay of a match whose
worker died keeps what was played and ends with that `end`).

- `JournaledReplay`: the worker's `ReplayWriter`. Each event goes to the local replay
  as on one machine and, in order, to the `ReplayJournal` every process reaches. All
  but `sent` (`UNJOURNALED`): each request line holds the whole board, 97% of a
  replay's bytes (about 2.5 MB in a 200-turn match against 80 KB for the rest), and it
  is the server's own output, which the setup and the applied actions determine. A
  flusher sends an event at once when none went in the last `JOURNAL_BATCH_MS`, and
  otherwise whatever waits in one append when that time is up: a person's move is in
  the journal within a round trip, and a bot match at hundreds of turns a second costs
  about fifty appends a second instead of one a turn (which doubled a worker's Redis
  round trips). A dead worker loses at most the events of its last `JOURNAL_BATCH_MS`
  and a round trip. With the journal away the events wait and are sent when it is
  back. The journal is forgotten once the match is archived (`forget`),
  never before: a worker dying between storing its replay and archiving the result
  still leaves the events to whoever abandons the match.
- `lost_replay`: the replay of such a match, made from its journal by the process that
  abandons it: the setup (made from the record when play had not begun: no pieces, as
  for any match that ended before play), what was played, and the given `end`; an `end`
  the worker wrote before it died is replaced.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from noitu.application.arena.live_match import Timer
from noitu.application.arena.records import MatchRecord
from noitu.application.arena.replay import (
    Event,
    Player,
    end_event,
    unplaced_setup_event,
)
from noitu.application.arena.rooms.cluster_ports import ReplayJournal
from noitu.application.arena.storage import ReplayWriter
from noitu.application.errors import Busy
from noitu.application.ports import Background, Clock
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.match import Result

__all__ = ["JOURNAL_BATCH_MS", "JOURNAL_RETRY_MS", "UNJOURNALED", "JournaledReplay", "lost_replay", "turns_played"]

#: The least time between two appends of one match's events (see the module).
JOURNAL_BATCH_MS = 20
#: How long the flusher waits before trying again while the journal is away.
JOURNAL_RETRY_MS = 500
#: Event kinds the local replay keeps but the journal does not (see the module).
UNJOURNALED = frozenset({"sent"})

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(dict[str, object])


class JournaledReplay:
    """`ReplayWriter` that also keeps the events in the `ReplayJournal` (see module)."""

    def __init__(
        self,
        local: ReplayWriter,
        journal: ReplayJournal,
        match_id: str,
        background: Background,
        clock: Clock,
        timer: Timer,
    ) -> None:
        self._local = local
        self._journal = journal
        self._match_id = match_id
        self._background = background
        self._clock = clock
        self._timer = timer
        self._waiting: list[bytes] = []
        self._flushing = False
        self._forgotten = False

    def record(self, event: Event) -> None:
        self._local.record(event)
        if self._forgotten or event.get("event") in UNJOURNALED:
            return
        self._waiting.append(_encoder.encode(event))
        if not self._flushing:
            self._flushing = True
            self._background.spawn(self._flush())

    async def _flush(self) -> None:
        """Send what waits, then again what came meanwhile once `JOURNAL_BATCH_MS` has
        passed, until a batch time brings nothing (then a record starts another flush)."""
        try:
            while self._waiting and not self._forgotten:
                batch = list(self._waiting)
                try:
                    await self._journal.append(self._match_id, batch)
                except Busy:
                    await self._timer.sleep_until(self._clock.now_ms() + JOURNAL_RETRY_MS)
                    continue
                del self._waiting[: len(batch)]
                await self._timer.sleep_until(self._clock.now_ms() + JOURNAL_BATCH_MS)
        finally:
            self._flushing = False

    async def finish(self) -> str:
        return await self._local.finish()

    def discard(self) -> None:
        self._local.discard()

    async def forget(self) -> None:
        """The match is archived: its journal is no longer needed (one the journal's
        outage keeps runs out by itself)."""
        self._forgotten = True
        self._waiting.clear()
        try:
            await self._journal.drop(self._match_id)
        except Busy:
            pass


def lost_replay(record: MatchRecord, journaled: Sequence[bytes], end: Result) -> list[Event]:
    """The replay of `record`'s match from its journal, ending with `end` (see module).
    An event the journal holds that is not JSON (it never should) is left out."""
    events: list[Event] = []
    for raw in journaled:
        try:
            event = _decoder.decode(raw)
        except msgspec.DecodeError:
            continue
        if event.get("event") != "end":
            events.append(event)
    if not events or events[0].get("event") != "setup":
        players = [Player(side, seat.name, seat.kind) for side, seat in zip(SIDES, record.seats)]
        setup = unplaced_setup_event(record.id, record.seed, record.turn_limit, players)
        events = [setup, *(event for event in events if event.get("event") != "setup")]
    events.append(end_event(end))
    return events


def turns_played(journaled: Sequence[bytes]) -> int:
    """How many actions the journal shows applied (the turn after the last one)."""
    turns = 0
    for raw in journaled:
        try:
            event = _decoder.decode(raw)
        except msgspec.DecodeError:
            continue
        turn = event.get("turn")
        if event.get("event") == "applied" and isinstance(turn, int):
            turns = max(turns, turn + 1)
    return turns
