"""Matches in rooms (spec B1, B3, B4, B5): bot against bot to the end, a person's whole
match, placement for people and its 120 s, a person's 60 s, refused actions, every kind
of surrender, the match queue, the replay, the archive and the owner's details. Bots are
scripted in-process; time is a fake clock."""

from __future__ import annotations

import asyncio
import json
import shutil

import pytest

from noitu.adapters.arena import replay_codec
from noitu.application.arena.errors import (
    BadRequest,
    IllegalAction,
    MatchNotFound,
    NotOwner,
    NotSeated,
    NotYourTurn,
    PlacementRefused,
    ReplayNotReady,
    TimeUp,
    WrongRoomPhase,
)
from noitu.application.arena.records import MatchStatus
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.failure_details import FailureDetailsCommand
from noitu.application.arena.rooms.get_replay import GetReplayCommand
from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.inputs import ActionInput, SquareInput
from noitu.application.arena.rooms.leave_room import LeaveRoomCommand
from noitu.application.arena.rooms.place_pieces import PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayActionCommand
from noitu.application.arena.rooms.snapshot import RoomSnapshot
from noitu.application.arena.rooms.surrender import SurrenderCommand
from support.arena_rooms import Arena, ScriptedBot, builtin, new_owner, person, upload


@pytest.fixture
def arena(tmp_path) -> Arena:
    return Arena(tmp_path / "data")


def replay_events(arena: Arena, match_id: str) -> list[dict]:
    record = arena.stores.matches[match_id]
    data = replay_codec.plain(arena.files.replay_path(record.replay).read_bytes())
    return [json.loads(line) for line in data.splitlines()]


async def collect(feed) -> list[RoomSnapshot]:
    return [snapshot async for snapshot in feed]


def over(snapshot: RoomSnapshot) -> bool:
    return snapshot.replay_ready


def move_of(action) -> ActionInput:
    return ActionInput(
        "MOVE",
        action.piece_id,
        SquareInput(action.from_.row, action.from_.col),
        SquareInput(action.to.row, action.to.col),
    )


async def place(arena: Arena, code: str, owner: str, kind: str, **fields) -> RoomSnapshot:
    return await arena.place_pieces(PlacePiecesCommand(code, owner, ActionInput(kind, **fields)))


async def act(arena: Arena, code: str, owner: str, action: ActionInput) -> RoomSnapshot:
    return await arena.play_action(PlayActionCommand(code, owner, action))


async def seated_person_against(arena: Arena, bot: ScriptedBot, *, person_side: str = "P1"):
    """A room of a person (Lan) and the built-in `tactical`, played by `bot`; placed
    and ready, play begun."""
    lan = new_owner()
    arena.launcher.script("tactical", bot)
    if person_side == "P1":
        room = await arena.create(lan, person("Lan"), builtin("tactical"))
    else:
        room = await arena.create(new_owner(), builtin("tactical"))
        room = await arena.join(room.code, lan, person("Lan"))
    await arena.hosted(room.code)
    await place(arena, room.code, lan, "RANDOM_PLACEMENT")
    await place(arena, room.code, lan, "READY")
    await arena.until_room(
        room.code, lambda s: s.phase == "PLAYING" and bool(s.deadline_ms or s.thinking or s.result)
    )
    return lan, room.code


async def test_bot_against_bot_to_the_end_with_its_replay_and_archive(arena):
    lan = new_owner()
    mine = arena.add_bot(lan, name="Kéo sắc")
    p1, p2 = ScriptedBot(), ScriptedBot()
    arena.launcher.script(mine.id, p1)
    arena.launcher.script("random", p2)
    created = await arena.create(lan, upload(mine), builtin("random"))
    feed = await arena.watch_room(GetRoomCommand(created.code))
    watching = asyncio.ensure_future(collect(feed))
    end = await arena.until_room(created.code, over)
    assert end.phase == "FINISHED" and end.result.reason == "TURN_LIMIT" and end.turn == 200
    assert end.result.turns == 200 and end.pieces_left.p1 + end.pieces_left.p2 > 0
    await arena.until(lambda: p1.closed and p2.closed, "the bots closed after the archive")
    assert p1.asked[0]["sequence"] == 40 and p2.asked[0]["sequence"] == 41  # B1
    record = arena.stores.matches[end.match_id]
    assert record.status is MatchStatus.FINISHED and record.room == created.code
    assert record.started_ms is not None and record.result.reason.value == "TURN_LIMIT"
    assert (record.p1.kind.value, record.p1.ref, record.p2.ref) == ("upload", mine.id, "random")
    events = replay_events(arena, end.match_id)
    setup = events[0]
    assert setup["event"] == "setup" and setup["matchId"] == end.match_id
    assert setup["seed"] == record.seed and setup["turnLimit"] == 200
    assert setup["players"] == [
        {"id": "P1", "name": "Kéo sắc", "kind": "upload"},
        {"id": "P2", "name": "random", "kind": "builtin"},
    ]
    assert len(setup["pieces"]) == 36
    assert [e["event"] for e in events[1:-1]] == ["sent", "received", "applied"] * 200
    assert events[-1] == {"event": "end", **record.result.to_json()}
    download = await arena.get_replay(GetReplayCommand(end.match_id.lower()))
    assert download.data.decode().count("\n") == len(events)
    assert download.file_name == f"{end.match_id}.jsonl"
    seen = await asyncio.wait_for(watching, 5)
    assert seen[-1].replay_ready and seen[-1].result.reason == "TURN_LIMIT"
    # A snapshot after every change: each version once, in order, none missed.
    versions = [s.version for s in seen]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    assert {s.turn for s in seen} >= set(range(1, 201))
    assert any(s.thinking == "P2" for s in seen) and any(s.thinking == "P1" for s in seen)


async def test_a_persons_whole_match_against_a_bot(arena):
    bot = ScriptedBot()
    lan = new_owner()
    arena.launcher.script("tactical", bot)
    room = await arena.create(lan, person("Lan"), builtin("tactical"))
    code = room.code
    assert room.phase == "PLACEMENT" and room.match_id is None  # its host takes it next
    # Placement: the bot's side is placed and ready at once, hidden from the person;
    # the person sees only their own pieces.
    room = await arena.hosted(code, lan)
    assert room.phase == "PLACEMENT" and room.seats[1].ready and not room.seats[0].ready
    assert room.board.pieces == ()
    placed = await place(arena, code, lan, "PLACE", piece_id="P1-ROCK-1", to=SquareInput(7, 1))
    assert [(p.id, p.position.row, p.position.col) for p in placed.board.pieces] == [
        ("P1-ROCK-1", 7, 1)
    ]
    with pytest.raises(PlacementRefused, match="nửa"):
        await place(arena, code, lan, "PLACE", piece_id="P1-ROCK-2", to=SquareInput(1, 7))
    with pytest.raises(PlacementRefused, match="Còn 17 quân"):
        await place(arena, code, lan, "READY")
    spectator = await arena.room(code)
    assert spectator.board.pieces == ()  # nobody else sees placement
    await place(arena, code, lan, "RANDOM_PLACEMENT")
    ready = await place(arena, code, lan, "READY")
    assert {p.owner_id for p in ready.board.pieces} <= {"P1", "P2"}
    playing = await arena.until_room(code, lambda s: s.deadline_ms is not None, lan)
    assert playing.phase == "PLAYING" and playing.current_player == "P1" and playing.mine == ("P1",)
    assert len(playing.board.pieces) == 36 and playing.legal_actions
    assert playing.deadline_ms == arena.clock.now_ms() + 60_000
    # Play: the person moves; the bot answers; to the turn limit.
    while True:
        snapshot = await arena.until_room(
            code, lambda s: s.result is not None or s.current_player == "P1", lan
        )
        if snapshot.result is not None:
            break
        arena.clock.advance(500)
        legal = arena.host.find(code).live.match.legal_actions()
        done = await act(arena, code, lan, move_of(legal[-1]))
        assert done.last_action.player == "P1" and done.last_action.turn == snapshot.turn
    end = await arena.until_room(code, over)
    assert end.result.reason in ("TURN_LIMIT", "BASE_CAPTURED", "NO_PIECES")
    if end.result.reason == "TURN_LIMIT":
        left = (end.pieces_left.p1, end.pieces_left.p2)
        assert end.result.winner == (
            None if left[0] == left[1] else "P1" if left[0] > left[1] else "P2"
        )
    events = replay_events(arena, end.match_id)
    assert events[0]["players"][0] == {"id": "P1", "name": "Lan", "kind": "person"}
    applied = [e for e in events if e["event"] == "applied"]
    assert [e["turn"] for e in applied] == list(range(end.result.turns))
    # A person's turn writes `applied` alone: lines go to and come from the bot only.
    assert {e["player"] for e in events if e["event"] in ("sent", "received")} == {"P2"}
    assert events[-1]["event"] == "end"
    with pytest.raises(WrongRoomPhase):
        await act(arena, code, lan, ActionInput("PASS"))


async def test_a_room_plays_only_once_a_side_is_to_move(arena):
    starting = ScriptedBot(slow_start=True)  # a JVM, say, that takes its time
    lan = new_owner()
    arena.launcher.script("tactical", starting)
    room = await arena.create(lan, person("Lan"), builtin("tactical"))
    feed = await arena.watch_room(GetRoomCommand(room.code))
    watching = asyncio.ensure_future(collect(feed))
    await arena.hosted(room.code)
    await place(arena, room.code, lan, "RANDOM_PLACEMENT")
    await place(arena, room.code, lan, "READY")
    await arena.until(lambda: arena.launcher.launched, "the bot's launch")
    # Everyone is ready, the slot is taken, the bot is starting: not PLAYING yet.
    waiting = await arena.room(room.code, lan)
    assert waiting.phase == "PLACEMENT" and waiting.seats[0].ready and waiting.seats[1].ready
    assert (waiting.current_player, waiting.queue_place, waiting.deadline_ms) == (None, None, None)
    assert waiting.placement_deadline_ms is None
    with pytest.raises(WrongRoomPhase, match="chưa bắt đầu"):
        await act(arena, room.code, lan, ActionInput("PASS"))
    arena.clock.advance(20_000)  # however long it takes, the person's 60 s have not begun
    starting.let_start()
    playing = await arena.until_room(room.code, lambda s: s.phase == "PLAYING", lan)
    assert playing.current_player == "P1" and playing.legal_actions
    assert playing.deadline_ms == arena.clock.now_ms() + 60_000
    legal = arena.host.find(room.code).live.match.legal_actions()
    done = await act(arena, room.code, lan, move_of(legal[0]))
    assert done.last_action.player == "P1" and done.phase == "PLAYING"
    await arena.surrender(SurrenderCommand(room.code, lan))
    seen = await asyncio.wait_for(watching, 5)
    assert seen[-1].phase == "FINISHED"
    # Never PLAYING with nobody to move: every PLAYING snapshot names the side to move.
    assert all(s.current_player for s in seen if s.phase == "PLAYING")
    assert next(s.phase for s in seen if s.phase != "WAITING") == "PLACEMENT"


async def test_the_placement_time_places_the_rest_and_readies_everyone(arena):
    lan, minh = new_owner(), new_owner()
    room = await arena.create(lan, person("Lan"))
    await arena.join(room.code, minh, person("Minh"))
    await arena.hosted(room.code)
    await place(arena, room.code, lan, "PLACE", piece_id="P1-PAPER-3", to=SquareInput(8, 4))
    await place(arena, room.code, minh, "RANDOM_PLACEMENT")
    await arena.until(lambda: arena.timer.sleeping >= 1, "the placement timer")
    arena.timer.advance(119_999)
    await arena.until_room(room.code, lambda s: s.seats[0] and not s.seats[0].ready)
    assert (await arena.room(room.code)).phase == "PLACEMENT"
    arena.timer.advance(1)
    playing = await arena.until_room(room.code, lambda s: s.deadline_ms is not None)
    assert playing.seats[0].ready and playing.seats[1].ready
    assert len(playing.board.pieces) == 36
    assert ("P1-PAPER-3", 8, 4) in [
        (p.id, p.position.row, p.position.col) for p in playing.board.pieces
    ]
    events_so_far = arena.host.find(room.code).live.match.starting_placement
    assert events_so_far is not None and len(events_so_far.pieces) == 36


async def test_a_person_who_lets_60_seconds_pass_loses_on_time(arena):
    lan, code = await seated_person_against(arena, ScriptedBot())
    snapshot = await arena.room(code, lan)
    assert snapshot.current_player == "P1"
    await arena.until(lambda: arena.timer.sleeping >= 1, "the turn timer")
    arena.timer.advance(59_999)
    assert (await arena.room(code)).result is None
    arena.timer.advance(1)
    end = await arena.until_room(code, over)
    assert (end.result.winner, end.result.reason, end.result.turns) == ("P2", "TIME_UP", 0)
    assert replay_events(arena, end.match_id)[-1]["reason"] == "TIME_UP"


async def test_an_action_after_the_deadline_is_time_up_even_before_the_timer_wakes(arena):
    lan, code = await seated_person_against(arena, ScriptedBot())
    arena.clock.advance(60_000)  # the clock only: the timer has not woken anyone yet
    legal = arena.host.find(code).live.match.legal_actions()
    with pytest.raises(TimeUp):
        await act(arena, code, lan, move_of(legal[0]))
    assert arena.live(code).result.reason.value == "TIME_UP"


async def test_a_refused_action_says_why_and_changes_nothing(arena):
    thinking = ScriptedBot(lambda request: None)  # P1 thinks until released
    lan, code = await seated_person_against(arena, thinking, person_side="P2")
    before = await arena.room(code, lan)
    assert before.current_player == "P1" and before.thinking == "P1"
    piece = next(p for p in before.board.pieces if p.owner_id == "P2")
    at = piece.position
    with pytest.raises(NotYourTurn):
        await act(arena, code, lan, ActionInput("PASS"))
    thinking.release()
    mine = await arena.until_room(code, lambda s: s.current_player == "P2", lan)
    piece = next(p for p in mine.board.pieces if p.owner_id == "P2")
    at = piece.position
    far = SquareInput(at.row, (at.col + 3) % 9)
    with pytest.raises(IllegalAction, match="một ô"):
        await act(arena, code, lan, ActionInput("MOVE", piece.id, SquareInput(at.row, at.col), far))
    with pytest.raises(IllegalAction, match="PASS"):
        await act(arena, code, lan, ActionInput("PASS"))
    with pytest.raises(IllegalAction, match="không phải quân"):
        enemy = next(p for p in mine.board.pieces if p.owner_id == "P1")
        pos = enemy.position
        await act(
            arena,
            code,
            lan,
            ActionInput(
                "MOVE", enemy.id, SquareInput(pos.row, pos.col), SquareInput(pos.row - 1, pos.col)
            ),
        )
    with pytest.raises(BadRequest):
        await act(arena, code, lan, ActionInput("MOVE", piece.id))
    with pytest.raises(NotSeated):
        await act(arena, code, new_owner(), ActionInput("PASS"))
    after = await arena.room(code, lan)
    assert after.version == mine.version and after.board == mine.board and after.turn == mine.turn
    assert after.result is None


async def test_a_person_surrenders(arena):
    lan, code = await seated_person_against(arena, ScriptedBot())
    with pytest.raises(NotSeated):
        await arena.surrender(SurrenderCommand(code, new_owner()))
    await arena.surrender(SurrenderCommand(code, lan))
    end = await arena.until_room(code, over)
    assert (end.result.winner, end.result.reason) == ("P2", "SURRENDER")
    with pytest.raises(WrongRoomPhase):
        await arena.surrender(SurrenderCommand(code, lan))


async def test_a_bots_owner_surrenders_while_it_thinks_and_its_late_reply_is_dropped(arena):
    lan, minh = new_owner(), new_owner()
    public = arena.add_bot(lan, public=True)
    thinking = ScriptedBot(lambda request: None)
    arena.launcher.script(public.id, thinking)
    # Minh seats Lan's public bot against the built-in one: only Lan answers for it.
    room = await arena.create(minh, upload(public), builtin("random"))
    await arena.until_room(room.code, lambda s: s.thinking == "P1")
    with pytest.raises(NotOwner):
        await arena.surrender(SurrenderCommand(room.code, minh))
    await arena.surrender(SurrenderCommand(room.code, lan))
    end = await arena.until_room(room.code, over)
    assert (end.result.winner, end.result.reason, end.result.turns) == ("P2", "SURRENDER", 0)
    await arena.until(lambda: thinking.closed, "the bot closed")
    thinking.release()  # the reply comes too late: nothing is judged or written
    await asyncio.sleep(0.01)
    events = replay_events(arena, end.match_id)
    assert [e["event"] for e in events] == ["setup", "sent", "end"]
    assert (await arena.room(room.code)).turn == 0


async def test_leaving_while_seated_is_a_surrender(arena):
    lan, code = await seated_person_against(arena, ScriptedBot(), person_side="P2")
    left = await arena.leave_room(LeaveRoomCommand(code, lan))
    assert (left.result.winner, left.result.reason) == ("P1", "SURRENDER")
    # Leaving in placement too; the match is still recorded with its replay.
    minh = new_owner()
    room = await arena.create(minh, person("Minh"), builtin("strong"))
    await arena.hosted(room.code)
    await arena.leave_room(LeaveRoomCommand(room.code, minh))
    end = await arena.until_room(room.code, over)
    assert (end.result.winner, end.result.reason) == ("P2", "SURRENDER")
    assert [e["event"] for e in replay_events(arena, end.match_id)] == ["setup", "end"]


async def test_a_room_waiting_for_the_queue_shows_its_place(tmp_path):
    arena = Arena(tmp_path / "data", slots=1)
    owners = [new_owner() for _ in range(3)]
    bots = [arena.add_bot(owner) for owner in owners]
    for bot in bots:
        arena.launcher.script(bot.id, ScriptedBot(lambda request: None))  # they think on
    codes = []
    for owner, bot in zip(owners, bots):
        codes.append((await arena.create(owner, upload(bot), builtin("random"))).code)
    await arena.until_room(codes[0], lambda s: s.thinking == "P1")
    # The others wait for the slot in PLACEMENT, their match not made yet (its host
    # places the bots once it takes it, B9), each showing its place.
    second = await arena.room(codes[1])
    assert second.phase == "PLACEMENT" and second.queue_place == 1 and second.match_id is None
    assert second.current_player is None and second.board.pieces == ()
    assert (await arena.room(codes[2])).queue_place == 2
    lobby = {r.code: r.queue_place for r in (await arena.open_rooms()).live}
    assert lobby == {codes[0]: None, codes[1]: 1, codes[2]: 2}  # null: no slot awaited
    # Nothing to surrender before the match is made; leaving withdraws it (no match),
    # and the next one moves up (the board's pass shows it).
    with pytest.raises(WrongRoomPhase, match="rời phòng"):
        await arena.surrender(SurrenderCommand(codes[1], owners[1]))
    left = await arena.leave_room(LeaveRoomCommand(codes[1], owners[1]))
    assert left.phase == "ABANDONED" and left.match_id is None
    await arena.board_pass()
    assert (await arena.room(codes[2])).queue_place == 1
    # The playing match ends: the slot goes to the next one.
    await arena.surrender(SurrenderCommand(codes[0], owners[0]))
    playing = await arena.until_room(
        codes[2], lambda s: s.phase == "PLAYING" and s.thinking == "P1"
    )
    assert playing.queue_place is None  # null while it waits for no slot (never 0)
    await arena.surrender(SurrenderCommand(codes[2], owners[2]))
    await arena.until_room(codes[2], over)
    await arena.until(lambda: (arena.queue.playing, arena.queue.waiting) == (0, 0), "the queue")
    made = [(await arena.room(c)).match_id for c in codes]
    assert made[1] is None and len(arena.stores.matches) == 2
    assert all(arena.stores.matches[m].started_ms is not None for m in (made[0], made[2]))


async def test_a_failed_bot_shows_its_code_and_detail_to_all_and_its_stderr_to_its_owner(arena):
    lan = new_owner()
    mine = arena.add_bot(lan)
    arena.launcher.script(
        mine.id, ScriptedBot(lambda r: b'{"type":"ACTION","sequence":1,"action":{"type":"PASS"}}')
    )
    room = await arena.create(lan, upload(mine), builtin("random"))
    end = await arena.until_room(room.code, over)
    assert (end.result.winner, end.result.reason) == ("P2", "BOT_FAILED")
    assert (end.result.failure.player, end.result.failure.code) == ("P1", "STALE_SEQUENCE")
    details = await arena.failure_details(FailureDetailsCommand(end.match_id, lan))
    (bot,) = details.bots
    assert end.result.failure.detail == bot.detail  # public like the code (B3)
    assert "stderr" not in json.dumps(end.result.failure.__struct_fields__)
    assert (bot.player, bot.bot_id, bot.failure_code) == ("P1", mine.id, "STALE_SEQUENCE")
    assert bot.detail and bot.stderr == "debug: thinking\n"
    with pytest.raises(NotOwner):
        await arena.failure_details(FailureDetailsCommand(end.match_id, new_owner()))
    with pytest.raises(MatchNotFound):
        await arena.failure_details(FailureDetailsCommand("00000000", lan))
    # Once the room is forgotten the archive has them both (so has it after a restart).
    arena.host.forget(room.code)
    (bot,) = (await arena.failure_details(FailureDetailsCommand(end.match_id, lan))).bots
    assert bot.detail and bot.stderr == "debug: thinking\n"


async def test_the_owner_reads_the_stderr_as_soon_as_the_result_shows(arena):
    lan = new_owner()
    mine = arena.add_bot(lan)
    crashing = ScriptedBot(lambda r: b"Traceback ...", stderr=b"ValueError: oops\n", slow_exit=True)
    arena.launcher.script(mine.id, crashing)
    room = await arena.create(lan, upload(mine), builtin("random"))
    feed = await arena.watch_room(GetRoomCommand(room.code))
    watching = asyncio.ensure_future(collect(feed))
    end = await arena.until_room(room.code, lambda s: s.phase == "FINISHED")
    # Whoever sees the result can read the tails: in the room at once...
    (bot,) = (await arena.failure_details(FailureDetailsCommand(end.match_id, lan))).bots
    assert (bot.failure_code, bot.stderr) == ("BAD_JSON", "ValueError: oops\n")
    # ...and in the archive, written with the result while the bot still takes its
    # time to exit; the feed (what other instances show) tells the result only then.
    await arena.until_room(room.code, over)
    assert not crashing.closed
    assert arena.stores.stderr[end.match_id] == (b"ValueError: oops\n", b"debug: thinking\n")
    arena.host.forget(room.code)  # as another instance, or after a restart
    (bot,) = (await arena.failure_details(FailureDetailsCommand(end.match_id, lan))).bots
    assert bot.stderr == "ValueError: oops\n"
    crashing.let_exit()
    seen = await asyncio.wait_for(watching, 5)
    assert all(s.replay_ready for s in seen if s.result is not None)


async def test_shutdown_waits_for_the_bots_of_a_match_that_just_ended(arena):
    lan = new_owner()
    mine = arena.add_bot(lan)
    slow = ScriptedBot(lambda request: None, slow_exit=True)  # thinks on, exits slowly
    arena.launcher.script(mine.id, slow)
    room = await arena.create(lan, upload(mine), builtin("random"))
    await arena.until_room(room.code, lambda s: s.thinking == "P1")
    await arena.surrender(SurrenderCommand(room.code, lan))
    await arena.until_room(room.code, over)  # archived; the bot takes its time to exit
    closing = asyncio.ensure_future(CloseRooms(arena.host)(timeout_s=10))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not closing.done() and not slow.closed
    slow.let_exit()
    assert await asyncio.wait_for(closing, 10) == 0  # nothing left to abandon
    assert slow.closed and arena.host.find(room.code).feed_closed


async def test_a_replay_is_there_only_once_the_match_is_finished(arena):
    thinking = ScriptedBot(lambda request: None)
    lan, code = await seated_person_against(arena, thinking, person_side="P2")
    match_id = (await arena.room(code)).match_id
    with pytest.raises(ReplayNotReady):
        await arena.get_replay(GetReplayCommand(match_id))
    with pytest.raises(MatchNotFound):
        await arena.get_replay(GetReplayCommand("../../etc"))
    await arena.surrender(SurrenderCommand(code, lan))
    await arena.until_room(code, over)
    download = await arena.get_replay(GetReplayCommand(match_id))
    assert download.data.endswith(b"\n") and download.name == f"replays/{match_id}.jsonl.zst"
    assert not download.zstd
    # Spec B14: to a client that takes zstd, the replay as stored.
    stored = await arena.get_replay(GetReplayCommand(match_id, zstd=True))
    assert stored.zstd and replay_codec.is_compressed(stored.data)
    assert replay_codec.plain(stored.data) == download.data


async def test_a_missing_artefact_is_rebuilt_before_play(tmp_path):
    from support.arena_store import ScriptedBuilder

    builder = ScriptedBuilder()
    arena = Arena(tmp_path / "data", builder=builder)
    lan = new_owner()
    mine = arena.add_bot(lan, name="Mất tệp")
    shutil.rmtree(arena.files.artefact_path(mine.artefact_dir))  # e.g. a restored backup
    created = await arena.create(lan, upload(mine), builtin("random"))
    end = await arena.until_room(created.code, over)
    assert end.result.reason == "TURN_LIMIT" and end.result.failure is None
    assert [language for _, language in builder.built] == [mine.language]
    assert (arena.files.artefact_path(mine.artefact_dir) / "bot.py").is_file()  # kept


async def test_without_a_sandbox_a_missing_artefact_fails_to_start(tmp_path):
    arena = Arena(tmp_path / "data")  # no builder
    lan = new_owner()
    mine = arena.add_bot(lan)
    shutil.rmtree(arena.files.artefact_path(mine.artefact_dir))
    created = await arena.create(lan, upload(mine), builtin("random"))
    end = await arena.until_room(created.code, over)
    assert end.result.winner == "P2" and end.result.failure.code == "START_FAILED"
