"""The ladder's driver (spec B8 "Pairings", "Rating", "Scheduling"): ladder matches on
idle capacity, each handed to `PlayMatch` and rated when it ends.

Whenever the match queue has a slot nobody else wants (no room's match waits, and the
ladder holds fewer than all but one of the slots), the driver starts the next ladder
match: the other match of a pairing it is playing, else a new pairing's first, which
it asks `SchedulePairing` for. A pairing's two matches (same seed, sides swapped) thus
run together when two slots are idle and one after the other when one is.

Each match is the card of a room (the domain's `Room`) the driver hands over (issue 31:
the match is the unit; the ladder seats no person): a fresh room code, both seats filled
with the pairing's bots, the pairing's seed and turn limit, marked as a ladder match.
`PlayMatch` plays it — called in this process on one machine, a job on the workers'
queue on several (`ladder_slots.py`) — and it is shown in the lobby as a ladder match
and watchable under its code like any room. Once it is archived, `RecordLadderResult`
rates it; a pairing it says to play again (a match the server spoiled) joins the matches
to start, from the next tick on, so a server that spoils every match (its sandbox gone)
tries again at the tick's pace rather than in a tight loop. A ranked bot found deleted
leaves the ladder (its match is not played, nobody is rated); one found unranked starts
no match either (the other match of a pairing under way included): its pairing ends with
what was played, and is not played again.

A pairing whose instance died (a worker lost, an instance gone for good) would keep its
two bots busy for ever: at each tick, a pairing live for `LOST_PAIRING_MS` that this
driver is not playing is taken as lost — its matches not told end unplayed (ABANDONED,
not rated), so it closes and is played again, here. An instance that restarts does not
wait for that: `RecoverAtStart` drops the pairings named after it before the driver
starts, so their bots are scheduled again at once.

The driver wakes when the queue changes (a slot freed, a room's match came or left),
when one of its matches ends, and at a periodic tick (a bot ranked meanwhile, another
instance's lease let go), so it runs the same in one process and beside other
instances: the lease inside `SchedulePairing` makes one scheduler decide at a time.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from noitu.application.arena.errors import Busy
from noitu.application.arena.jobs import MatchOutcome
from noitu.application.arena.ladder.ports import (
    BuiltinRoster,
    LadderBots,
    LadderMatchJobs,
    LadderMembers,
    LadderPairings,
    LadderSlots,
)
from noitu.application.arena.ladder.record_ladder_result import (
    RecordLadderResult,
    RecordLadderResultCommand,
    UnknownPairing,
)
from noitu.application.arena.ladder.schedule_pairing import (
    SchedulePairing,
    SchedulePairingCommand,
)
from noitu.application.arena.live_match import Timer
from noitu.application.arena.match_clock import MATCH_CLOCK
from noitu.application.arena.rooms.start_match import first_done
from noitu.application.ports import Background, Clock
from noitu.domain.arena.ladder.pairing import MATCHES_PER_PAIRING, Pairing
from noitu.domain.arena.match import EndReason, Result
from noitu.domain.arena.room import Room, RoomSeat, SeatKind, new_room_code

#: How often the driver looks for idle slots without being woken.
TICK_MS = 5_000
#: A pairing live this long is lost, unless this driver plays it: two matches of the
#: longest kind (every turn near its 2 s) take well under it.
LOST_PAIRING_MS = 30 * 60_000


class PlayLadderCommand(msgspec.Struct, frozen=True):
    #: This instance's name: the scheduler's lease holder.
    scheduler: str


@dataclass(frozen=True, slots=True)
class LadderMatch:
    """Match `index` (0 or 1: sides swapped) of `pairing`, to start from `not_before_ms`."""

    pairing: Pairing
    index: int
    not_before_ms: int = 0


class PlayLadder:
    def __init__(
        self,
        schedule: SchedulePairing,
        record: RecordLadderResult,
        play: LadderMatchJobs,
        slots: LadderSlots,
        bots: LadderBots,
        members: LadderMembers,
        pairings: LadderPairings,
        roster: BuiltinRoster,
        clock: Clock,
        background: Background,
        timer: Timer,
        rng: random.Random,
        on_error: Callable[[Exception], None],
        turn_limit: int = MATCH_CLOCK.turn_limit,
        tick_ms: int = TICK_MS,
    ) -> None:
        """`play`: where each match is handed (`PlayMatch`, or the workers' queue);
        `slots`: which of the match slots the ladder may fill; `on_error` is told of a
        pass that failed (a store down; the driver goes on and tries again at the next
        wake); `turn_limit`: the ladder matches' (a benchmark may shorten them)."""
        self._schedule = schedule
        self._record = record
        self._play_match = play
        self._slots = slots
        self._clock = clock
        self._background = background
        self._bots = bots
        self._members = members
        self._pairings = pairings
        self._roster = roster
        self._timer = timer
        self._rng = rng
        self._on_error = on_error
        self._turn_limit = turn_limit
        self._tick_ms = tick_ms
        #: Matches of this driver's pairings not started yet, in order.
        self._to_start: deque[LadderMatch] = deque()
        #: Ladder matches started and not yet archived (in the queue or playing).
        self._in_flight = 0
        #: The pairings this driver plays (their matches to start, or in flight).
        self._mine: set[str] = set()
        self._next_look_for_lost_ms = 0
        self._wake = asyncio.Event()

    async def __call__(self, command: PlayLadderCommand) -> None:
        """Keep idle slots filled with ladder matches until cancelled."""
        self._slots.on_change(self._wake.set)
        try:
            while True:
                self._wake.clear()
                try:
                    await self._fill(command.scheduler)
                except Exception as error:  # noqa: BLE001 - told; the next wake tries again
                    self._on_error(error)
                now = self._clock.now_ms()
                deadline = now + self._tick_ms
                if self._to_start and self._to_start[0].not_before_ms > now:
                    # a replay due before the tick (never a moment past: no spinning
                    # while the rooms hold every slot)
                    deadline = min(deadline, self._to_start[0].not_before_ms)
                await first_done(self._wake.wait(), self._timer.sleep_until(deadline))
        finally:
            self._slots.off_change(self._wake.set)

    @property
    def in_flight(self) -> int:
        """Ladder matches started and not yet archived."""
        return self._in_flight

    async def _fill(self, scheduler: str) -> None:
        await self._end_lost_pairings(scheduler)
        while await self._slots.idle_slot(self._in_flight):
            if not self._to_start:
                pairing = await self._schedule(SchedulePairingCommand(scheduler))
                if pairing is None:
                    return
                self._play(pairing, not_before_ms=0)
            if self._to_start[0].not_before_ms > self._clock.now_ms():
                return
            await self._begin(self._to_start.popleft())

    async def _begin(self, ladder_match: LadderMatch) -> None:
        """Hand the match over: it is played in the background, then rated."""
        p1, p2 = ladder_match.pairing.seats(ladder_match.index)
        seats = (await self._seat(p1), await self._seat(p2))
        if seats[0] is None or seats[1] is None:
            # a bot deleted or unranked meanwhile: no match, nobody rated
            self._unplayed(ladder_match)
            return
        spec = Room(
            code=new_room_code(self._rng), created_ms=self._clock.now_ms(), creator="",
            seats=(seats[0], seats[1]), seed=ladder_match.pairing.seed,
            turn_limit=self._turn_limit, ladder=True,
        )
        self._in_flight += 1
        self._background.spawn(self._play_and_rate(spec, ladder_match))

    async def _play_and_rate(self, spec: Room, ladder_match: LadderMatch) -> None:
        try:
            if await self._unranked(spec):
                outcome = MatchOutcome(match_id=None)
            else:
                # Nothing suspends between the look and the match's room being made on
                # one machine, so an unranking after the look finds it waiting.
                outcome = await self._play_match(spec)
        except Exception as error:  # noqa: BLE001 - not begun: told, tried again
            self._in_flight -= 1
            if not isinstance(error, Busy):  # Busy: its room code was taken
                self._on_error(error)
            # From the next tick on: a server whose store is down does not spin.
            self._to_start.appendleft(
                LadderMatch(ladder_match.pairing, ladder_match.index,
                            self._clock.now_ms() + self._tick_ms)
            )
            self._wake.set()
            return
        except BaseException:
            self._in_flight -= 1
            raise
        if outcome.match_id is None or outcome.result is None:
            # closed before its match was made, or cut short (shutting down)
            self._in_flight -= 1
            self._unplayed(ladder_match)
            return
        await self._rate(ladder_match, (outcome.match_id, outcome.result), outcome.ended_ms)

    async def _unranked(self, spec: Room) -> bool:
        """A bot unranked while its match was being begun: the unranking may have
        looked for its waiting matches before this one was there, so look again."""
        for seat in spec.seats:
            if seat is None:
                continue
            if seat.kind is SeatKind.UPLOAD and await self._members.get(seat.ref) is None:
                return True
        return False

    async def _seat(self, bot: str) -> RoomSeat | None:
        """The bot's seat; None when the uploaded bot is gone (it then leaves the
        ladder: B8, a deleted bot leaves the table) or was unranked (its owner took it
        off the ladder: it starts no more ladder matches)."""
        if bot in self._roster.names():
            return RoomSeat(kind=SeatKind.BUILTIN, ref=bot, name=bot, seated_by="")
        record = await self._bots.get_bot(bot)
        if record is None:
            await self._members.unrank(bot)
            return None
        if await self._members.get(bot) is None:
            return None
        return RoomSeat(
            kind=SeatKind.UPLOAD, ref=bot, name=record.name, owner=record.owner,
            seated_by="",
        )

    def _unplayed(self, ladder_match: LadderMatch) -> None:
        """A ladder match that could not be played: it ends as ABANDONED, not rated,
        under a fresh id (no match of the archive has it)."""
        self._in_flight += 1
        played = f"{self._rng.getrandbits(32):08X}", Result(None, EndReason.ABANDONED, 0)
        self._background.spawn(self._rate(ladder_match, played, None))

    async def _rate(
        self, ladder_match: LadderMatch, played: tuple[str, Result], ended_ms: int | None
    ) -> None:
        """Rate the match (`played`: its id and result) and take its pairing's replay."""
        self._in_flight -= 1
        self._wake.set()
        match_id, result = played
        p1, p2 = ladder_match.pairing.seats(ladder_match.index)
        if ended_ms is None:
            ended_ms = self._clock.now_ms()
        try:
            recorded = await self._record(
                RecordLadderResultCommand(ladder_match.pairing.id, match_id, p1, p2, result, ended_ms)
            )
        except UnknownPairing:
            return  # the pairing was closed meanwhile (lost, ended elsewhere): nothing to rate
        except Exception:
            # not recorded (a store down): no longer this driver's, so once it is old
            # enough the lost pairings' rule ends it and plays it again
            self._mine.discard(ladder_match.pairing.id)
            raise
        if recorded.pairing_over:
            self._mine.discard(ladder_match.pairing.id)
        if recorded.replay is not None:
            self._play(recorded.replay, self._clock.now_ms() + self._tick_ms)
            self._wake.set()

    def _play(self, pairing: Pairing, not_before_ms: int) -> None:
        self._mine.add(pairing.id)
        self._to_start.extend(
            LadderMatch(pairing, index, not_before_ms) for index in range(MATCHES_PER_PAIRING)
        )

    async def _end_lost_pairings(self, scheduler: str) -> None:
        """At most once a tick: end the matches not told of every lost pairing (its
        replay is then this instance's, `scheduler`)."""
        now = self._clock.now_ms()
        if now < self._next_look_for_lost_ms:
            return
        self._next_look_for_lost_ms = now + self._tick_ms
        for pairing in await self._pairings.live():
            if pairing.id in self._mine or now - pairing.started_ms < LOST_PAIRING_MS:
                continue
            for index in range(len(pairing.ends), MATCHES_PER_PAIRING):
                p1, p2 = pairing.seats(index)
                played = f"{self._rng.getrandbits(32):08X}"
                try:
                    recorded = await self._record(
                        RecordLadderResultCommand(
                            pairing.id, played, p1, p2, Result(None, EndReason.ABANDONED, 0), now,
                            replay_instance=scheduler,
                        )
                    )
                except (UnknownPairing, ValueError):
                    break  # another instance ended it meanwhile
                if recorded.replay is not None:
                    self._play(recorded.replay, now + self._tick_ms)

