"""Rooms on several machines (spec B9), on fakes: two web instances over one board,
one desk and one feed, and a worker that runs the match (`PlayMatch`) with the same
use cases as one machine. A room made on one instance is joined, played and watched
from the other; the REST answer is the worker's verdict; leaving before a worker took
the match closes the room; a worker that stops beating has its match abandoned."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from pathlib import Path

import msgspec
import pytest

from noitu.adapters.arena.room_desk import InMemoryRoomDesk
from noitu.application.arena.errors import (
    Busy,
    NotSeated,
    NotYourTurn,
    OneSpectacle,
    RoomFull,
    TooManyMatches,
    WrongRoomPhase,
)
from noitu.application.arena.fair_order import Waiting, in_fair_order
from noitu.application.arena.jobs import (
    MATCH_JOB,
    NOBODY,
    Finished,
    InLine,
    JobType,
    P,
    R,
)
from noitu.application.arena.ladder.unrank_bot import UnrankBot, UnrankBotCommand
from noitu.application.arena.limits import MAX_LIVE_MATCHES_PER_OWNER
from noitu.application.arena.match_queue import MatchQueue
from noitu.application.arena.records import new_owner_key, owner_hash
from noitu.application.arena.rooms.abandon_lost_matches import AbandonLostMatches
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.cluster_ports import WORKER_TTL_MS
from noitu.application.arena.rooms.create_room import CreateRoom, CreateRoomCommand
from noitu.application.arena.rooms.forward_room_call import (
    ACT,
    PLACE,
    SURRENDER,
    ForwardRoomCall,
)
from noitu.application.arena.rooms.get_room import GetRoom, GetRoomCommand
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.inputs import ActionInput
from noitu.application.arena.rooms.join_room import JoinRoom, JoinRoomCommand
from noitu.application.arena.rooms.journaled_replay import JOURNAL_BATCH_MS
from noitu.application.arena.rooms.ladder_slots import LOOK_EVERY_MS, BoardSlots
from noitu.application.arena.rooms.leave_room import LeaveRoom, LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import WHOLE_LOBBY, OpenRooms, OpenRoomsCommand
from noitu.application.arena.rooms.place_pieces import PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayActionCommand
from noitu.application.arena.rooms.seating import Seating
from noitu.application.arena.rooms.surrender import SurrenderCommand
from noitu.application.arena.rooms.watch_room import WatchRoom
from noitu.domain.arena.ladder.members import Member
from noitu.domain.arena.match import EndReason
from noitu.domain.arena.room import Room, RoomSeat, SeatKind
from support.arena_rooms import Arena, ScriptedBot, builtin, first_legal, new_owner, person, upload
from support.ladder import LadderRun, MemoryMembers


class CountingDesk(InMemoryRoomDesk):
    """The in-memory desk, counting the requests asked of it."""

    def __init__(self, ask_within_s: float) -> None:
        super().__init__(ask_within_s=ask_within_s)
        self.asked = 0

    async def ask(self, code, request):
        self.asked += 1
        return await super().ask(code, request)


class QueuedJobs:
    """`Jobs` whose match jobs wait here until a test hands them to a worker; each
    keeps its place in line (`InLine`)."""

    def __init__(self) -> None:
        self.queued: dict[str, Room] = {}
        self.lines: dict[str, InLine] = {}

    async def submit(
        self, job_type: JobType[P, R], payload: P, line: InLine = NOBODY
    ) -> Finished[R]:
        raise AssertionError("a web instance never waits for a match job")

    async def enqueue(
        self, job_type: JobType[P, R], payload: P, key: str, line: InLine = NOBODY
    ) -> None:
        assert job_type is MATCH_JOB
        if key not in self.queued:
            self.queued[key] = payload  # type: ignore[assignment]
            self.lines[key] = line

    def take(self, code: str) -> Room:
        self.lines.pop(code)
        return self.queued.pop(code)

    def in_taking_order(self) -> list[str]:
        """The codes in the order a queue keeping B10's fair order hands them out."""
        line = [
            Waiting(key, line.tags, line.rank or 0, line.arrival_ms or 0, line.spectacle,
                    line.ladder)
            for key, line in self.lines.items()
        ]
        return [waiting.key for waiting in in_fair_order(line)]


class Web:
    """A web instance: its own host (it hosts no match), the shared board, desk, feed
    and queue."""

    def __init__(self, cluster: Cluster) -> None:
        arena = cluster.arena
        self.host = RoomHost(arena.feed, arena.clock, arena.background)
        seating = Seating(arena.stores, arena.builtins)
        self.rooms = BoardRooms(cluster.board, self.host, cluster.jobs)
        rng = random.Random(len(cluster.webs))
        self.create = CreateRoom(self.rooms, seating, rng)
        self.join = JoinRoom(self.rooms, seating)
        self.lobby = OpenRooms(self.rooms)
        desk = cluster.desk
        self.get = GetRoom(self.rooms)
        self.place = ForwardRoomCall(PLACE, self.rooms, desk)
        self.act = ForwardRoomCall(ACT, self.rooms, desk)
        self.surrender = ForwardRoomCall(SURRENDER, self.rooms, desk)
        self.leave = LeaveRoom(self.rooms, desk)
        self.watch = WatchRoom(arena.feed, self.host.views)
        self.lost = AbandonLostMatches(self.rooms, arena.stores, arena.files, arena.journal)


class Cluster:
    def __init__(self, data_dir: Path) -> None:
        # The worker's arena: its host and runner, its stores (the shared database), its
        # feed (the shared broker), and the board and desk every instance shares.
        self.desk = CountingDesk(ask_within_s=0.5)
        self.arena = Arena(data_dir, journaled=True, instance="worker-1", desk=self.desk)
        self.board = self.arena.board
        self.jobs = QueuedJobs()
        self.webs: list[Web] = []
        self.webs.append(Web(self))
        self.webs.append(Web(self))
        self.play_match = self.arena.play_match

    def run(self, code: str) -> asyncio.Task:
        """A worker takes the room's match job."""
        return asyncio.create_task(self.play_match(self.jobs.take(code)))

    async def work(self) -> None:
        """A worker that takes every job as it comes."""
        taken: list[asyncio.Task] = []
        try:
            while True:
                taken.extend(self.run(code) for code in list(self.jobs.queued))
                await asyncio.sleep(0)
        finally:
            for task in taken:
                task.cancel()
            await asyncio.gather(*taken, return_exceptions=True)


@pytest.fixture
def cluster(tmp_path: Path) -> Cluster:
    return Cluster(tmp_path)


def move_of(snapshot) -> ActionInput:
    legal = snapshot.legal_actions[0]
    return msgspec.convert(msgspec.to_builtins(legal), ActionInput)


async def test_a_room_made_on_one_instance_is_joined_played_and_watched_on_the_other(
    cluster: Cluster,
) -> None:
    a, b = cluster.webs
    lan, minh = new_owner(), new_owner()
    made = await a.create(CreateRoomCommand(lan, person("Lan")))
    code = made.code
    assert made.phase == "WAITING" and not cluster.jobs.queued
    # B sees the room in its lobby and seats Minh: the match goes to the queue.
    assert [room.code for room in (await b.lobby(WHOLE_LOBBY)).waiting] == [code]
    joined = await b.join(JoinRoomCommand(code, minh, person("Minh")))
    assert joined.phase == "PLACEMENT" and joined.mine == ("P2",)
    assert code in cluster.jobs.queued
    with pytest.raises(RoomFull):
        await a.join(JoinRoomCommand(code, new_owner(), person("Ba")))
    with pytest.raises(WrongRoomPhase):  # no worker has the match yet: nothing to place
        await a.place(PlacePiecesCommand(code, lan, ActionInput("RANDOM_PLACEMENT")))
    # A spectator's watch, on A, from the first snapshot on.
    watching = await a.watch(GetRoomCommand(code))
    seen = [await anext(watching)]
    hosting = cluster.run(code)
    placing = await cluster.arena.hosted(code)
    assert placing.placement_deadline_ms is not None
    card = await cluster.board.get(code)
    assert card is not None and card.worker == "worker-1"
    # Each person places through the other instance than the one they used.
    mine = await b.place(PlacePiecesCommand(code, lan, ActionInput("RANDOM_PLACEMENT")))
    assert mine.mine == ("P1",) and len(mine.board.pieces) == 18  # Lan sees her own pieces
    for who, web in ((lan, b), (minh, a)):
        if who == minh:
            await web.place(PlacePiecesCommand(code, who, ActionInput("RANDOM_PLACEMENT")))
        await web.place(PlacePiecesCommand(code, who, ActionInput("READY")))
    playing = await cluster.arena.until_room(code, lambda s: s.phase == "PLAYING", lan)
    assert playing.current_player == "P1"
    with pytest.raises(NotYourTurn):  # the worker's verdict, raised on instance B
        await b.act(PlayActionCommand(code, minh, ActionInput("PASS")))
    # Lan's own view, from the worker: her legal actions.
    lans = await a.get(GetRoomCommand(code, lan))
    assert lans.legal_actions and lans.mine == ("P1",)
    moved = await b.act(PlayActionCommand(code, lan, move_of(lans)))
    assert moved.turn == 1 and moved.current_player == "P2"
    gave_up = await a.surrender(SurrenderCommand(code, minh))
    assert gave_up.result is not None and gave_up.result.winner == "P1"
    verdict = await asyncio.wait_for(hosting, 5)
    assert verdict.result.reason is EndReason.SURRENDER and verdict.match_id
    async for snapshot in watching:
        seen.append(snapshot)
    assert seen[-1].phase == "FINISHED" and seen[-1].replay_ready
    versions = [snapshot.version for snapshot in seen]
    assert versions == sorted(set(versions))
    card = await cluster.board.get(code)
    assert card is not None and card.over and card.match_id == verdict.match_id
    # After the end every instance answers from the board, the viewer's sides kept.
    after = await b.get(GetRoomCommand(code, minh))
    assert after.phase == "FINISHED" and after.mine == ("P2",)
    record = await cluster.arena.stores.get_match(verdict.match_id)
    assert record is not None and record.result is not None
    assert record.result.reason is EndReason.SURRENDER


async def test_a_seated_viewer_watching_from_another_instance_sees_their_own_pieces(
    cluster: Cluster,
) -> None:
    a, b = cluster.webs
    lan = new_owner()
    made = await a.create(CreateRoomCommand(lan, person("Lan"), builtin("tactical")))
    code = made.code
    hosting = cluster.run(code)
    await cluster.arena.hosted(code)
    watching = await b.watch(GetRoomCommand(code, lan))
    first = await anext(watching)
    assert first.mine == ("P1",) and first.board.pieces == ()
    await a.place(PlacePiecesCommand(code, lan, ActionInput("RANDOM_PLACEMENT")))
    asked = cluster.desk.asked  # the placement's request
    shown = await anext(watching)
    while len(shown.board.pieces) < 18:
        shown = await anext(watching)
    assert {piece.owner_id for piece in shown.board.pieces} == {"P1"}  # only hers
    # Her frames and her looks are the feed's: nothing more was asked of the worker.
    looked = await a.get(GetRoomCommand(code, lan))
    assert looked.mine == ("P1",) and len(looked.board.pieces) == 18
    assert (await a.get(GetRoomCommand(code))).board.pieces == ()  # a spectator's
    assert cluster.desk.asked == asked
    await a.leave(LeaveRoomCommand(code, lan))  # leaving the match: a surrender
    await asyncio.wait_for(hosting, 5)
    await watching.aclose()


class LateFeed:
    """The shared feed, but its first `latest` is the one read just before the room's
    last snapshot was published: a watcher that connected as the room ended."""

    def __init__(self, feed, stale) -> None:
        self._feed = feed
        self._stale = stale

    async def latest(self, code):
        stale, self._stale = self._stale, None
        return stale if stale is not None else await self._feed.latest(code)

    def subscribe(self, code):
        return self._feed.subscribe(code)


async def test_a_watcher_that_came_as_the_room_ended_still_gets_its_last_snapshot(
    cluster: Cluster,
) -> None:
    a, _ = cluster.webs
    lan = new_owner()
    code = (await a.create(CreateRoomCommand(lan, person("Lan"), builtin("random")))).code
    hosting = cluster.run(code)
    await cluster.arena.hosted(code)
    before_the_end = await cluster.arena.feed.latest(code)
    await a.surrender(SurrenderCommand(code, lan))
    await asyncio.wait_for(hosting, 5)
    late = LateFeed(cluster.arena.feed, before_the_end)
    watching = await WatchRoom(late, lambda code: None)(GetRoomCommand(code))  # a spectator
    seen = [snapshot async for snapshot in watching]
    assert [snapshot.phase for snapshot in seen] == ["PLACEMENT", "FINISHED"]
    assert seen[-1].result is not None and seen[-1].result.winner == "P2"


class SlowCatalogue:
    """The stores, whose next `get_bot` waits until `go` is set (a slow database
    while a change holds its room)."""

    def __init__(self, stores) -> None:
        self._stores = stores
        self.asked = asyncio.Event()
        self.go = asyncio.Event()

    async def get_bot(self, bot_id):
        self.asked.set()
        await self.go.wait()
        return await self._stores.get_bot(bot_id)


async def test_a_lobby_read_waits_on_no_change_in_progress(cluster: Cluster) -> None:
    a, _ = cluster.webs
    lan = new_owner()
    waiting = await a.create(CreateRoomCommand(lan, person("Lan")))
    bot = cluster.arena.add_bot(lan)
    slow = SlowCatalogue(cluster.arena.stores)
    creating = CreateRoom(a.rooms, Seating(slow, cluster.arena.builtins), random.Random(3))
    made = asyncio.create_task(creating(CreateRoomCommand(lan, upload(bot))))
    await asyncio.wait_for(slow.asked.wait(), 5)  # the change holds this instance now
    lobby = await asyncio.wait_for(a.lobby(WHOLE_LOBBY), 1)
    assert [room.code for room in lobby.waiting] == [waiting.code]
    slow.go.set()
    assert (await made).phase == "WAITING"


async def test_leaving_before_a_worker_took_the_match_closes_the_room(cluster: Cluster) -> None:
    a, b = cluster.webs
    lan = new_owner()
    made = await a.create(CreateRoomCommand(lan, person("Lan"), builtin("random")))
    code = made.code
    assert made.phase == "PLACEMENT" and code in cluster.jobs.queued
    with pytest.raises(NotSeated):
        await b.leave(LeaveRoomCommand(code, new_owner()))
    left = await b.leave(LeaveRoomCommand(code, lan))
    assert left.phase == "ABANDONED"
    # The worker that takes the job later leaves the closed room alone.
    verdict = await asyncio.wait_for(cluster.run(code), 5)
    assert verdict.match_id is None
    assert not cluster.arena.stores.matches
    assert (await a.get(GetRoomCommand(code))).phase == "ABANDONED"


async def test_a_worker_that_stops_beating_has_its_match_abandoned(cluster: Cluster) -> None:
    a, b = cluster.webs
    lan = new_owner()
    thinking = ScriptedBot(lambda request: None)  # the bot never answers: a worker frozen
    cluster.arena.launcher.script("strong", thinking)
    made = await a.create(CreateRoomCommand(lan, builtin("strong"), builtin("random")))
    code = made.code
    hosting = cluster.run(code)
    await cluster.arena.until(lambda: bool(thinking.asked), "the match to begin")
    watching = await b.watch(GetRoomCommand(code))
    assert (await anext(watching)).phase == "PLAYING"
    clock = cluster.arena.clock
    await cluster.board.beat("worker-1", WORKER_TTL_MS)  # then it dies: no more beats
    assert await b.lost() == 0  # the first pass only notes the board is reachable
    clock.advance(WORKER_TTL_MS - 1)
    assert await b.lost() == 0  # the worker's last beat is still good
    clock.advance(1)
    assert await a.lost() == 0  # A's own first pass: it judges nobody yet
    assert await b.lost() == 1
    clock.advance(WORKER_TTL_MS)
    assert await a.lost() == 0  # done once
    frames = [snapshot async for snapshot in watching]
    assert frames[-1].phase == "ABANDONED"
    assert frames[-1].result is not None and frames[-1].result.reason == "ABANDONED"
    card = await cluster.board.get(code)
    assert card is not None and card.over
    record = await cluster.arena.stores.get_match(card.match_id)
    assert record is not None and record.result is not None
    assert record.result.reason is EndReason.ABANDONED and record.result.winner is None
    # Play had begun: the replay is the setup then the end (nothing was played).
    assert record.replay is not None and frames[-1].replay_ready
    replay = await replay_events(cluster, record.replay)
    assert [event["event"] for event in replay] == ["setup", "end"]
    assert len(replay[0]["pieces"]) == 36
    assert replay[-1] == {"event": "end", "winner": None, "reason": "ABANDONED", "turns": 0,
                          "failure": None}
    assert await cluster.arena.journal.events(card.match_id) == []  # forgotten
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)


async def replay_events(cluster: Cluster, name: str) -> list[dict]:
    data = await cluster.arena.files.read_replay(name)
    return [json.loads(line) for line in data.splitlines()]


def playing_until(turn: int):
    """A bot's answers: the first legal action until `turn`, then it thinks for ever."""
    return lambda request: first_legal(request) if request["turn"] < turn else None


async def played_until(
    cluster: Cluster, turns: int
) -> tuple[str, Room, asyncio.Task, list[dict]]:
    """A match of two scripted built-in bots on the cluster's worker, its first `turns`
    turns played (then a bot thinks for ever) and in the journal: the room's code, its
    card, the worker's task and what the journal holds."""
    arena = cluster.arena
    bots = ScriptedBot(playing_until(turns)), ScriptedBot(playing_until(turns))
    arena.launcher.script("strong", bots[0])
    arena.launcher.script("tactical", bots[1])
    made = await cluster.webs[0].create(
        CreateRoomCommand(new_owner(), builtin("strong"), builtin("tactical"))
    )
    hosting = cluster.run(made.code)
    thinking = bots[turns % 2]  # P1 answers the even turns
    await arena.until(lambda: any(r["turn"] == turns for r in thinking.asked), "turns played")
    card = await cluster.board.get(made.code)
    assert card is not None and card.match_id is not None
    # What was played reached the journal as it happened (the flusher runs behind, by
    # its batch time at most: well inside the thinking bot's clock).
    arena.timer.advance(JOURNAL_BATCH_MS)
    for _ in range(100):
        journaled = [json.loads(e) for e in await arena.journal.events(card.match_id)]
        if sum(event["event"] == "applied" for event in journaled) == turns:
            break
        await asyncio.sleep(0.005)
    return made.code, card, hosting, journaled


async def test_a_lost_match_keeps_what_was_played_in_its_replay(cluster: Cluster) -> None:
    a, b = cluster.webs
    arena = cluster.arena
    code, card, hosting, journaled = await played_until(cluster, 6)
    assert journaled[0]["event"] == "setup"
    await cluster.board.beat("worker-1", WORKER_TTL_MS)  # then it dies: no more beats
    await b.lost()
    arena.clock.advance(WORKER_TTL_MS)
    assert await b.lost() == 1
    record = await arena.stores.get_match(card.match_id)
    assert record is not None and record.result is not None and record.replay is not None
    assert record.result.reason is EndReason.ABANDONED and record.result.turns == 6
    replay = await replay_events(cluster, record.replay)
    kinds = [event["event"] for event in replay]
    assert kinds[0] == "setup" and kinds[-1] == "end" and kinds.count("end") == 1
    assert [event["turn"] for event in replay if event["event"] == "applied"] == list(range(6))
    assert replay[0]["players"] == [
        {"id": "P1", "name": record.p1.name, "kind": "builtin"},
        {"id": "P2", "name": record.p2.name, "kind": "builtin"},
    ]
    assert replay[-1]["reason"] == "ABANDONED" and replay[-1]["turns"] == 6
    ended = await a.get(GetRoomCommand(code))
    assert ended.phase == "ABANDONED" and ended.replay_ready and ended.turn == 6
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)


async def test_a_match_lost_in_placement_gets_a_replay_from_its_record(cluster: Cluster) -> None:
    a, b = cluster.webs
    made = await a.create(CreateRoomCommand(new_owner(), person("Lan"), builtin("random")))
    code = made.code
    hosting = cluster.run(code)
    await cluster.arena.until_room(code, lambda s: s.placement_deadline_ms is not None)
    await cluster.board.beat("worker-1", WORKER_TTL_MS)  # dies while Lan places
    await b.lost()
    cluster.arena.clock.advance(WORKER_TTL_MS)
    assert await b.lost() == 1
    card = await cluster.board.get(code)
    assert card is not None and card.match_id is not None
    record = await cluster.arena.stores.get_match(card.match_id)
    assert record is not None and record.replay is not None
    replay = await replay_events(cluster, record.replay)
    assert [event["event"] for event in replay] == ["setup", "end"]
    assert replay[0]["matchId"] == record.id and replay[0]["seed"] == record.seed
    assert replay[0]["pieces"] == []  # play never began (as on one machine)
    assert [player["kind"] for player in replay[0]["players"]] == ["person", "builtin"]
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)


async def test_a_match_its_worker_archived_before_dying_keeps_its_result(
    cluster: Cluster,
) -> None:
    a, b = cluster.webs
    lan = new_owner()
    made = await a.create(CreateRoomCommand(lan, person("Lan"), builtin("random")))
    code = made.code
    hosting = cluster.run(code)
    await cluster.arena.until_room(code, lambda s: s.placement_deadline_ms is not None)
    card = await cluster.board.get(code)
    assert card is not None and card.match_id is not None
    await a.surrender(SurrenderCommand(code, lan))
    await cluster.arena.until_room(code, lambda s: s.replay_ready)
    # The worker dies after the archive has the match, before its card says so.
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)
    await cluster.board.put(dataclasses.replace(card, over=False))
    await cluster.board.beat("worker-1", WORKER_TTL_MS)
    await b.lost()
    cluster.arena.clock.advance(WORKER_TTL_MS)
    await b.lost()
    record = await cluster.arena.stores.get_match(card.match_id)
    assert record is not None and record.result is not None
    assert record.result.reason is EndReason.SURRENDER and record.replay is not None
    replay = await replay_events(cluster, record.replay)
    assert replay[-1]["reason"] == "SURRENDER"


async def test_a_request_nobody_answers_is_busy_but_a_look_is_the_feeds(
    cluster: Cluster,
) -> None:
    a, _ = cluster.webs
    lan = new_owner()
    made = await a.create(CreateRoomCommand(lan, person("Lan"), builtin("random")))
    code = made.code
    card = await cluster.board.get(code)
    assert card is not None
    # The card names a worker that never listens: a dead one, not yet judged.
    await cluster.board.put(dataclasses.replace(card, worker="gone"))
    with pytest.raises(Busy):
        await a.place(PlacePiecesCommand(code, lan, ActionInput("RANDOM_PLACEMENT")))
    asked = cluster.desk.asked
    look = await a.get(GetRoomCommand(code, lan))
    assert look.phase == "PLACEMENT" and look.mine == ("P1",)
    spectator = await a.get(GetRoomCommand(code, new_owner()))
    assert spectator.mine == () and spectator.version == look.version
    assert cluster.desk.asked == asked  # looks are the feed's: nothing asked of a worker


async def test_the_ladder_plays_its_pairings_as_rooms_on_the_board_and_jobs_on_workers(
    cluster: Cluster,
) -> None:
    arena = cluster.arena
    web = cluster.webs[0]
    slots = BoardSlots(web.rooms, arena.stores, arena.timer)
    assert not await slots.idle_slot(0)  # no worker alive: no capacity
    await cluster.board.beat("worker-1", 10**9, matches=3)
    assert await slots.idle_slot(1) and not await slots.idle_slot(2)  # all slots but one
    ladder = LadderRun(arena, play=slots.play, slots=slots)
    working = asyncio.create_task(cluster.work())
    try:
        async with ladder.running():
            for _ in range(200):
                if ladder.closed:
                    break
                arena.timer.advance(1_000)
                await asyncio.sleep(0.01)
    finally:
        working.cancel()
        await asyncio.gather(working, return_exceptions=True)
    assert not ladder.errors
    pairing = ladder.closed[0]
    assert len(pairing.ends) == 2 and all(end.rated for end in pairing.ends)
    records = [arena.stores.matches[end.match_id] for end in pairing.ends]
    assert all(record.ladder and record.seed == pairing.seed for record in records)
    assert {(r.p1.ref, r.p2.ref) for r in records} == {pairing.seats(0), pairing.seats(1)}
    cards = [card for card in await cluster.board.cards() if card.match_id in
             {end.match_id for end in pairing.ends}]
    assert len(cards) == 2 and all(card.ladder and card.over for card in cards)
    assert all(card.worker == "worker-1" for card in cards)


async def test_a_rooms_match_waiting_for_a_worker_keeps_the_ladder_out(cluster: Cluster) -> None:
    arena = cluster.arena
    web = cluster.webs[0]
    slots = BoardSlots(web.rooms, arena.stores, arena.timer)
    await cluster.board.beat("worker-1", 10**9, matches=4)
    assert await slots.idle_slot(0)
    await web.create(CreateRoomCommand(new_owner(), person("Lan"), builtin("random")))
    assert not await slots.idle_slot(0)  # the room's match waits for a worker: it goes first


async def test_rooms_waiting_for_a_worker_show_their_place_across_the_cluster(
    cluster: Cluster,
) -> None:
    a, b = cluster.webs
    first = await a.create(CreateRoomCommand(new_owner(), person("Lan"), builtin("random")))
    cluster.arena.clock.advance(1)
    second = await b.create(CreateRoomCommand(new_owner(), person("Minh"), builtin("random")))
    assert (first.queue_place, second.queue_place) == (1, 2)
    lobby = await a.lobby(WHOLE_LOBBY)
    assert {room.code: room.queue_place for room in lobby.live} == {
        first.code: 1, second.code: 2,
    }
    hosting = cluster.run(first.code)  # a worker takes the first: the second moves up
    await cluster.arena.hosted(first.code)
    watching = await a.watch(GetRoomCommand(second.code))
    assert (await anext(watching)).queue_place == 2
    await b.lost()  # the board's pass shows it
    moved = await anext(watching)
    assert moved.queue_place == 1 and moved.version > second.version
    assert (await a.get(GetRoomCommand(second.code))).queue_place == 1
    await watching.aclose()
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)


async def test_a_worker_restarted_under_its_name_ends_the_matches_its_last_life_left(
    cluster: Cluster,
) -> None:
    b = cluster.webs[1]
    arena = cluster.arena
    code, card, hosting, _ = await played_until(cluster, 3)
    watching = await b.watch(GetRoomCommand(code))
    await anext(watching)
    # Its new life beats at once under the same name: the pass never judges it...
    await cluster.board.beat("worker-1", WORKER_TTL_MS)
    await b.lost()
    arena.clock.advance(WORKER_TTL_MS)
    await cluster.board.beat("worker-1", WORKER_TTL_MS)
    assert await b.lost() == 0
    # ...so at its start-up it ends its own, and only its own.
    assert await b.lost.of_worker("worker-2") == 0
    assert await b.lost.of_worker("worker-1") == 1
    assert await b.lost.of_worker("worker-1") == 0
    frames = [snapshot async for snapshot in watching]
    assert frames[-1].phase == "ABANDONED" and frames[-1].replay_ready
    record = await arena.stores.get_match(card.match_id)
    assert record is not None and record.replay is not None
    replay = await replay_events(cluster, record.replay)
    assert [event["turn"] for event in replay if event["event"] == "applied"] == [0, 1, 2]
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)


async def test_two_instances_at_once_never_let_an_owner_past_the_limit(cluster: Cluster) -> None:
    a, b = cluster.webs
    lan = new_owner()
    for _ in range(MAX_LIVE_MATCHES_PER_OWNER - 1):
        await a.create(CreateRoomCommand(lan, person("Lan")))
    made = await asyncio.gather(
        a.create(CreateRoomCommand(lan, person("Lan"))),
        b.create(CreateRoomCommand(lan, person("Lan"))),
        return_exceptions=True,
    )
    assert sum(isinstance(result, TooManyMatches) for result in made) == 1, made
    mine = [card for card in await cluster.board.cards() if card.creator == lan]
    assert len(mine) == MAX_LIVE_MATCHES_PER_OWNER


async def test_two_instances_at_once_give_an_address_one_spectacle(cluster: Cluster) -> None:
    a, b = cluster.webs
    made = await asyncio.gather(
        a.create(CreateRoomCommand(new_owner(), builtin("random"), builtin("random"),
                                   address="10.0.0.7")),
        b.create(CreateRoomCommand(new_owner(), builtin("random"), builtin("random"),
                                   address="10.0.0.7")),
        return_exceptions=True,
    )
    assert sum(isinstance(result, OneSpectacle) for result in made) == 1, made


# --- B10's fair order and the limits, across the cluster (B14) ------------------------


async def one_machines_places(rooms: list[tuple[str, frozenset[str], bool]]) -> dict[str, int]:
    """The places one machine's match queue gives the same matches arriving in the same
    order (`(code, tags, spectacle)`) while no slot is free."""
    queue = MatchQueue(1)
    hold = asyncio.Event()

    async def wait(code: str, tags: frozenset[str] = frozenset(), spectacle: bool = False):
        async with queue.slot(code, tags, spectacle):
            await hold.wait()

    tasks = [asyncio.create_task(wait("the one playing"))]
    for code, tags, spectacle in rooms:
        tasks.append(asyncio.create_task(wait(code, tags, spectacle)))
        await asyncio.sleep(0)
    places = {code: queue.place(code) for code, _, _ in rooms}
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return places  # type: ignore[return-value]


async def test_one_addresss_flood_of_rooms_waits_in_the_fair_order_as_on_one_machine(
    cluster: Cluster,
) -> None:
    # The attack, bounded: one address with no key (a new owner at every call) opens
    # rooms against `random` and never plays; a spectacle comes from another; then a
    # newcomer's room. No worker is free: they all wait for one.
    a, b = cluster.webs
    clock = cluster.arena.clock
    made = []
    for n in range(4):
        web = (a, b)[n % 2]
        made.append(await web.create(CreateRoomCommand(
            new_owner(), person("Khách"), builtin("random"), address="10.0.0.66")))
        clock.advance(1)
    show = await a.create(CreateRoomCommand(
        new_owner(), builtin("strong"), builtin("tactical"), address="10.0.0.8"))
    clock.advance(1)
    newcomer = await b.create(CreateRoomCommand(
        new_owner(), person("Lan"), builtin("random"), address="10.0.0.7"))
    flood = [room.code for room in made]
    # One waiting match per address ahead of others': the newcomer is second, behind
    # the flood's first only; the spectacle waits behind every person.
    assert newcomer.queue_place == 2
    expected = {flood[0]: 1, newcomer.code: 2, flood[1]: 3, flood[2]: 4, flood[3]: 5,
                show.code: 6}
    lobby = await a.lobby(WHOLE_LOBBY)
    assert {room.code: room.queue_place for room in lobby.live} == expected
    await a.lost()  # the pass that keeps the waiting rooms' snapshots' places current
    assert (await b.get(GetRoomCommand(show.code))).queue_place == 6
    # Exactly one machine's places for the same arrivals...
    arrivals = []
    for code in [*flood, show.code, newcomer.code]:
        card = await cluster.board.get(code)
        assert card is not None
        arrivals.append((code, card.queue_tags(), card.spectacle))
    assert await one_machines_places(arrivals) == expected
    # ...and the workers take the matches in that order (the jobs' places in line).
    assert cluster.jobs.in_taking_order() == sorted(expected, key=expected.__getitem__)


async def test_a_persons_room_waiting_for_a_worker_counts_toward_its_creators_limits(
    cluster: Cluster,
) -> None:
    a, b = cluster.webs
    lan = new_owner()
    for n in range(MAX_LIVE_MATCHES_PER_OWNER):
        made = await (a, b)[n % 2].create(
            CreateRoomCommand(lan, person("Lan"), builtin("random"), address="10.0.0.5"))
        assert made.phase == "PLACEMENT" and made.queue_place == n + 1  # waits for a worker
    with pytest.raises(TooManyMatches):
        await b.create(CreateRoomCommand(lan, person("Lan"), builtin("random")))
    waiting = await a.create(CreateRoomCommand(new_owner(), person("Minh")))
    with pytest.raises(TooManyMatches):
        await b.join(JoinRoomCommand(waiting.code, lan, person("Lan")))
    # A spectacle waiting for a worker is its address's one.
    await a.create(CreateRoomCommand(
        new_owner(), builtin("random"), builtin("random"), address="10.0.0.9"))
    with pytest.raises(OneSpectacle):
        await b.create(CreateRoomCommand(
            new_owner(), builtin("random"), builtin("random"), address="10.0.0.9"))


async def test_queue_place_is_null_unless_the_room_waits_for_a_worker(cluster: Cluster) -> None:
    a, b = cluster.webs
    arena = cluster.arena
    arena.launcher.script("strong", ScriptedBot(lambda request: None))  # thinks on
    arena.launcher.script("tactical", ScriptedBot(lambda request: None))
    played = await a.create(CreateRoomCommand(new_owner(), builtin("strong"), builtin("tactical")))
    waiting = await a.create(CreateRoomCommand(new_owner(), person("Lan")))
    assert waiting.queue_place is None  # WAITING: no slot awaited yet
    hosting = cluster.run(played.code)
    await arena.until_room(played.code, lambda s: s.phase == "PLAYING")
    assert (await b.get(GetRoomCommand(played.code))).queue_place is None
    lobby = await b.lobby(WHOLE_LOBBY)
    assert [(room.code, room.queue_place) for room in lobby.live] == [(played.code, None)]
    assert [(room.code, room.queue_place) for room in lobby.waiting] == [(waiting.code, None)]
    hosting.cancel()
    await asyncio.gather(hosting, return_exceptions=True)


async def test_a_flood_of_rooms_pushes_no_persons_room_nor_ones_own_off_the_lobby(
    cluster: Cluster,
) -> None:
    a, b = cluster.webs
    clock = cluster.arena.clock
    lan = new_owner()
    mine_playing = await a.create(CreateRoomCommand(lan, person("Lan"), builtin("random")))
    minh = new_owner()
    minh_waiting = await b.create(CreateRoomCommand(minh, builtin("random")))
    person_waiting = await a.create(CreateRoomCommand(new_owner(), person("Ba")))
    flood_live, flood_waiting = [], []
    for n in range(4):  # newer rooms, each within the limits (new owners, new addresses)
        clock.advance(1)
        web = (a, b)[n % 2]
        flood_live.append((await web.create(CreateRoomCommand(
            new_owner(), builtin("random"), builtin("tactical"), address=f"10.1.0.{n}"))).code)
        flood_waiting.append((await web.create(CreateRoomCommand(
            new_owner(), builtin("random"), address=f"10.2.0.{n}"))).code)
    seen = await b.lobby(OpenRoomsCommand(limit=2))
    assert [room.code for room in seen.waiting] == [person_waiting.code, flood_waiting[-1]]
    assert mine_playing.code not in [room.code for room in seen.live]
    lans = await a.lobby(OpenRoomsCommand(limit=2, viewer=lan))
    assert [room.code for room in lans.live] == [mine_playing.code, flood_live[-1]]
    minhs = await b.lobby(OpenRoomsCommand(limit=2, viewer=minh))
    assert [room.code for room in minhs.waiting] == [minh_waiting.code, person_waiting.code]

async def test_unranking_closes_its_ladder_room_no_worker_took_yet(cluster: Cluster) -> None:
    # Issue 30: an unranked bot's ladder match, queued for the workers, still started.
    arena = cluster.arena
    web = cluster.webs[0]
    slots = BoardSlots(web.rooms, arena.stores, arena.timer)
    members = MemoryMembers()
    key = new_owner_key(random.Random(5))
    bot = arena.add_bot(owner_hash(key), public=True)
    await members.rank(Member(bot.id, owner_hash(key), 1), max_per_owner=3)
    spec = Room(
        code="ACE347", created_ms=arena.clock.now_ms(), creator="", ladder=True, seed=7,
        turn_limit=8,
        seats=(
            RoomSeat(kind=SeatKind.UPLOAD, ref=bot.id, name=bot.name, owner=bot.owner,
                     seated_by=""),
            RoomSeat(kind=SeatKind.BUILTIN, ref="random", name="random", seated_by=""),
        ),
    )
    playing = asyncio.create_task(slots.play(spec))
    await arena.until(lambda: bool(cluster.jobs.queued), "the match queued")
    (code,) = cluster.jobs.queued
    await UnrankBot(arena.stores, members, slots)(UnrankBotCommand(bot.id, key))
    card = await cluster.board.get(code)
    assert card.closed and card.match_id is None
    arena.timer.advance(LOOK_EVERY_MS)  # the driver looks at the card again
    outcome = await asyncio.wait_for(playing, 5)
    assert outcome.match_id is None  # ended unplayed: the driver's
    verdict = await cluster.run(code)  # a worker takes the job after all
    assert verdict.match_id is None and arena.stores.matches == {}
    latest = await arena.feed.latest(code)
    assert latest.room.phase == "ABANDONED"
