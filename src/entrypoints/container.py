"""The composition root: the one place that names concrete adapters.

The providers live in parts by concern (`entrypoints/containers/`: `Core`, what every
part shares; `Noitu`; `Telegram`; `ArenaStorage`; `ArenaRuntime`), each a container
given the parts it reads (`providers.DependenciesContainer`). `Container` composes
them and names each part's providers again under their own names, so callers and tests
reach (and override) `container.clock` or `container.arena_probe` as before. The
Resources that span parts (the feeds, which close before the Redis link) and the
periodic tasks are composed here, where dependency-injector sees their order.

The container is built with the settings (the environment) and the process's role
(`entrypoints/role.py`: web, worker or cli, set once by the entry point). Settings pick
adapters through `Selector`s (NOITU_STORE picks the store's part, a whole; a bot token
makes Telegram the score reporter); the role picks the periodic tasks and whether the
sandbox is probed. What runs bots is no Selector: the sandbox's Resource chooses it
once, when the probe has run (`containers/runners.py`). What opens and closes is a
`Resource` (the Redis link, the arena's database, the sandbox, the room feeds, and the
process's periodic tasks): the server opens them all with `init_resources()` and closes them with
`shutdown_resources()`, in dependency order. A Resource yields None when the settings
leave its part out, so opening them all is right for any settings.

Nothing depends on a Resource but another Resource: an async Resource turns every
provider that depends on it into one that answers Futures. The adapters are plain
Singletons, and each Resource takes the adapter whose life it runs.

Tests build the same container and override providers with fakes (a clock they can
advance, a recording score reporter, a seeded random source). Adapters that import
heavy libraries (aiogram, redis-py) are built by factories that import them on first
use.
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.entrypoints.containers.arena_runtime import ArenaRuntime
from noitu.entrypoints.containers.arena_storage import ArenaStorage
from noitu.entrypoints.containers.core import Core
from noitu.entrypoints.containers.noitu import Noitu
from noitu.entrypoints.containers.resources import open_group_feed, open_room_feed, run_periodic
from noitu.entrypoints.containers.store import Store
from noitu.entrypoints.containers.telegram import Telegram
from noitu.entrypoints.periodic_tasks import periodic_of
from noitu.entrypoints.role import WEB, Role
from noitu.entrypoints.settings import Settings


class Container(containers.DeclarativeContainer):
    __self__ = providers.Self()
    settings = providers.Dependency(instance_of=Settings)
    # What the process was started as (`entrypoints/role.py`): its entry point says so
    # when it builds the container; `noitu serve`'s role unless told.
    role = providers.Dependency(instance_of=Role, default=WEB)

    # --- the parts, by concern (`entrypoints/containers/`), each given what it reads ---
    core = providers.Container(Core, settings=settings, role=role)
    store = providers.Container(Store, core=core)
    noitu = providers.Container(Noitu, core=core, store=store)
    telegram = providers.Container(Telegram, core=core, noitu=noitu, store=store)
    arena_storage = providers.Container(ArenaStorage, core=core, store=store)
    arena_runtime = providers.Container(
        ArenaRuntime, core=core, arena_storage=arena_storage, store=store
    )

    # Core's providers, under the names callers and tests use
    clock = core.clock
    rng = core.rng
    id_source = core.id_source
    background = core.background
    operator_key = core.operator_key
    token_signer = core.token_signer
    daily_puzzle = core.daily_puzzle
    redis = core.redis
    telegram_bot = core.telegram_bot
    lexicon = core.lexicon
    turn_clock = core.turn_clock
    limits = core.limits
    group_limits = core.group_limits

    # Store's providers (NOITU_STORE picks the memory or the Redis part), likewise
    redis_resource = store.redis_resource
    session_repository = store.session_repository
    daily_games = store.daily_games
    start_limiter = store.start_limiter
    group_cards = store.group_cards
    group_leaderboard = store.group_leaderboard
    additions_store = store.additions_store
    reports_store = store.reports_store
    word_refusals = store.word_refusals
    group_store = store.group_store
    group_credentials = store.group_credentials
    group_feed_on_redis = store.group_feed_on_redis
    group_feed_channel = store.group_feed_channel
    seen_updates = store.seen_updates
    address_limiter = store.address_limiter
    room_feed = store.room_feed

    # Noitu's providers, under the names callers and tests use
    bot_index = noitu.bot_index
    opponents = noitu.opponents
    local_scores = noitu.local_scores
    score_reporter = noitu.score_reporter
    high_scores = noitu.high_scores
    time_limit = noitu.time_limit
    sessions = noitu.sessions
    views = noitu.views
    start_game = noitu.start_game
    play_move = noitu.play_move
    get_state = noitu.get_state
    give_up = noitu.give_up
    get_record = noitu.get_record
    get_daily = noitu.get_daily
    settle_expired = noitu.settle_expired
    word_overlay = noitu.word_overlay
    follow_additions = noitu.follow_additions
    change_words = noitu.change_words
    reject_words = noitu.reject_words
    pending_words = noitu.pending_words
    review_chat = noitu.review_chat
    look_up_word = noitu.look_up_word
    recent_additions = noitu.recent_additions
    file_report = noitu.file_report
    report_refused_word = noitu.report_refused_word
    group_bots = noitu.group_bots
    group_announcer = noitu.group_announcer
    group_unit_of_work = noitu.group_unit_of_work
    group_report = noitu.group_report
    group_rooms = noitu.group_rooms
    group_views = noitu.group_views
    group_join = noitu.group_join
    group_start = noitu.group_start
    group_add_bot = noitu.group_add_bot
    group_move = noitu.group_move
    report_room_word = noitu.report_room_word
    group_give_up = noitu.group_give_up
    group_leave = noitu.group_leave
    group_pages = noitu.group_pages
    group_feed = noitu.group_feed
    group_settle = noitu.group_settle
    group_close_idle = noitu.group_close_idle
    group_renew_pages = noitu.group_renew_pages

    # Telegram's providers, under the names callers and tests use
    game_links = telegram.game_links
    telegram_dispatcher = telegram.telegram_dispatcher
    webhook_secret = telegram.webhook_secret
    webhook_route = telegram.webhook_route
    telegram_runner = telegram.telegram_runner
    words_bot = telegram.words_bot

    # ArenaStorage's providers, under the names callers and tests use
    arena_part = arena_storage.arena_part
    arena_engine = arena_storage.arena_engine
    arena_database_resource = arena_storage.arena_database_resource
    arena_repository = arena_storage.arena_repository
    arena_files = arena_storage.arena_files
    replay_sweep_lease = arena_storage.replay_sweep_lease
    sweep_replays = arena_storage.sweep_replays
    ladder_stores = arena_storage.ladder_stores
    ladder_results = arena_storage.ladder_results
    ladder_standings = arena_storage.ladder_standings
    ladder_members = arena_storage.ladder_members
    ladder_pairings = arena_storage.ladder_pairings
    ladder_lease = arena_storage.ladder_lease
    ladder_roster = arena_storage.ladder_roster
    ladder_history = arena_storage.ladder_history
    ladder_listing = arena_storage.ladder_listing
    resume_bot = arena_storage.resume_bot
    show_ladder = arena_storage.show_ladder
    list_ladder = arena_storage.list_ladder
    ladder_bot = arena_storage.ladder_bot
    ladder_matches = arena_storage.ladder_matches
    bot_matches = arena_storage.bot_matches
    bot_figures = arena_storage.bot_figures
    rebuild_ladder = arena_storage.rebuild_ladder
    record_ladder_result = arena_storage.record_ladder_result
    schedule_pairing = arena_storage.schedule_pairing
    client_addresses = arena_storage.client_addresses
    admission = arena_storage.admission
    rank_bot = arena_storage.rank_bot
    build_queue = arena_storage.build_queue

    # ArenaRuntime's providers, under the names callers and tests use
    arena_probe = arena_runtime.arena_probe
    chosen_runners = arena_runtime.chosen_runners
    arena_sandbox_resource = arena_runtime.arena_sandbox_resource
    arena_runners = arena_runtime.arena_runners
    arena_sandbox_status = arena_runtime.arena_sandbox_status
    arena_launcher = arena_runtime.arena_launcher
    arena_builder = arena_runtime.arena_builder
    builtin_bots = arena_runtime.builtin_bots
    run_match = arena_runtime.run_match
    check_bot = arena_runtime.check_bot
    replay_requests = arena_runtime.replay_requests
    upload_builder = arena_runtime.upload_builder
    job_queue_kind = arena_runtime.job_queue_kind
    job_queue = arena_runtime.job_queue
    job_queue_resource = arena_runtime.job_queue_resource
    cluster_jobs = arena_runtime.cluster_jobs
    upload_builds = arena_runtime.upload_builds
    run_build = arena_runtime.run_build
    upload_bot = arena_runtime.upload_bot
    my_bots = arena_runtime.my_bots
    public_bots = arena_runtime.public_bots
    bot_details = arena_runtime.bot_details
    bot_source = arena_runtime.bot_source
    publish_bot = arena_runtime.publish_bot
    delete_bot = arena_runtime.delete_bot
    sweep_failed_builds = arena_runtime.sweep_failed_builds
    recover_at_start = arena_runtime.recover_at_start
    arena_timer = arena_runtime.arena_timer
    arena_patience = arena_runtime.arena_patience
    match_queue = arena_runtime.match_queue
    room_host = arena_runtime.room_host
    replay_journal = arena_runtime.replay_journal
    room_run_match = arena_runtime.room_run_match
    seating = arena_runtime.seating
    start_match = arena_runtime.start_match
    owner_keys = arena_runtime.owner_keys
    failure_details = arena_runtime.failure_details
    get_replay = arena_runtime.get_replay
    close_rooms = arena_runtime.close_rooms
    room_board = arena_runtime.room_board
    room_desk = arena_runtime.room_desk
    match_jobs = arena_runtime.match_jobs
    matches_resource = arena_runtime.matches_resource
    board_rooms = arena_runtime.board_rooms
    create_room = arena_runtime.create_room
    join_room = arena_runtime.join_room
    open_rooms = arena_runtime.open_rooms
    leave_room = arena_runtime.leave_room
    place_pieces = arena_runtime.place_pieces
    play_action = arena_runtime.play_action
    surrender = arena_runtime.surrender
    get_room = arena_runtime.get_room
    watch_room = arena_runtime.watch_room
    play_match = arena_runtime.play_match
    abandon_lost_matches = arena_runtime.abandon_lost_matches
    job_runner = arena_runtime.job_runner
    ladder_slots = arena_runtime.ladder_slots
    ladder_match_jobs = arena_runtime.ladder_match_jobs
    unrank_bot = arena_runtime.unrank_bot
    play_ladder = arena_runtime.play_ladder

    # --- the feeds, opened after the Redis link and closed before it ------------------
    group_feed_resource = providers.Resource(
        open_group_feed,
        store.group_feed_to_close,
        redis_resource,
    )
    room_feed_resource = providers.Resource(
        open_room_feed,
        providers.Selector(arena_part, on=room_feed, off=providers.Object(None)),
        redis_resource,
    )

    # --- what the process does by itself, every so often ------------------------------
    # The tasks of this process's role (web or worker), built when the Resource starts:
    # after what they use opened (the bots' runners chosen among it), stopped before.
    periodic = providers.Singleton(periodic_of, __self__)
    periodic_resource = providers.Resource(
        run_periodic,
        periodic,
        redis_resource,
        room_feed_resource,
        arena_database_resource,
        arena_sandbox_resource,
    )
