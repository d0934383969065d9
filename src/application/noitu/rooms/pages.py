"""The pages holding a room's live feed (B10 revised: a member is present while one of
its pages holds the feed): how a feed takes, keeps and lets go of its hold, and which
holds this server process keeps renewing.

A hold is written in the room (`Room.pages`) with a time it runs out at. The process
serving the feed renews its holds (`RenewRoomPages`) long before that, so a hold whose
process went away (a crash, a cut connection to the store) runs out by itself and its
member becomes absent then.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from noitu.application.noitu.rooms.record import RoomRecord
from noitu.application.noitu.rooms.unit_of_work import Rooms

PAGE_HOLD_MS = 60_000  # a feed's hold runs out this long after it was last renewed
RENEW_EVERY_MS = 20_000  # how often this process renews its feeds' holds


class Standing(str, Enum):
    """Where a feed stands in the room it follows."""

    HOLDING = "holding"
    GONE = "gone"  # its member left the room (or the room closed)
    REPLACED = "replaced"  # a newer join, or newer pages of the member, took over
    LAPSED = "lapsed"  # its hold ran out while the feed was still open: take it again


@dataclass(frozen=True, slots=True)
class HeldPage:
    user_id: int
    tag: str  # the `credential_tag` of the credential the feed was opened with


def standing(
    record: RoomRecord | None, page_id: str, page: HeldPage, max_pages: int | None
) -> Standing:
    """Where the page stands; a page not held is `LAPSED` (to be held again) unless its
    member holds `max_pages` others (then newer pages replaced it). With `max_pages`
    None, a new page: the member's other pages do not matter (the oldest will go)."""
    if record is None or record.room.member(page.user_id) is None:
        return Standing.GONE
    current = record.credential_tags.get(page.user_id)
    if current is not None and current != page.tag:
        return Standing.REPLACED
    if page_id in record.room.pages:
        return Standing.HOLDING
    if max_pages is not None and len(record.room.pages_of(page.user_id)) >= max_pages:
        return Standing.REPLACED
    return Standing.LAPSED


async def take_hold(
    rooms: Rooms, key: str, page_id: str, page: HeldPage, *, new: bool
) -> Standing:
    """The page holds the room's feed from now (its member is present); the member's
    oldest pages beyond the limit let go, and are told by the feeds they wake. A page
    that held it before (`new` False) takes it again only if no newer pages replaced
    it meanwhile."""
    async with rooms.open(key) as work:
        record, room = work.record, work.room
        limit = None if new else rooms.limits.feeds_per_member
        found = standing(record, page_id, page, limit)
        if found in (Standing.GONE, Standing.REPLACED):
            return found
        host = room.host
        dropped = room.hold(page_id, page.user_id, work.now_ms + PAGE_HOLD_MS, rooms.limits)
        await work.commit(notify=bool(dropped) or room.host != host)
        return Standing.HOLDING


async def let_go(rooms: Rooms, key: str, page_id: str) -> None:
    """The feed closed: its page lets go (its member is absent once none holds)."""
    async with rooms.open(key) as work:
        if page_id in work.room.pages:
            work.room.release(page_id, work.now_ms)
            await work.commit(notify=False)


class LivePages:
    """The pages whose feeds this process serves, by room: what it renews."""

    def __init__(self) -> None:
        self._rooms: dict[str, dict[str, HeldPage]] = {}
        self.closed = 0  # feeds that ended here so far

    def add(self, key: str, page_id: str, page: HeldPage) -> None:
        self._rooms.setdefault(key, {})[page_id] = page

    def remove(self, key: str, page_id: str) -> None:
        pages = self._rooms.get(key)
        if pages is not None and pages.pop(page_id, None) is not None:
            self.closed += 1
            if not pages:
                del self._rooms[key]

    def rooms(self) -> list[str]:
        return list(self._rooms)

    def of(self, key: str) -> dict[str, HeldPage]:
        return dict(self._rooms.get(key, {}))

    def __len__(self) -> int:
        return sum(len(pages) for pages in self._rooms.values())
