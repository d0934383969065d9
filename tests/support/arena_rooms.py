"""Hand-written fakes for the arena's rooms: a timer driven by the fake clock, in-memory
stores for bots and matches, scripted bot processes (in-process, no subprocess), the
built-in bots by name, and `Arena`, every room use case wired to them."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.local_jobs import InProcessMatches
from noitu.adapters.arena.replay_journal import InMemoryReplayJournal
from noitu.adapters.arena.room_board import InMemoryRoomBoard
from noitu.adapters.arena.room_desk import InMemoryRoomDesk
from noitu.adapters.arena.rooms import InMemoryRoomFeed
from noitu.application.arena.errors import RoomNotFound
from noitu.application.arena.jobs import MATCH_JOB
from noitu.application.arena.live_match import Timer
from noitu.application.arena.match_queue import MatchQueue
from noitu.application.arena.ports import (
    Artefact,
    BotBuilder,
    BotLauncher,
    Language,
    ProcessFailure,
    Reply,
)
from noitu.application.arena.records import (
    BotCursor,
    BotRecord,
    BuildStatus,
    MatchCursor,
    MatchRecord,
    MatchStatus,
    kept_stderr,
    new_bot_id,
    new_owner_key,
    owner_hash,
    plays,
)
from noitu.application.arena.rooms.abandon_lost_matches import AbandonLostMatches
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.create_room import CreateRoom, CreateRoomCommand
from noitu.application.arena.rooms.failure_details import FailureDetails
from noitu.application.arena.rooms.forward_room_call import (
    ACT,
    LEAVE,
    PLACE,
    SURRENDER,
    ForwardRoomCall,
)
from noitu.application.arena.rooms.get_replay import GetReplay
from noitu.application.arena.rooms.get_room import GetRoom, GetRoomCommand
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.hosted_room import HostedRoom
from noitu.application.arena.rooms.join_room import JoinRoom, JoinRoomCommand
from noitu.application.arena.rooms.leave_room import LeaveMatch, LeaveRoom, LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import OpenRooms
from noitu.application.arena.rooms.place_pieces import PlacePieces, PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayAction, PlayActionCommand
from noitu.application.arena.rooms.play_match import DeskUseCase, PlayMatch
from noitu.application.arena.rooms.ports import BuiltinArtefacts
from noitu.application.arena.rooms.seating import SeatChoice, Seating
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.application.arena.rooms.surrender import Surrender, SurrenderCommand
from noitu.application.arena.rooms.watch_room import WatchRoom
from noitu.application.arena.run_match import RunMatch
from noitu.application.arena.storage import AlreadyStored
from noitu.application.ports import Clock
from noitu.domain.arena.match import EndReason, Result
from support.fakes import START_MS, CollectingBackground, FakeClock
from support.memory_retention import MemoryRetention

Answer = Callable[[dict], "bytes | ProcessFailure | None"]


def first_legal(request: dict) -> bytes:
    action = request["legalActions"][0]
    return json.dumps(
        {"type": "ACTION", "sequence": request["sequence"], "action": action}
    ).encode()


class FakeTimer:
    """`Timer` on the fake clock: sleepers wake when a test advances the clock."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self._sleepers: list[tuple[int, asyncio.Future[None]]] = []

    async def sleep_until(self, at_ms: int) -> None:
        if self.clock.now_ms() >= at_ms:
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((at_ms, future))
        try:
            await future
        finally:
            self._sleepers = [(at, f) for at, f in self._sleepers if f is not future]

    @property
    def sleeping(self) -> int:
        return len(self._sleepers)

    def next_wake(self) -> int | None:
        """The earliest moment a sleeper waits for (None: nobody sleeps)."""
        return min((at for at, _ in self._sleepers), default=None)

    def advance(self, ms: int) -> None:
        self.clock.advance(ms)
        for at, future in self._sleepers:
            if at <= self.clock.now_ms() and not future.done():
                future.set_result(None)


class ScriptedBot:
    """A bot process answering each request with `answer(request)` (None: it thinks
    until `release()`, then answers with the first legal action). Records asks."""

    def __init__(
        self,
        answer: Answer = first_legal,
        *,
        stderr: bytes = b"debug: thinking\n",
        slow_exit: bool = False,
        slow_start: bool = False,
    ) -> None:
        """`stderr`: what it wrote there. `slow_exit`: close() waits for `let_exit()`
        (a bot using its second to exit). `slow_start`: launching it waits for
        `let_start()` (a JVM starting, say)."""
        self.answer = answer
        self.asked: list[dict] = []
        self.closed = False
        self.stderr = stderr
        self.exited = asyncio.Event()
        self.started = asyncio.Event()
        if not slow_exit:
            self.exited.set()
        if not slow_start:
            self.started.set()
        self.released = asyncio.Event()
        self.late_reply_sent = False
        self._failure: ProcessFailure | None = None
        self._failed = asyncio.Event()

    def release(self) -> None:
        self.released.set()

    def let_exit(self) -> None:
        self.exited.set()

    def let_start(self) -> None:
        self.started.set()

    async def ask(self, line: str, timeout_s: float) -> Reply | ProcessFailure:
        request = json.loads(line)
        self.asked.append(request)
        reply = self.answer(request)
        if reply is None:
            await self.released.wait()
            self.late_reply_sent = True
            reply = first_legal(request)
        if isinstance(reply, ProcessFailure):
            self._failure = self._failure or reply
            self._failed.set()
            return reply
        await asyncio.sleep(0)
        return Reply(reply, 3)

    async def failure(self) -> ProcessFailure:
        await self._failed.wait()
        assert self._failure is not None
        return self._failure

    def pending_failure(self) -> ProcessFailure | None:
        return self._failure

    def stderr_tail(self) -> bytes:
        return self.stderr

    async def close(self) -> None:
        await self.exited.wait()
        self.closed = True


class ScriptedLauncher:
    """Starts the ScriptedBot a test gave for the artefact's directory name (a bot id,
    or a built-in bot's name), a new first_legal bot otherwise; keeps every one."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[ScriptedBot]] = {}
        self.launched: list[tuple[str, ScriptedBot]] = []

    def script(self, name: str, *bots: ScriptedBot) -> None:
        self.scripts.setdefault(name, []).extend(bots)

    async def launch(self, artefact: Artefact) -> ScriptedBot:
        name = (
            artefact.directory.parent.name
            if artefact.directory.name == "artefact"
            else artefact.directory.name
        )
        queued = self.scripts.get(name)
        bot = queued.pop(0) if queued else ScriptedBot()
        self.launched.append((name, bot))
        await bot.started.wait()
        return bot


class FakeBuiltins:
    def names(self) -> tuple[str, ...]:
        return ("random", "tactical", "strong")

    async def artefact(self, name: str) -> Artefact:
        return Artefact(Language.PYTHON, Path("/builtin") / name)


@dataclass
class MemoryStores(MemoryRetention):
    """`BotCatalogue` and `MatchArchive` in memory, one process's store. The storage
    contract (tests/contract/test_arena_storage.py) holds it to the SQL repository's
    rules: ids taken once, the owner's limits, the orders of the lists, the first ending
    of a match standing, which replays retention deletes."""

    bots: dict[str, BotRecord] = field(default_factory=dict)
    matches: dict[str, MatchRecord] = field(default_factory=dict)
    stderr: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    uploads: dict[str, list[int]] = field(default_factory=dict)

    # --- BotCatalogue ---------------------------------------------------------------

    async def record_upload(self, owner: str, at_ms: int, *, window_ms: int, limit: int) -> bool:
        since = at_ms - window_ms
        recent = [at for at in self.uploads.get(owner, []) if at > since]
        self.uploads[owner] = recent
        if len(recent) >= limit:
            return False
        recent.append(at_ms)
        return True

    async def add_bot(self, bot: BotRecord, *, max_bots: int | None = None) -> bool:
        if max_bots is not None and await self.count_bots(bot.owner) >= max_bots:
            return False
        if bot.id in self.bots:
            raise AlreadyStored(bot.id)
        self.bots[bot.id] = bot
        return True

    async def get_bot(self, bot_id: str) -> BotRecord | None:
        return self.bots.get(bot_id)

    async def bots_of(self, owner: str) -> list[BotRecord]:
        return _newest_first(b for b in self.bots.values() if b.owner == owner)

    async def count_bots(self, owner: str) -> int:
        return sum(
            1 for b in self.bots.values() if b.owner == owner and b.build is BuildStatus.OK
        )

    async def failed_builds(self, owner: str | None = None) -> list[BotRecord]:
        return _newest_first(
            b
            for b in self.bots.values()
            if b.build is BuildStatus.FAILED and owner in (None, b.owner)
        )

    async def public_bots(self, limit: int, before: BotCursor | None = None) -> list[BotRecord]:
        listed = _newest_first(b for b in self.bots.values() if b.public)
        if before is not None:
            stop = (before.created_ms, before.bot_id)
            listed = [b for b in listed if (b.created_ms, b.id) < stop]
        return listed[: max(limit, 0)]

    async def set_public(self, bot_id: str, owner: str, public: bool) -> bool:
        found = self.bots.get(bot_id)
        if found is None or found.owner != owner:
            return False
        self.bots[bot_id] = replace(found, public=public)
        return True

    async def delete_bot(self, bot_id: str, owner: str) -> bool:
        found = self.bots.get(bot_id)
        if found is None or found.owner != owner:
            return False
        del self.bots[bot_id]
        return True

    # --- MatchArchive ---------------------------------------------------------------

    async def add_match(self, match: MatchRecord) -> None:
        if match.id in self.matches:
            raise AlreadyStored(match.id)
        self.matches[match.id] = match

    async def start_match(self, match_id: str, started_ms: int) -> bool:
        found = self.matches.get(match_id)
        if found is None or found.status is not MatchStatus.LIVE or found.started_ms is not None:
            return False
        self.matches[match_id] = replace(found, started_ms=started_ms)
        return True

    async def finish_match(
        self,
        match_id: str,
        result: Result,
        finished_ms: int,
        replay: str | None,
        stderr: tuple[bytes, bytes] = (b"", b""),
    ) -> bool:
        found = self.matches.get(match_id)
        if found is None or found.status is not MatchStatus.LIVE:
            return False
        self.stderr[match_id] = (kept_stderr(stderr[0]), kept_stderr(stderr[1]))
        self.matches[match_id] = replace(
            found,
            status=MatchStatus.FINISHED,
            result=result,
            finished_ms=finished_ms,
            replay=replay,
        )
        return True

    async def get_match(self, match_id: str) -> MatchRecord | None:
        return self.matches.get(match_id)

    async def match_stderr(self, match_id: str) -> tuple[bytes, bytes] | None:
        if match_id not in self.matches:
            return None
        return self.stderr.get(match_id, (b"", b""))

    async def live_matches(self) -> list[MatchRecord]:
        live = [m for m in self.matches.values() if m.status is MatchStatus.LIVE]
        return sorted(live, key=lambda m: (m.created_ms, m.id))

    async def finished_matches(
        self,
        limit: int,
        before: MatchCursor | None = None,
        *,
        bot: str | None = None,
        ladder: bool = False,
    ) -> list[MatchRecord]:
        found = [
            m
            for m in self.matches.values()
            if m.status is MatchStatus.FINISHED
            and (before is None or m.cursor < before)
            and (bot is None or plays(m.p1, bot) or plays(m.p2, bot))
            and (m.ladder or not ladder)
        ]
        return sorted(found, key=lambda m: m.cursor, reverse=True)[:limit]

    async def abandon_live(self, now_ms: int, runner: str | None = None) -> int:
        abandoned = Result(winner=None, reason=EndReason.ABANDONED, turns=0)
        ended = 0
        for match in await self.live_matches():
            if runner is None or match.runner == runner:
                await self.finish_match(match.id, abandoned, now_ms, None)
                ended += 1
        return ended


def _newest_first(bots: Iterable[BotRecord]) -> list[BotRecord]:
    return sorted(bots, key=lambda b: (b.created_ms, b.id), reverse=True)


RNG = random.Random(2024)


def new_owner() -> str:
    return owner_hash(new_owner_key(RNG))


@dataclass(frozen=True)
class RealParts:
    """What an integration test's `Arena` runs on instead of the fakes."""

    clock: Clock
    timer: Timer
    launcher: BotLauncher
    builtins: BuiltinArtefacts


class Arena:
    """Every room use case over the fakes, a real files store in `data_dir`: the
    embedded default's composition (issue 31: the board, the desk and the match jobs
    in this process; `PlayMatch` hosts each match as a worker would)."""

    def __init__(
        self,
        data_dir: Path,
        slots: int = 4,
        seed: int = 7,
        builder: BotBuilder | None = None,
        stores: MemoryStores | None = None,
        journaled: bool = False,
        instance: str = "here",
        desk: InMemoryRoomDesk | None = None,
        real: RealParts | None = None,
    ) -> None:
        """`journaled`: a worker's, on several machines (each replay also goes to
        `journal`, shared by the cluster); `instance`: the host's name on the cards;
        `desk`: the one requests reach the host through; `real`: the real clock, timer,
        launcher and built-in bots instead of the fakes (an integration test's)."""
        self.clock: Any = FakeClock() if real is None else real.clock
        self.journal = InMemoryReplayJournal(self.clock)
        self.timer: Any = FakeTimer(self.clock) if real is None else real.timer
        self.background = CollectingBackground()
        self.feed = InMemoryRoomFeed()
        self.queue = MatchQueue(slots)
        self.board = InMemoryRoomBoard(self.clock)
        self.desk = desk or InMemoryRoomDesk()
        self.stores = stores or MemoryStores()
        self.files = DataDirFiles(data_dir)
        self.launcher: Any = ScriptedLauncher() if real is None else real.launcher
        self.builtins: Any = FakeBuiltins() if real is None else real.builtins
        self.host = RoomHost(self.feed, self.clock, self.background)
        self.run_match = RunMatch(self.launcher, timer=self.timer)
        rng = random.Random(seed)
        seating = Seating(self.stores, self.builtins)
        self.start = StartMatch(
            self.host,
            self.stores,
            self.files,
            self.stores,
            self.builtins,
            self.run_match,
            self.timer,
            rng,
            builder=builder,
            journal=self.journal if journaled else None,
        )
        # The match's host: its use cases answer the room's requests through the desk.
        self.play_match = PlayMatch(
            self.host,
            self.start,
            self.board,
            self.desk,
            {
                PLACE: DeskUseCase(PlacePiecesCommand, PlacePieces(self.host)),
                ACT: DeskUseCase(PlayActionCommand, PlayAction(self.host)),
                SURRENDER: DeskUseCase(SurrenderCommand, Surrender(self.host)),
                LEAVE: DeskUseCase(LeaveRoomCommand, LeaveMatch(self.host)),
            },
            instance,
        )
        self.instance = instance
        self.jobs = InProcessMatches(self.queue)
        self.jobs.handle(MATCH_JOB, self.play_match)
        self.rooms = BoardRooms(self.board, self.host, self.jobs)
        self.create_room = CreateRoom(self.rooms, seating, rng)
        self.join_room = JoinRoom(self.rooms, seating)
        self.leave_room = LeaveRoom(self.rooms, self.desk)
        self.place_pieces = ForwardRoomCall(PLACE, self.rooms, self.desk)
        self.play_action = ForwardRoomCall(ACT, self.rooms, self.desk)
        self.surrender = ForwardRoomCall(SURRENDER, self.rooms, self.desk)
        self.get_room = GetRoom(self.rooms)
        self.watch_room = WatchRoom(self.feed, self.host.views)
        self.open_rooms = OpenRooms(self.rooms)
        self.failure_details = FailureDetails(self.host, self.stores)
        self.get_replay = GetReplay(self.stores, self.files)
        self.board_pass = AbandonLostMatches(self.rooms, self.stores, self.files, self.journal)

    def add_bot(
        self, owner: str, *, public: bool = False, name: str = "Bot của tôi", built: bool = True
    ) -> BotRecord:
        bot_id = new_bot_id(RNG)
        bot = BotRecord(
            id=bot_id,
            owner=owner,
            name=name,
            language=Language.PYTHON,
            public=public,
            created_ms=START_MS,
            source_bytes=10,
            build=BuildStatus.OK if built else BuildStatus.FAILED,
            build_messages="",
            source_file=f"bots/{bot_id}/source.py",
            artefact_dir=f"bots/{bot_id}/artefact" if built else None,
        )
        self.stores.bots[bot_id] = bot
        if built:  # as an upload leaves it: the artefact on disk
            (self.files.artefact_path(bot.artefact_dir) / "bot.py").parent.mkdir(parents=True)
            (self.files.artefact_path(bot.artefact_dir) / "bot.py").write_text("print()\n")
            source = self.files.source_path(bot.source_file)
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_text("# the bot's source\n")
        return bot

    async def room(self, code: str, viewer: str = "") -> RoomSnapshot:
        return await self.get_room(GetRoomCommand(code, viewer))

    async def create(
        self, owner: str, seat: SeatChoice, opponent: SeatChoice | None = None
    ) -> RoomSnapshot:
        return await self.create_room(CreateRoomCommand(owner, seat, opponent))

    async def join(
        self, code: str, owner: str, seat: SeatChoice, side: str | None = None
    ) -> RoomSnapshot:
        return await self.join_room(JoinRoomCommand(code, owner, seat, side))

    async def until(
        self, condition: Callable[[], bool], what: str = "", timeout_s: float = 5.0
    ) -> None:
        """Let the background run until `condition()` holds (real time: a safety net)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not condition():
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for {what or condition}")
            await asyncio.sleep(0)

    async def until_room(
        self, code: str, test: Callable[[RoomSnapshot], bool], viewer: str = "",
        timeout_s: float = 5.0,
    ) -> RoomSnapshot:
        """The room as `viewer` sees it (`GetRoom`), once `test` holds (real time: a
        safety net)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            try:
                snapshot = await self.get_room(GetRoomCommand(code, viewer))
            except RoomNotFound:
                snapshot = None
            if snapshot is not None and test(snapshot):
                return snapshot
            if loop.time() > deadline:
                raise AssertionError(f"timed out waiting for room {code}: {snapshot}")
            await asyncio.sleep(0)

    async def hosted(self, code: str, viewer: str = "") -> RoomSnapshot:
        """The room once its host made the match (it has an id): handed over, a room
        waits for its host before anyone places."""
        return await self.until_room(code, lambda s: s.match_id is not None, viewer)

    async def beat(self) -> None:
        """This host is alive (for as long as a fake clock runs) and plays its queue's
        slots at once: the board shows its slots to the ladder (`BoardSlots`)."""
        await self.board.beat(self.instance, 10**12, self.queue.slots)

    def live(self, code: str) -> HostedRoom:
        """The room whose match this process hosts (AssertionError: none of that code)."""
        room = self.host.find(code)
        assert room is not None, f"no match hosted in room {code}"
        return room


def person(name: str = "Lan") -> SeatChoice:
    return SeatChoice("person", name=name)


def builtin(name: str = "tactical") -> SeatChoice:
    return SeatChoice("builtin", ref=name)


def upload(bot: BotRecord) -> SeatChoice:
    return SeatChoice("upload", ref=bot.id)
