"""The arena's storage (spec B4, B8, B9): the database, the files, the ladder's stores and
reads, the bots' reads, and admission control per client address (B10).
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.arena.builtin import BuiltinBots
from noitu.adapters.arena.files import DataDirFiles
from noitu.adapters.arena.sql.engine import create_engine
from noitu.adapters.arena.sql.files import DatabaseFiles
from noitu.adapters.arena.sql.ladder import SqlLadder
from noitu.adapters.arena.sql.lease import REPLAY_SWEEP, SqlLease
from noitu.adapters.arena.sql.repository import SqlArenaRepository
from noitu.adapters.arena.sql.transactions import SqlTransactions
from noitu.adapters.http.client_address import ClientAddresses
from noitu.application.arena.admission import Admission
from noitu.application.arena.bot_figures import BotFiguresOf
from noitu.application.arena.bot_matches import BotMatches
from noitu.application.arena.build_queue import BuildQueue
from noitu.application.arena.ladder.ladder_bot import LadderBotOf
from noitu.application.arena.ladder.ladder_matches import LadderMatches
from noitu.application.arena.ladder.list_ladder import ListLadder
from noitu.application.arena.ladder.rank_bot import RankBot
from noitu.application.arena.ladder.rebuild_ladder import RebuildLadder
from noitu.application.arena.ladder.record_ladder_result import RecordLadderResult
from noitu.application.arena.ladder.resume_bot import ResumeBot
from noitu.application.arena.ladder.schedule_pairing import SchedulePairing
from noitu.application.arena.ladder.show_ladder import ShowLadder
from noitu.application.arena.sweep_replays import SweepReplays
from noitu.entrypoints.containers.resources import (
    arena_database,
)
from noitu.entrypoints.containers.support import (
    build_slots,
    on_off,
    sweep_holder,
)


class ArenaStorage(containers.DeclarativeContainer):
    core = providers.DependenciesContainer()
    store = providers.DependenciesContainer()
    settings = core.settings
    clock = core.clock
    rng = core.rng

    # "on" when the settings run the arena; the arena's Resources open nothing when "off".
    arena_part = providers.Callable(on_off, settings.provided.arena_enabled)

    # --- the arena's storage (spec B4, B9): metadata in SQL; files in the data directory,
    # or (NOITU_ARENA_FILES=database) in the same database with the directory as a cache
    arena_engine = providers.Singleton(create_engine, settings.provided.arena_database_url)
    arena_database_resource = providers.Resource(
        arena_database,
        providers.Selector(arena_part, on=arena_engine, off=providers.Object(None)),
    )
    arena_repository = providers.Singleton(SqlArenaRepository, arena_engine)
    arena_files = providers.Selector(
        settings.provided.arena_files,
        directory=providers.Singleton(
            DataDirFiles, settings.provided.data_dir, settings.provided.arena_uploads_max_bytes
        ),
        database=providers.Singleton(
            DatabaseFiles,
            arena_engine,
            settings.provided.data_dir,
            clock,
            settings.provided.arena_uploads_max_bytes,
        ),
    )

    # --- retention (B14): the sweep, one at a time under a lease in the same database
    replay_sweep_lease = providers.Singleton(
        SqlLease, providers.Singleton(SqlTransactions, arena_engine), REPLAY_SWEEP
    )
    sweep_replays = providers.Singleton(
        SweepReplays,
        arena_repository,
        arena_files,
        replay_sweep_lease,
        clock,
        settings.provided.arena_retention,
        providers.Callable(sweep_holder, settings.provided.instance),
    )

    # --- the ladder (B8): its stores in the arena's database, on the same engine ------
    ladder_stores = providers.Singleton(SqlLadder, arena_engine)
    ladder_results = ladder_stores.provided.results
    ladder_standings = ladder_stores.provided.standings
    ladder_members = ladder_stores.provided.members
    ladder_pairings = ladder_stores.provided.pairings
    ladder_lease = ladder_stores.provided.lease
    # The built-ins' names are the class's (static): no builder or probe is needed to list
    # them, so the CLI's rebuild can name them too.
    ladder_roster = providers.Object(BuiltinBots)
    ladder_history = ladder_stores.provided.history
    ladder_listing = ladder_stores.provided.listing
    resume_bot = providers.Singleton(ResumeBot, arena_repository, ladder_members)
    show_ladder = providers.Singleton(ShowLadder, ladder_members, ladder_standings, ladder_roster)
    list_ladder = providers.Singleton(ListLadder, ladder_listing, ladder_roster)
    ladder_bot = providers.Singleton(
        LadderBotOf, ladder_listing, ladder_history, ladder_roster, arena_repository
    )
    ladder_matches = providers.Singleton(
        LadderMatches, arena_repository, arena_repository, ladder_results, ladder_listing
    )
    # Each bot's history (B8): its matches and figures, built-ins by their names.
    bot_matches = providers.Singleton(
        BotMatches, arena_repository, arena_repository, ladder_roster, clock
    )
    bot_figures = providers.Singleton(
        BotFiguresOf, arena_repository, arena_repository, arena_files, ladder_roster
    )
    rebuild_ladder = providers.Singleton(
        RebuildLadder, ladder_lease, ladder_results, ladder_standings, ladder_members,
        ladder_roster, clock,
    )
    record_ladder_result = providers.Singleton(
        RecordLadderResult, ladder_results, ladder_standings, ladder_members, ladder_pairings,
        ladder_roster, clock, rng,
    )
    schedule_pairing = providers.Singleton(
        SchedulePairing, ladder_lease, ladder_members, ladder_standings, ladder_pairings,
        ladder_roster, clock, rng,
    )

    # --- admission control (B10): per client address, and builds at once ---------------
    client_addresses = providers.Singleton(ClientAddresses, settings.provided.trusted_proxies)
    address_limiter = store.address_limiter  # NOITU_STORE's part
    admission = providers.Singleton(Admission, address_limiter, clock)
    # Ranking counts toward the address's uploads (B10).
    rank_bot = providers.Singleton(
        RankBot, arena_repository, ladder_members, ladder_standings, admission
    )
    build_queue = providers.Singleton(BuildQueue, providers.Callable(build_slots), clock)
