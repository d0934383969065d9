"""The arena's runtime: the sandbox and its probe, the runner, builds and uploads, the
job queue (NOITU_ARENA_QUEUE), the rooms and their matches, and the ladder's driver.
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.arena.bubblewrap import BubblewrapLauncher, BubblewrapProbe
from noitu.adapters.arena.build import DirectBuilder, SandboxBuilder
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.direct import DirectLauncher
from noitu.adapters.arena.local_jobs import local_builds
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
from noitu.application.arena.rooms.board_rooms import BoardRooms, OnTheBoard
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.create_room import CreateRoom
from noitu.application.arena.rooms.failure_details import FailureDetails
from noitu.application.arena.rooms.forward_room_call import (
    ACT,
    GET,
    LEAVE,
    PLACE,
    SURRENDER,
    ForwardRoomCall,
)
from noitu.application.arena.rooms.get_replay import GetReplay
from noitu.application.arena.rooms.get_room import GetRoom, GetRoomCommand
from noitu.application.arena.rooms.hand_over_match import HandOverMatch
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.join_room import JoinRoom
from noitu.application.arena.rooms.ladder_slots import BoardSlots, QueueSlots
from noitu.application.arena.rooms.leave_room import LeaveRoom, LeaveRoomCommand
from noitu.application.arena.rooms.open_rooms import OpenRooms
from noitu.application.arena.rooms.owner_keys import OwnerKeys
from noitu.application.arena.rooms.place_pieces import PlacePieces, PlacePiecesCommand
from noitu.application.arena.rooms.play_action import PlayAction, PlayActionCommand
from noitu.application.arena.rooms.play_match import DeskUseCase, PlayMatch
from noitu.application.arena.rooms.seating import Seating
from noitu.application.arena.rooms.start_match import StartMatch
from noitu.application.arena.rooms.surrender import Surrender, SurrenderCommand
from noitu.application.arena.rooms.watch_room import WatchRoom
from noitu.application.arena.run_build import RunBuild
from noitu.application.arena.run_match import RunMatch
from noitu.application.arena.sweep_failed_builds import SweepFailedBuilds
from noitu.application.arena.upload_bot import UploadBot
from noitu.entrypoints.containers.resources import (
    job_queue_connection,
    probed_sandbox,
)
from noitu.entrypoints.containers.support import (
    arena_cgroups,
    ladder_pass_failed,
    match_slots,
    orphan_min_age_ms,
    queue_kind_of,
    recovery_runner,
    redis_replay_journal,
    redis_room_board,
    redis_room_desk,
    runner_kind,
    sandbox_wanted,
    saq_jobs,
    saq_queues,
    saq_runner,
    tell_waiting_write,
    uploads_kind,
    worker_slots,
)


class ArenaRuntime(containers.DeclarativeContainer):
    core = providers.DependenciesContainer()
    arena_storage = providers.DependenciesContainer()
    store = providers.DependenciesContainer()
    settings = core.settings
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
    # The probe runs once, as a Resource, unless the settings ask for the direct runner.
    arena_probe = providers.Singleton(BubblewrapProbe)
    arena_sandbox_resource = providers.Resource(
        probed_sandbox,
        arena_probe,
        providers.Callable(sandbox_wanted, settings),
    )
    # What the probe found (None before it ran, or when it was not wanted).
    arena_sandbox_status = arena_probe.provided.status
    # "sandbox" (bubblewrap + cgroups) or "direct" (trusted code only: the built-in bots
    # when no sandbox can run here, and the CLI's explicit --no-sandbox).
    arena_runner = providers.Callable(
        runner_kind,
        settings.provided.arena_runner,
        arena_sandbox_status,
        providers.Callable(sandbox_wanted, settings),
    )
    arena_sandbox = arena_probe.provided.make_sandbox.call()
    arena_launcher = providers.Selector(
        arena_runner,
        sandbox=providers.Singleton(BubblewrapLauncher, arena_sandbox),
        direct=providers.Singleton(DirectLauncher, cgroups=providers.Singleton(arena_cgroups)),
    )
    arena_sandbox_builder = providers.Singleton(SandboxBuilder, arena_sandbox)
    arena_builder = providers.Selector(
        arena_runner,
        sandbox=arena_sandbox_builder,
        direct=providers.Singleton(DirectBuilder),
    )
    builtin_bots = providers.Singleton(BuiltinBots, arena_builder, settings.provided.cache_dir)
    run_match = providers.Singleton(RunMatch, arena_launcher)
    check_bot = providers.Singleton(CheckBot, arena_launcher)

    # Uploads are built only in the sandbox, never directly: without one, the upload
    # builder is None and uploads are refused.
    upload_builder = providers.Selector(
        providers.Callable(uploads_kind, arena_sandbox_status),
        sandbox=arena_sandbox_builder,
        none=providers.Object(None),
    )


    # --- the arena's jobs (B9): builds in this process, or on workers through SAQ ------
    job_queue_kind = providers.Callable(queue_kind_of, settings)
    job_queue = providers.Singleton(saq_queues, settings.provided.redis_url)
    job_queue_resource = providers.Resource(
        job_queue_connection,
        providers.Selector(job_queue_kind, local=providers.Object(None), saq=job_queue),
    )
    # What builds uploads: this process's sandbox (a Factory, as the builder is known
    # after the start-up probe; None without one), or the workers.
    cluster_jobs = providers.Singleton(saq_jobs, job_queue, settings.provided.arena_job_take_s)
    upload_builds = providers.Selector(
        job_queue_kind,
        local=providers.Factory(local_builds, upload_builder, arena_files, build_queue),
        saq=cluster_jobs,
    )
    # `noitu arena worker`'s side: the builds run in its own sandbox.
    run_build = providers.Factory(RunBuild, arena_files, arena_sandbox_builder)

    # --- the arena's uploaded bots (B5) ---------------------------------------------
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
        cgroups=providers.Selector(
            arena_runner, sandbox=arena_sandbox.provided.cgroups, direct=providers.Object(None)
        ),
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
    match_queue = providers.Singleton(MatchQueue, providers.Callable(match_slots, settings))
    # The host listens to the queue once: one per process.
    room_host = providers.Singleton(
        RoomHost, room_registry, room_feed, match_queue, clock, background, arena_patience
    )
    # Several machines: a match's replay events as they happen, for whoever abandons
    # the match when its worker dies (B9).
    replay_journal = providers.Singleton(redis_replay_journal, redis)
    room_run_match = providers.Singleton(RunMatch, arena_launcher, timer=arena_timer)
    seating = providers.Singleton(Seating, arena_repository, builtin_bots)
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
        journal=providers.Selector(
            job_queue_kind, local=providers.Object(None), saq=replay_journal
        ),
    )
    owner_keys = providers.Singleton(OwnerKeys, id_source, admission)
    failure_details = providers.Singleton(FailureDetails, room_host, arena_repository)
    get_replay = providers.Singleton(GetReplay, arena_repository, arena_files)
    close_rooms = providers.Singleton(CloseRooms, room_host)

    # One machine: the room use cases on this process's rooms. Several (B9,
    # NOITU_ARENA_QUEUE=saq): a web instance runs them on a copy of the board and hands
    # full rooms' matches to the queue, and forwards a person's requests to the worker
    # running the match; the worker runs them on its own rooms (`worker_play_match`).
    room_board = providers.Singleton(redis_room_board, redis)
    room_desk = providers.Singleton(redis_room_desk, redis)
    board_rooms = providers.Singleton(BoardRooms, room_board, room_host, cluster_jobs)
    match_starter = providers.Selector(
        job_queue_kind,
        local=start_match,
        saq=providers.Singleton(HandOverMatch, room_host),
    )
    room_create = providers.Singleton(
        CreateRoom, room_host, seating, match_starter, id_source, admission
    )
    room_join = providers.Singleton(JoinRoom, room_host, seating, match_starter)
    room_leave = providers.Singleton(LeaveRoom, room_host)
    room_place = providers.Singleton(PlacePieces, room_host)
    room_act = providers.Singleton(PlayAction, room_host)
    room_surrender = providers.Singleton(Surrender, room_host)
    room_get = providers.Singleton(GetRoom, room_host)
    room_lobby = providers.Singleton(OpenRooms, room_host)

    create_room = providers.Selector(
        job_queue_kind,
        local=room_create,
        saq=providers.Singleton(OnTheBoard, room_create, board_rooms, counted=True),
    )
    join_room = providers.Selector(
        job_queue_kind,
        local=room_join,
        saq=providers.Singleton(OnTheBoard, room_join, board_rooms, counted=True),
    )
    open_rooms = providers.Selector(
        job_queue_kind, local=room_lobby, saq=providers.Singleton(OnTheBoard, room_lobby, board_rooms)
    )
    leave_room = providers.Selector(
        job_queue_kind,
        local=room_leave,
        saq=providers.Singleton(ForwardRoomCall, LEAVE, room_leave, board_rooms, room_desk),
    )
    place_pieces = providers.Selector(
        job_queue_kind,
        local=room_place,
        saq=providers.Singleton(ForwardRoomCall, PLACE, room_place, board_rooms, room_desk),
    )
    play_action = providers.Selector(
        job_queue_kind,
        local=room_act,
        saq=providers.Singleton(ForwardRoomCall, ACT, room_act, board_rooms, room_desk),
    )
    surrender = providers.Selector(
        job_queue_kind,
        local=room_surrender,
        saq=providers.Singleton(ForwardRoomCall, SURRENDER, room_surrender, board_rooms, room_desk),
    )
    get_room = providers.Selector(
        job_queue_kind,
        local=room_get,
        saq=providers.Singleton(ForwardRoomCall, GET, room_get, board_rooms, room_desk),
    )
    watch_room = providers.Selector(
        job_queue_kind,
        local=providers.Singleton(WatchRoom, room_host),
        saq=providers.Singleton(WatchRoom, room_host, get_room),
    )
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
            get=providers.Factory(DeskUseCase, GetRoomCommand, room_get),
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
        matches=providers.Callable(match_slots, settings),
        builds=providers.Callable(worker_slots),
    )
    # The slots the ladder fills. One machine: this process's match queue; several (B9):
    # the workers', as the board shows them.
    ladder_slots = providers.Selector(
        job_queue_kind,
        local=providers.Singleton(QueueSlots, room_host),
        saq=providers.Singleton(BoardSlots, board_rooms, arena_repository, arena_timer),
    )
    # Where the ladder hands its matches: `PlayMatch` here, or the workers' queue.
    ladder_match_jobs = providers.Selector(
        job_queue_kind, local=play_match_here, saq=ladder_slots.provided.play
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
