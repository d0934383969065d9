"""The arena's runtime: the sandbox and its probe, the runner, builds and uploads, the
job queue (NOITU_ARENA_QUEUE), the rooms and their matches, and the ladder's driver.
"""

from __future__ import annotations

from typing import ClassVar

from dependency_injector import containers, providers

from noitu.adapters.arena.bubblewrap import BubblewrapProbe
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.rooms import InMemoryRoomRegistry, LoopTimer
from noitu.application.arena.bot_details import BotDetails
from noitu.application.arena.bot_source import BotSource
from noitu.application.arena.check_bot import CheckBot
from noitu.application.arena.delete_bot import DeleteBot
from noitu.application.arena.ladder.play_ladder import PlayLadder
from noitu.application.arena.ladder.unrank_bot import UnrankBot
from noitu.application.arena.match_queue import MatchQueue
from noitu.application.arena.my_bots import MyBots
from noitu.application.arena.patience import Patience
from noitu.application.arena.public_bots import PublicBots
from noitu.application.arena.publish_bot import PublishBot
from noitu.application.arena.recover_at_start import RecoverAtStart
from noitu.application.arena.rooms.abandon_lost_matches import AbandonLostMatches
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.create_room import CreateRoom
from noitu.application.arena.rooms.failure_details import FailureDetails
from noitu.application.arena.rooms.get_replay import GetReplay
from noitu.application.arena.rooms.get_room import GetRoom
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.join_room import JoinRoom
from noitu.application.arena.rooms.leave_room import LeaveRoom, LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import OpenRooms
from noitu.application.arena.rooms.owner_keys import OwnerKeys
from noitu.application.arena.rooms.place_pieces import PlacePieces, PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayAction, PlayActionCommand
from noitu.application.arena.rooms.play_match import DeskUseCase, PlayMatch
from noitu.application.arena.rooms.seating import Seating
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.application.arena.rooms.surrender import Surrender, SurrenderCommand
from noitu.application.arena.run_build import RunBuild
from noitu.application.arena.run_match import RunMatch
from noitu.application.arena.sweep_failed_builds import SweepFailedBuilds
from noitu.application.arena.upload_bot import UploadBot
from noitu.entrypoints.containers.arena_queue import LocalQueue, SaqQueue
from noitu.entrypoints.containers.resources import job_queue_connection, open_runners
from noitu.entrypoints.containers.runners import ChosenRunners
from noitu.entrypoints.containers.support import (
    ladder_pass_failed,
    match_slots,
    orphan_min_age_ms,
    queue_kind_of,
    recovery_runner,
    redis_replay_journal,
    redis_room_board,
    redis_room_desk,
    runner_choice,
    saq_jobs,
    saq_queues,
    saq_runner,
    tell_waiting_write,
    worker_slots,
)


class ArenaRuntime(containers.DeclarativeContainer):
    core = providers.DependenciesContainer()
    arena_storage = providers.DependenciesContainer()
    store = providers.DependenciesContainer()
    settings = core.settings
    role = core.role
    clock = core.clock
    id_source = core.id_source
    redis = core.redis
    background = core.background
    arena_files = arena_storage.arena_files
    build_queue = arena_storage.build_queue
    arena_repository = arena_storage.arena_repository
    admission = arena_storage.admission
    ladder_members = arena_storage.ladder_members
    ladder_pairings = arena_storage.ladder_pairings
    arena_engine = arena_storage.arena_engine
    arena_part = arena_storage.arena_part
    schedule_pairing = arena_storage.schedule_pairing
    record_ladder_result = arena_storage.record_ladder_result

    # --- the bot arena ----------------------------------------------------------------
    # What runs bots, chosen once by the sandbox's Resource when the probe has run
    # (`containers/runners.py`); read through `arena_runners`, which fails before then.
    arena_probe = providers.Singleton(BubblewrapProbe)
    chosen_runners = providers.Singleton(ChosenRunners)
    arena_sandbox_resource = providers.Resource(
        open_runners,
        arena_probe,
        providers.Callable(runner_choice, settings, role),
        chosen_runners,
    )
    arena_runners = chosen_runners.provided.runners
    # What the probe found (None when it was not run).
    arena_sandbox_status = arena_runners.provided.status
    arena_launcher = arena_runners.provided.launcher
    arena_builder = arena_runners.provided.builder
    builtin_bots = providers.Singleton(BuiltinBots, arena_builder, settings.provided.cache_dir)
    run_match = providers.Singleton(RunMatch, arena_launcher)
    check_bot = providers.Singleton(CheckBot, arena_launcher)
    # Uploads are built only in the sandbox, never directly: without one, the upload
    # builder is None and uploads are refused.
    upload_builder = arena_runners.provided.uploads

    # --- the arena's jobs (B9): builds in this process, or on workers through SAQ ------
    job_queue_kind = providers.Callable(queue_kind_of, settings)
    job_queue = providers.Singleton(saq_queues, settings.provided.redis_url)
    cluster_jobs = providers.Singleton(saq_jobs, job_queue, settings.provided.arena_job_take_s)
    # `noitu arena worker`'s side: the builds run in its own sandbox.
    run_build = providers.Factory(RunBuild, arena_files, upload_builder)

    # --- the arena's uploaded bots (B5) ---------------------------------------------
    my_bots = providers.Singleton(MyBots, arena_repository)
    public_bots = providers.Singleton(PublicBots, arena_repository)
    bot_details = providers.Singleton(BotDetails, arena_repository)
    bot_source = providers.Singleton(BotSource, arena_repository, arena_files)
    publish_bot = providers.Singleton(PublishBot, arena_repository, ladder_members)
    delete_bot = providers.Singleton(
        DeleteBot, arena_repository, arena_repository, arena_files, ladder_members
    )
    sweep_failed_builds = providers.Singleton(
        SweepFailedBuilds, arena_repository, arena_files, clock
    )
    # At start-up: what a previous run left (the stale cgroups are the sandbox's).
    recover_at_start = providers.Singleton(
        RecoverAtStart,
        matches=arena_repository,
        pairings=ladder_pairings,
        bots=arena_repository,
        files=arena_files,
        failed_builds=sweep_failed_builds,
        cgroups=arena_runners.provided.cgroups,
        clock=clock,
        runner=providers.Callable(recovery_runner, arena_engine, settings.provided.instance),
        orphan_min_age_ms=providers.Callable(orphan_min_age_ms, arena_engine),
    )

    # --- the arena's rooms (B4, B6) ----------------------------------------------------
    # Live rooms are this process's; their snapshots go through Redis with
    # NOITU_STORE=redis, so a viewer may watch from another instance.
    room_registry = providers.Singleton(InMemoryRoomRegistry)
    room_feed = store.room_feed  # NOITU_STORE's part
    arena_timer = providers.Singleton(LoopTimer, clock)
    # Writes tried again while Redis or the database is away (B9 "Faults").
    arena_patience = providers.Singleton(Patience, clock, arena_timer, tell_waiting_write)
    match_queue = providers.Singleton(MatchQueue, providers.Callable(match_slots, settings, role))
    # The host listens to the queue once: one per process.
    room_host = providers.Singleton(
        RoomHost, room_registry, room_feed, match_queue, clock, background, arena_patience
    )
    # Several machines: a match's replay events as they happen, for whoever abandons
    # the match when its worker dies (B9).
    replay_journal = providers.Singleton(redis_replay_journal, redis)
    room_run_match = providers.Singleton(RunMatch, arena_launcher, timer=arena_timer)
    seating = providers.Singleton(Seating, arena_repository, builtin_bots)
    # Several machines: the rooms' board and the desk answering a person's requests.
    room_board = providers.Singleton(redis_room_board, redis)
    room_desk = providers.Singleton(redis_room_desk, redis)
    board_rooms = providers.Singleton(BoardRooms, room_board, room_host, cluster_jobs)
    # The room use cases on this process's rooms (a worker runs them for its matches).
    room_leave = providers.Singleton(LeaveRoom, room_host)
    room_place = providers.Singleton(PlacePieces, room_host)
    room_act = providers.Singleton(PlayAction, room_host)
    room_surrender = providers.Singleton(Surrender, room_host)
    room_get = providers.Singleton(GetRoom, room_host)
    room_lobby = providers.Singleton(OpenRooms, room_host)

    # NOITU_ARENA_QUEUE picks the whole queue part (one machine, or several through
    # SAQ); each name below reads the picked part's provider. The inputs built from the
    # part's own names (the match starter of one machine, the rooms that start matches)
    # are read from this container when called, through `__self__`.
    __self__ = providers.Self()
    _queue_inputs: ClassVar[dict[str, providers.Provider]] = {
        "arena_files": arena_files,
        "build_queue": build_queue,
        "arena_repository": arena_repository,
        "arena_timer": arena_timer,
        "upload_builder": upload_builder,
        "job_queue": job_queue,
        "cluster_jobs": cluster_jobs,
        "replay_journal": replay_journal,
        "room_host": room_host,
        "board_rooms": board_rooms,
        "room_desk": room_desk,
        "start_match": __self__.provided.start_match.call(),
        "play_match_here": __self__.provided.play_match_here.call(),
        "room_create": __self__.provided.room_create.call(),
        "room_join": __self__.provided.room_join.call(),
        "room_lobby": room_lobby,
        "room_leave": room_leave,
        "room_place": room_place,
        "room_act": room_act,
        "room_surrender": room_surrender,
        "room_get": room_get,
    }
    queue = providers.Selector(
        job_queue_kind,
        local=providers.Container(LocalQueue, **_queue_inputs),
        saq=providers.Container(SaqQueue, **_queue_inputs),
    )
    del _queue_inputs
    # The SAQ queues' connections (nothing to open on one machine).
    job_queue_resource = providers.Resource(
        job_queue_connection, queue.provided.job_queue_to_open.call()
    )
    # What builds uploads: this process's sandbox, or the workers.
    upload_builds = queue.provided.upload_builds.call()
    # What starts a full room's match: here, or handed to the workers' queue.
    match_starter = queue.provided.match_starter.call()
    # The room use cases a request reaches: on one machine this process's rooms'; on
    # several, run on a copy of the board or forwarded to the match's worker.
    create_room = queue.provided.create_room.call()
    join_room = queue.provided.join_room.call()
    open_rooms = queue.provided.open_rooms.call()
    leave_room = queue.provided.leave_room.call()
    place_pieces = queue.provided.place_pieces.call()
    play_action = queue.provided.play_action.call()
    surrender = queue.provided.surrender.call()
    get_room = queue.provided.get_room.call()
    watch_room = queue.provided.watch_room.call()
    # The slots the ladder fills: this process's match queue, or the workers' as the
    # board shows them; and where the ladder hands its matches.
    ladder_slots = queue.provided.ladder_slots.call()
    ladder_match_jobs = queue.provided.ladder_match_jobs.call()

    start_match = providers.Singleton(
        StartMatch,
        room_host,
        arena_repository,
        arena_files,
        arena_repository,
        builtin_bots,
        room_run_match,
        arena_timer,
        id_source,
        runner=settings.provided.instance,
        builder=upload_builder,
        build_queue=build_queue,
        patience=arena_patience,
        journal=queue.provided.journal.call(),
    )
    room_create = providers.Singleton(
        CreateRoom, room_host, seating, match_starter, id_source, admission
    )
    room_join = providers.Singleton(JoinRoom, room_host, seating, match_starter)
    owner_keys = providers.Singleton(OwnerKeys, id_source, admission)
    failure_details = providers.Singleton(FailureDetails, room_host, arena_repository)
    get_replay = providers.Singleton(GetReplay, arena_repository, arena_files)
    close_rooms = providers.Singleton(CloseRooms, room_host)
    # A match job (issue 31): on one machine the ladder's, played in this process; on
    # a worker every match, its room taken from the board and its requests answered
    # with the same use cases as one machine.
    play_match_here = providers.Singleton(PlayMatch, room_host, start_match)
    worker_play_match = providers.Singleton(
        PlayMatch,
        room_host,
        start_match,
        room_board,
        room_desk,
        providers.Dict(
            place=providers.Factory(DeskUseCase, PlacePiecesCommand, room_place),
            act=providers.Factory(DeskUseCase, PlayActionCommand, room_act),
            surrender=providers.Factory(DeskUseCase, SurrenderCommand, room_surrender),
            leave=providers.Factory(DeskUseCase, LeaveRoomCommand, room_leave),
        ),
        settings.provided.instance,
    )
    abandon_lost_matches = providers.Singleton(
        AbandonLostMatches, board_rooms, arena_repository, arena_files, replay_journal
    )
    job_runner = providers.Factory(
        saq_runner,
        job_queue,
        settings.provided.instance,
        run_build,
        worker_play_match,
        matches=providers.Callable(match_slots, settings, role),
        builds=providers.Callable(worker_slots),
    )

    # --- the arena's uploaded bots (B5), continued -----------------------------------
    # A Factory: what builds is picked per upload, after the start-up probe.
    upload_bot = providers.Factory(
        UploadBot,
        catalogue=arena_repository,
        files=arena_files,
        builds=upload_builds,
        clock=clock,
        rng=id_source,
        admission=admission,
    )
    # Unranking ends the bot's ladder matches that wait for a slot or a worker.
    unrank_bot = providers.Singleton(UnrankBot, arena_repository, ladder_members, ladder_slots)
    # The ladder's matches on the slots the rooms leave idle (NOITU_ARENA_LADDER).
    play_ladder = providers.Singleton(
        PlayLadder,
        schedule_pairing,
        record_ladder_result,
        ladder_match_jobs,
        ladder_slots,
        arena_repository,
        ladder_members,
        ladder_pairings,
        builtin_bots,
        clock,
        background,
        arena_timer,
        id_source,
        on_error=providers.Object(ladder_pass_failed),
    )
