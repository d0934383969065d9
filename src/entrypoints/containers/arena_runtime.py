"""The arena's runtime: the sandbox and its probe, the runner, builds and uploads, the
job queue (NOITU_ARENA_QUEUE), the rooms and their matches, and the ladder's driver.
"""

from __future__ import annotations

from typing import ClassVar

from dependency_injector import containers, providers

from noitu.adapters.arena.bubblewrap import BubblewrapProbe
from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.rooms import LoopTimer
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
from noitu.application.arena.replay_requests import ReplayRequests
from noitu.application.arena.rooms.abandon_lost_matches import AbandonLostMatches
from noitu.application.arena.rooms.board_rooms import BoardRooms
from noitu.application.arena.rooms.close_rooms import CloseRooms
from noitu.application.arena.rooms.create_room import CreateRoom
from noitu.application.arena.rooms.failure_details import FailureDetails
from noitu.application.arena.rooms.forward_room_call import ACT, PLACE, SURRENDER, ForwardRoomCall
from noitu.application.arena.rooms.get_replay import GetReplay
from noitu.application.arena.rooms.get_room import GetRoom
from noitu.application.arena.rooms.host import RoomHost
from noitu.application.arena.rooms.join_room import JoinRoom
from noitu.application.arena.rooms.ladder_slots import BoardSlots
from noitu.application.arena.rooms.leave_room import LeaveMatch, LeaveRoom, LeaveRoomCommand
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
from noitu.entrypoints.containers.arena_queue import LocalQueue, SaqQueue
from noitu.entrypoints.containers.resources import (
    in_process_matches,
    job_queue_connection,
    open_runners,
)
from noitu.entrypoints.containers.runners import ChosenRunners
from noitu.entrypoints.containers.support import (
    ladder_pass_failed,
    match_slots,
    orphan_min_age_ms,
    queue_kind_of,
    recovery_runner,
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
    replay_requests = providers.Singleton(ReplayRequests, arena_launcher)
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

    # --- the arena's rooms (B4, B6) and their matches (issue 31: one room runtime) ------
    # Rooms are cards on the board; their views go through the feed (NOITU_STORE's), so
    # a viewer may watch from any instance; a full room's match is a job that a host
    # takes (`PlayMatch`): this process on one machine, a worker on several.
    room_feed = store.room_feed  # NOITU_STORE's part
    arena_timer = providers.Singleton(LoopTimer, clock)
    # Writes tried again while Redis or the database is away (B9 "Faults").
    arena_patience = providers.Singleton(Patience, clock, arena_timer, tell_waiting_write)
    match_queue = providers.Singleton(MatchQueue, providers.Callable(match_slots, settings, role))
    room_host = providers.Singleton(RoomHost, room_feed, clock, background, arena_patience)
    room_run_match = providers.Singleton(RunMatch, arena_launcher, timer=arena_timer)
    seating = providers.Singleton(Seating, arena_repository, builtin_bots)

    # NOITU_ARENA_QUEUE picks where the board, the desk and the jobs live (one machine,
    # or several through Redis and SAQ); each name below reads the picked part's
    # provider.
    _queue_inputs: ClassVar[dict[str, providers.Provider]] = {
        "clock": clock,
        "redis": redis,
        "arena_files": arena_files,
        "build_queue": build_queue,
        "upload_builder": upload_builder,
        "match_queue": match_queue,
        "job_queue": job_queue,
        "cluster_jobs": cluster_jobs,
    }
    queue = providers.Selector(
        job_queue_kind,
        local=providers.Container(LocalQueue, **_queue_inputs),
        saq=providers.Container(SaqQueue, **_queue_inputs),
    )
    del _queue_inputs
    # The SAQ queues' connections.
    job_queue_resource = providers.Resource(
        job_queue_connection, queue.provided.job_queue_to_open.call()
    )
    # What builds uploads: this process's sandbox, or the workers.
    upload_builds = queue.provided.upload_builds.call()
    room_board = queue.provided.room_board.call()
    room_desk = queue.provided.room_desk.call()
    match_jobs = queue.provided.match_jobs.call()
    replay_journal = queue.provided.replay_journal.call()
    board_rooms = providers.Singleton(BoardRooms, room_board, room_host, match_jobs)

    # The room use cases a request reaches, the same on every instance.
    create_room = providers.Singleton(CreateRoom, board_rooms, seating, id_source, admission)
    join_room = providers.Singleton(JoinRoom, board_rooms, seating)
    open_rooms = providers.Singleton(OpenRooms, board_rooms)
    get_room = providers.Singleton(GetRoom, board_rooms)
    leave_room = providers.Singleton(LeaveRoom, board_rooms, room_desk)
    place_pieces = providers.Singleton(ForwardRoomCall, PLACE, board_rooms, room_desk)
    play_action = providers.Singleton(ForwardRoomCall, ACT, board_rooms, room_desk)
    surrender = providers.Singleton(ForwardRoomCall, SURRENDER, board_rooms, room_desk)
    watch_room = providers.Singleton(WatchRoom, room_feed, room_host.provided.views)
    # The slots the ladder fills (the hosts' slots, as the board shows them), and where
    # it hands its matches.
    ladder_slots = providers.Singleton(BoardSlots, board_rooms, arena_repository, arena_timer)
    ladder_match_jobs = ladder_slots.provided.play

    # A match's host (issue 31: the match is the unit of work): the handler of every
    # match job, its requests answered by the match's own use cases.
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
    play_match = providers.Singleton(
        PlayMatch,
        room_host,
        start_match,
        room_board,
        room_desk,
        providers.Dict(
            place=providers.Factory(
                DeskUseCase, PlacePiecesCommand, providers.Singleton(PlacePieces, room_host)
            ),
            act=providers.Factory(
                DeskUseCase, PlayActionCommand, providers.Singleton(PlayAction, room_host)
            ),
            surrender=providers.Factory(
                DeskUseCase, SurrenderCommand, providers.Singleton(Surrender, room_host)
            ),
            leave=providers.Factory(
                DeskUseCase, LeaveRoomCommand, providers.Singleton(LeaveMatch, room_host)
            ),
        ),
        settings.provided.instance,
    )
    # One machine's matches, played here once the runners are chosen, stopped at the end.
    matches_resource = providers.Resource(
        in_process_matches,
        arena_sandbox_resource,
        providers.Selector(
            arena_part, on=queue.provided.matches_to_stop.call(), off=providers.Object(None)
        ),
        play_match.provider,
    )
    owner_keys = providers.Singleton(OwnerKeys, id_source, admission)
    failure_details = providers.Singleton(FailureDetails, room_host, arena_repository)
    get_replay = providers.Singleton(GetReplay, arena_repository, arena_files)
    close_rooms = providers.Singleton(CloseRooms, room_host)
    abandon_lost_matches = providers.Singleton(
        AbandonLostMatches, board_rooms, arena_repository, arena_files, replay_journal
    )
    job_runner = providers.Factory(
        saq_runner,
        job_queue,
        settings.provided.instance,
        run_build,
        play_match,
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
