"""Where the arena's rooms and jobs live (NOITU_ARENA_QUEUE): one part for one machine
(the board, the desk and the queues in this process), one for several (B9: Redis's
board and desk, SAQ's queues, the workers), with the same provider names;
`ArenaRuntime` picks one whole part with one `Selector` and names its providers again.
The room use cases, `PlayMatch` and what they need are the same in both (issue 31: one
room runtime): only these adapters differ.

Neither part holds a Resource (`init_resources()` would open both parts' ones): what
opens and closes (the SAQ queues' connections, the in-process matches to stop) is a
Resource in `ArenaRuntime`, given what the picked part names (`job_queue_to_open`,
`matches_to_stop`: None where there is nothing).
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.arena.local_jobs import InProcessMatches, local_builds
from noitu.adapters.arena.replay_journal import InMemoryReplayJournal
from noitu.adapters.arena.room_board import InMemoryRoomBoard
from noitu.adapters.arena.room_desk import InMemoryRoomDesk
from noitu.entrypoints.containers.support import (
    redis_replay_journal,
    redis_room_board,
    redis_room_desk,
)


class _QueueInputs(containers.DeclarativeContainer):
    """What either part reads, given by `ArenaRuntime`."""

    clock = providers.Dependency()
    redis = providers.Dependency()
    arena_files = providers.Dependency()
    build_queue = providers.Dependency()
    upload_builder = providers.Dependency()
    match_queue = providers.Dependency()
    job_queue = providers.Dependency()
    cluster_jobs = providers.Dependency()


class LocalQueue(_QueueInputs):
    """One machine: builds in this process's sandbox, matches played in this process,
    the rooms' board and desk in its memory."""

    job_queue_to_open = providers.Object(None)
    # A Factory: the upload builder is known after the start-up probe (None without one).
    upload_builds = providers.Factory(
        local_builds,
        _QueueInputs.upload_builder,
        _QueueInputs.arena_files,
        _QueueInputs.build_queue,
    )
    room_board = providers.Singleton(InMemoryRoomBoard, _QueueInputs.clock)
    room_desk = providers.Singleton(InMemoryRoomDesk)
    match_jobs = providers.Singleton(InProcessMatches, _QueueInputs.match_queue)
    matches_to_stop = match_jobs
    # Nothing outlives this process: a match's replay is written where it is played.
    journal = providers.Object(None)
    replay_journal = providers.Singleton(InMemoryReplayJournal, _QueueInputs.clock)


class SaqQueue(_QueueInputs):
    """Several machines (B9): builds and matches on the workers through SAQ, the rooms'
    board and desk on Redis."""

    job_queue_to_open = _QueueInputs.job_queue
    upload_builds = _QueueInputs.cluster_jobs
    room_board = providers.Singleton(redis_room_board, _QueueInputs.redis)
    room_desk = providers.Singleton(redis_room_desk, _QueueInputs.redis)
    match_jobs = _QueueInputs.cluster_jobs
    matches_to_stop = providers.Object(None)
    # A match's replay events as they happen, for whoever abandons it if its worker dies.
    journal = providers.Singleton(redis_replay_journal, _QueueInputs.redis)
    replay_journal = journal
