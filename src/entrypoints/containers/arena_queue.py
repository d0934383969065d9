"""The arena's job queue (NOITU_ARENA_QUEUE): one part for one machine (the builds and
the matches in this process), one for several (B9: SAQ workers, the rooms on Redis's
board), with the same provider names; `ArenaRuntime` picks one whole part with one
`Selector` and names its providers again.

Neither part holds a Resource (`init_resources()` would open both parts' ones): the
queues' connections are a Resource in `ArenaRuntime`, given what the picked part names
as `job_queue_to_open` (None on one machine). What both parts use (the room host, the
match starter of one machine, the room use cases they wrap) stays in `ArenaRuntime`
and is handed to both.
"""

from __future__ import annotations

from dependency_injector import containers, providers

from noitu.adapters.arena.local_jobs import local_builds
from noitu.application.arena.rooms.board_rooms import OnTheBoard
from noitu.application.arena.rooms.forward_room_call import (
    ACT,
    GET,
    LEAVE,
    PLACE,
    SURRENDER,
    ForwardRoomCall,
)
from noitu.application.arena.rooms.hand_over_match import HandOverMatch
from noitu.application.arena.rooms.ladder_slots import BoardSlots, QueueSlots
from noitu.application.arena.rooms.open_rooms import OpenRooms
from noitu.application.arena.rooms.watch_room import WatchRoom


class _QueueInputs(containers.DeclarativeContainer):
    """What either queue part reads, given by `ArenaRuntime`."""

    arena_files = providers.Dependency()
    build_queue = providers.Dependency()
    arena_repository = providers.Dependency()
    arena_timer = providers.Dependency()
    upload_builder = providers.Dependency()
    job_queue = providers.Dependency()
    cluster_jobs = providers.Dependency()
    replay_journal = providers.Dependency()
    room_host = providers.Dependency()
    board_rooms = providers.Dependency()
    room_desk = providers.Dependency()
    start_match = providers.Dependency()
    play_match_here = providers.Dependency()
    room_create = providers.Dependency()
    room_join = providers.Dependency()
    room_lobby = providers.Dependency()
    room_leave = providers.Dependency()
    room_place = providers.Dependency()
    room_act = providers.Dependency()
    room_surrender = providers.Dependency()
    room_get = providers.Dependency()


class LocalQueue(_QueueInputs):
    """One machine: builds in this process's sandbox, matches on its own rooms."""

    job_queue_to_open = providers.Object(None)
    # A Factory: the upload builder is known after the start-up probe (None without one).
    upload_builds = providers.Factory(
        local_builds, _QueueInputs.upload_builder, _QueueInputs.arena_files, _QueueInputs.build_queue
    )
    journal = providers.Object(None)
    match_starter = _QueueInputs.start_match
    create_room = _QueueInputs.room_create
    join_room = _QueueInputs.room_join
    open_rooms = _QueueInputs.room_lobby
    leave_room = _QueueInputs.room_leave
    place_pieces = _QueueInputs.room_place
    play_action = _QueueInputs.room_act
    surrender = _QueueInputs.room_surrender
    get_room = _QueueInputs.room_get
    # A watch is the feed's; a room of this process is shown at once from here.
    watch_room = providers.Singleton(
        WatchRoom, _QueueInputs.room_host.provided.feed, _QueueInputs.room_host.provided.views
    )
    # The ladder fills this process's match queue and plays its matches here.
    ladder_slots = providers.Singleton(QueueSlots, _QueueInputs.room_host)
    ladder_match_jobs = _QueueInputs.play_match_here


class SaqQueue(_QueueInputs):
    """Several machines (B9): builds and matches on the workers through SAQ; a web
    instance runs the room use cases on a copy of the board, hands full rooms' matches
    to the queue and forwards a person's requests to the worker running the match."""

    job_queue_to_open = _QueueInputs.job_queue
    upload_builds = _QueueInputs.cluster_jobs
    # A match's replay events as they happen, for whoever abandons it if its worker dies.
    journal = _QueueInputs.replay_journal
    match_starter = providers.Singleton(HandOverMatch, _QueueInputs.room_host)
    create_room = providers.Singleton(
        OnTheBoard, _QueueInputs.room_create, _QueueInputs.board_rooms, counted=True
    )
    join_room = providers.Singleton(
        OnTheBoard, _QueueInputs.room_join, _QueueInputs.board_rooms, counted=True
    )
    open_rooms = providers.Singleton(
        OpenRooms, _QueueInputs.room_host, _QueueInputs.board_rooms.provided.read
    )
    leave_room = providers.Singleton(
        ForwardRoomCall,
        LEAVE,
        _QueueInputs.room_leave,
        _QueueInputs.board_rooms,
        _QueueInputs.room_desk,
    )
    place_pieces = providers.Singleton(
        ForwardRoomCall,
        PLACE,
        _QueueInputs.room_place,
        _QueueInputs.board_rooms,
        _QueueInputs.room_desk,
    )
    play_action = providers.Singleton(
        ForwardRoomCall,
        ACT,
        _QueueInputs.room_act,
        _QueueInputs.board_rooms,
        _QueueInputs.room_desk,
    )
    surrender = providers.Singleton(
        ForwardRoomCall,
        SURRENDER,
        _QueueInputs.room_surrender,
        _QueueInputs.board_rooms,
        _QueueInputs.room_desk,
    )
    get_room = providers.Singleton(
        ForwardRoomCall,
        GET,
        _QueueInputs.room_get,
        _QueueInputs.board_rooms,
        _QueueInputs.room_desk,
    )
    # A watch is the feed's alone: no room is hosted on a web instance.
    watch_room = providers.Singleton(WatchRoom, _QueueInputs.room_host.provided.feed)
    # The workers' slots, as the board shows them; the ladder's matches go to the queue.
    ladder_slots = providers.Singleton(
        BoardSlots, _QueueInputs.board_rooms, _QueueInputs.arena_repository, _QueueInputs.arena_timer
    )
    ladder_match_jobs = ladder_slots.provided.play
