"""What each viewer of a room sees (docs/arena-api.md "Rooms"): a person's legalActions
go to the viewer answering for the side to move, and to nobody else — not a spectator,
not the other player, not the feed every WebSocket carries."""

from __future__ import annotations

import asyncio

import pytest

from noitu.application.arena.rooms.get_room import GetRoomCommand
from noitu.application.arena.rooms.inputs import ActionInput
from noitu.application.arena.rooms.place_pieces import PlacePiecesCommand
from noitu.application.arena.rooms.snapshot import RoomSnapshot, snapshot_of
from noitu.domain.arena.board import Side
from support.arena_rooms import Arena, new_owner, person


@pytest.fixture
def arena(tmp_path) -> Arena:
    return Arena(tmp_path / "data")


async def two_people_playing(arena: Arena) -> tuple[str, str, str]:
    """Lan (P1) and Minh (P2), placed and ready: P1 is to move. Returns the code, Lan, Minh."""
    lan, minh = new_owner(), new_owner()
    room = await arena.create(lan, person("Lan"))
    await arena.join(room.code, minh, person("Minh"))
    await arena.hosted(room.code)
    for owner in (lan, minh):
        for kind in ("RANDOM_PLACEMENT", "READY"):
            await arena.place_pieces(PlacePiecesCommand(room.code, owner, ActionInput(kind)))
    await arena.until_room(room.code, lambda s: s.current_player == "P1", lan)
    return room.code, lan, minh


async def test_only_the_viewer_answering_for_the_side_to_move_gets_its_legal_actions(arena):
    code, lan, minh = await two_people_playing(arena)
    feed = await arena.watch_room(GetRoomCommand(code))
    first: RoomSnapshot = await asyncio.wait_for(feed.__anext__(), 5)
    mover = await arena.room(code, lan)
    assert mover.mine == ("P1",) and mover.current_player == "P1" and mover.legal_actions
    for other in (await arena.room(code), await arena.room(code, minh), first):
        assert other.current_player == "P1" and other.legal_actions == ()
    # The snapshot itself, whoever asks for it.
    room = arena.host.find(code)
    now = arena.clock.now_ms()
    assert snapshot_of(room, now).legal_actions == ()
    assert snapshot_of(room, now, [Side.P2]).legal_actions == ()
    assert snapshot_of(room, now, [Side.P1]).legal_actions == mover.legal_actions
