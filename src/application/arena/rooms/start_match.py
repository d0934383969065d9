"""StartMatch: make the match of a room its host took (`PlayMatch`) and run it to the
end in the background (spec B1, B2, B4).

1. The match is recorded in the `MatchArchive` (live, with both seats) and made in
   PLACEMENT from a fresh seed; the bots' sides are placed from the seed (P1 first, as
   B1 says) and readied at once; people get the clock's placement time (`MATCH_CLOCK`), after which the
   server places what they left and readies them.
2. With every side ready its bots' artefacts are found (an upload's through the
   `BotCatalogue` and `ArenaFiles`, a built-in bot's through `BuiltinArtefacts`) and
   `RunMatch.play` runs it. (Its place among the matches waiting for a host came
   before: the match job's, `PlayMatch`.)
3. At the end, however it ended (a surrender in placement too), the
   bots' stderr tails are taken from their processes in the step that ends the match
   (so the room's owners can read them as soon as it shows the result); then, before
   the bots are closed, the replay is finished through the `ReplayWriter` and the
   match is finished in the archive with the replay's name and the stderr tails in one
   write; only then does the feed publish the result (other instances read the
   archive), with its replay ready. The feed ends once the bots are closed. On a
   worker (several machines) the replay's events also go to the `ReplayJournal` as
   they happen, until the match is archived (`JournaledReplay`).

The server's own trouble (a built-in bot that cannot be built, a store that fails)
ends the match as ABANDONED: nobody wins, nobody loses. The arena's database away for a
while is not such trouble (B9 "Faults"): the match's record, the reads and the write
that start play are tried again for up to `START_PATIENCE_MS`, and the finishing writes
(the replay, the result and the stderr tails) until they go through: the room then shows the result at
once, its replay once stored, and its feed ends after that (`Patience`).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Coroutine
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from noitu.application.arena.build_queue import BuildQueue
from noitu.application.arena.errors import Busy
from noitu.application.arena.fair_order import who
from noitu.application.arena.live_match import LiveMatch, Timer
from noitu.application.arena.match_clock import MATCH_CLOCK
from noitu.application.arena.patience import Patience
from noitu.application.arena.ports import Artefact, BotBuilder, ProcessFailure
from noitu.application.arena.records import MAX_SEED, BotRecord, BuildStatus, MatchRecord, Seat
from noitu.application.arena.replay import Player
from noitu.application.arena.rooms.cluster_ports import ReplayJournal
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.hosted_room import HostedRoom
from noitu.application.arena.rooms.journaled_replay import JournaledReplay
from noitu.application.arena.rooms.ports import BuiltinArtefacts
from noitu.application.arena.run_match import BotSeat, MatchSeat, PersonSeat, RunMatch
from noitu.application.arena.storage import (
    AlreadyStored,
    ArenaFiles,
    BotCatalogue,
    MatchArchive,
    ReplayWriter,
    StorageError,
    StorageUnavailable,
)
from noitu.domain.arena.board import SIDES
from noitu.domain.arena.failure import FailureCode
from noitu.domain.arena.match import EndReason, Match, Phase, Result
from noitu.domain.arena.room import SeatKind

#: Tries at a fresh match id before giving up (ids are 32 random bits).
MATCH_ID_TRIES = 8
#: How long a match that got its slot waits for the database before play (an outage
#: under 30 s abandons nothing, B9).
START_PATIENCE_MS = 30_000


class StartMatch:
    def __init__(
        self,
        host: RoomHost,
        archive: MatchArchive,
        files: ArenaFiles,
        catalogue: BotCatalogue,
        builtins: BuiltinArtefacts,
        run_match: RunMatch,
        timer: Timer,
        rng: random.Random,
        runner: str = "",
        builder: BotBuilder | None = None,
        build_queue: BuildQueue | None = None,
        patience: Patience | None = None,
        journal: ReplayJournal | None = None,
    ) -> None:
        """`runner` names this server instance in the archive: a restart ends only its
        own live matches (several instances may share one database). `builder` (the
        sandboxed one; None without a sandbox) rebuilds an upload whose artefact is
        missing, before play starts and so at no bot's cost (B2). `journal` (a worker's,
        on several machines) also keeps each replay's events where every process
        reaches them until the match is archived (`JournaledReplay`)."""
        self._host = host
        self._archive = archive
        self._files = files
        self._catalogue = catalogue
        self._builtins = builtins
        self._run_match = run_match
        self._runner = runner
        self._builder = builder
        self._build_queue = build_queue
        self._timer = timer
        self._rng = rng
        self._patience = patience or Patience(host.clock, timer)
        self._journal = journal

    async def __call__(self, room: HostedRoom) -> None:
        """Make the match of the room its host took (nothing when it is not full, or
        its match made). Raises what the archive raises (nothing is then started and the
        room is unchanged)."""
        card = room.card
        if room.live is not None or card.closed or not card.full:
            return
        clock = self._host.clock
        created = clock.now_ms()
        seed = card.seed if card.seed is not None else self._rng.randint(0, MAX_SEED)
        turn_limit = card.turn_limit or MATCH_CLOCK.turn_limit
        match_id = await self._record(room, seed, turn_limit, created)
        if room.card.closed:  # its seated owner left meanwhile (`LeaveMatch`)
            abandoned = Result(None, EndReason.ABANDONED, 0)
            await self._archive.finish_match(match_id, abandoned, clock.now_ms(), None)
            return
        match = Match(match_id, seed, turn_limit)
        persons = [
            side for side, held in zip(SIDES, card.seats) if held and held.kind is SeatKind.PERSON
        ]
        for side in SIDES:
            if side not in persons:
                match.random_placement(side)
        for side in SIDES:
            if side not in persons:
                match.ready(side)
        writer = self._replay_writer(match_id)
        room.live = LiveMatch(
            match, writer, persons=persons, clock=clock, on_change=self._host.on_change_of(room)
        )
        room.card = replace(room.card, match_id=match_id)
        room.placement_deadline_ms = created + MATCH_CLOCK.placement_ms if persons else None
        self._host.changed(room)
        self._host.background.spawn(self._conduct(room, room.live, writer))

    def _replay_writer(self, match_id: str) -> ReplayWriter:
        local = self._files.replay_writer(match_id)
        if self._journal is None:
            return local
        host = self._host
        return JournaledReplay(
            local, self._journal, match_id, host.background, host.clock, self._timer
        )

    async def _record(self, room: HostedRoom, seed: int, turn_limit: int, created: int) -> str:
        p1, p2 = room.card.seats
        assert p1 is not None and p2 is not None
        for _ in range(MATCH_ID_TRIES):
            match_id = f"{self._rng.getrandbits(32):08X}"
            record = MatchRecord(
                match_id, room.code, seed, turn_limit, created, Seat.held(p1), Seat.held(p2),
                runner=self._runner, ladder=room.card.ladder,
            )
            try:
                await self._patience(
                    f"record of match {match_id}",
                    lambda: self._archive.add_match(record),  # noqa: B023 - awaited here
                    within_ms=START_PATIENCE_MS,
                )
            except AlreadyStored:
                continue
            return match_id
        raise Busy()

    # -- the match, in the background ----------------------------------------------

    async def _conduct(self, room: HostedRoom, live: LiveMatch, writer: ReplayWriter) -> None:
        try:
            await self._placement(room, live)
            if not live.over:
                await self._play(room, live, writer)
        except BaseException:
            live.abandon()
            raise
        finally:
            await self._finish(room, live, writer)

    async def _placement(self, room: HostedRoom, live: LiveMatch) -> None:
        deadline = room.placement_deadline_ms
        while live.match.phase is Phase.PLACEMENT:
            pulse = live.pulse()
            if deadline is None or self._host.clock.now_ms() >= deadline:
                live.place_rest_and_ready()
                return
            await first_done(pulse.wait(), self._timer.sleep_until(deadline))

    async def _play(self, room: HostedRoom, live: LiveMatch, writer: ReplayWriter) -> None:
        match_id = room.match_id
        assert match_id is not None
        seats = await self._patience(
            f"seats of match {match_id}", lambda: self._seats(room), within_ms=START_PATIENCE_MS
        )
        if live.over:
            return
        started = self._host.clock.now_ms()
        await self._patience(
            f"start of match {match_id}",
            lambda: self._archive.start_match(match_id, started),
            within_ms=START_PATIENCE_MS,
        )
        self._host.changed(room)  # its bots start (still PLACEMENT)
        await self._run_match.play(
            live, seats, when_over=lambda: self._conclude(room, live, writer)
        )

    async def _seats(self, room: HostedRoom) -> list[MatchSeat]:
        seats: list[MatchSeat] = []
        for side in SIDES:
            held = room.card.seats[side.number]
            assert held is not None
            player = Player(side, held.name, held.kind)
            if held.kind is SeatKind.PERSON:
                seats.append(PersonSeat(player))
            elif held.kind is SeatKind.BUILTIN:
                seats.append(BotSeat(player, await self._builtins.artefact(held.ref)))
            else:
                seats.append(BotSeat(player, await self._upload(held.ref)))
        return seats

    async def _upload(self, bot_id: str) -> Artefact | ProcessFailure:
        bot = await self._catalogue.get_bot(bot_id)
        if bot is None or bot.artefact_dir is None:
            return ProcessFailure(FailureCode.START_FAILED, "Bot đã bị xoá nên không chạy được.")
        if bot.build is not BuildStatus.OK:
            return ProcessFailure(FailureCode.COMPILE_ERROR, "Bot biên dịch bị lỗi.")
        try:
            return Artefact(bot.language, await self._files.local_artefact(bot.artefact_dir))
        except FileNotFoundError:
            return await self._rebuild(bot)

    async def _rebuild(self, bot: BotRecord) -> Artefact | ProcessFailure:
        """The artefact of a bot that built once is gone: build it again from its
        source, and keep it."""
        if self._builder is None:
            return ProcessFailure(
                FailureCode.START_FAILED, "Không dựng lại được bot: máy chủ chưa có hộp cát."
            )
        queue = self._build_queue
        turn = queue.turn(who(bot.owner)) if queue is not None else nullcontext()
        async with self._files.scratch() as scratch, turn:
            try:
                source = await self._files.local_source(bot.source_file)
                built = await self._builder.build(source, bot.language, scratch / "artefact")
            except Exception as error:  # noqa: BLE001 - the sandbox's failure, not the bot's
                return ProcessFailure(
                    FailureCode.START_FAILED, f"Không dựng lại được bot: {type(error).__name__}."
                )
            if not built.ok or built.artefact is None:
                return ProcessFailure(
                    FailureCode.START_FAILED, "Không dựng lại được bot: " + built.messages[:500]
                )
            name = await self._files.put_artefact(bot.id, built.artefact.directory)
            return Artefact(bot.language, await self._files.local_artefact(name))

    async def _finish(self, room: HostedRoom, live: LiveMatch, writer: ReplayWriter) -> None:
        await self._conclude(room, live, writer)
        if not room.archived:
            # The database was away at the end: its bots are closed now, the result
            # shown; the finishing writes wait here until it is back.
            await self._patience(
                f"result of match {room.match_id}",
                lambda: self._store(room, live, writer),
            )
            self._archived(room)
        if isinstance(writer, JournaledReplay):
            await writer.forget()
        self._host.close(room)

    async def _conclude(self, room: HostedRoom, live: LiveMatch, writer: ReplayWriter) -> None:
        """Finish the replay and archive the match (once): as soon as it is over, before
        its bots are closed, so whatever instance is asked has the result, the replay
        and the stderr tails together. With the database away, the room shows the
        result (its replay not ready) and `_finish` stores them once it is back."""
        assert room.match_id is not None
        if room.archived or room.card.finished_ms is not None:
            return
        live.abandon()  # nothing happens when the match is over, as it should be
        live.write_setup(
            [
                Player(side, held.name, held.kind)
                for side, held in zip(SIDES, room.card.seats)
                if held is not None
            ]
        )
        live.write_end()
        assert live.match.result is not None
        room.card = replace(room.card, finished_ms=self._host.clock.now_ms(), over=True)
        try:
            await self._store(room, live, writer)
        except StorageUnavailable:
            self._host.changed(room)  # the result, shown before it is stored
            return
        self._archived(room)

    async def _store(self, room: HostedRoom, live: LiveMatch, writer: ReplayWriter) -> None:
        """The finishing writes: the replay (once stored, kept as `room.replay`), then
        the match's result with it. Raises StorageUnavailable when the database is away
        (try again); any other failure loses the replay, never the result's try."""
        finished = room.card.finished_ms
        assert room.match_id is not None and finished is not None
        result = live.match.result
        assert result is not None
        if room.replay is None and not room.replay_lost:
            try:
                room.replay = await writer.finish()
            except StorageUnavailable:
                raise
            except (OSError, StorageError):
                writer.discard()
                room.replay_lost = True
        try:
            await self._archive.finish_match(
                room.match_id, result, finished, room.replay, live.stderr
            )
        except StorageUnavailable:
            raise
        except StorageError:
            room.replay = None  # the archive does not know it: nobody can fetch it
            room.replay_lost = True

    def _archived(self, room: HostedRoom) -> None:
        room.archived = True
        room.concluded.set()
        self._host.changed(room)


async def first_done(*waits: Coroutine[Any, Any, object]) -> None:
    """Wait until the first of `waits` is done, then cancel the others."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
