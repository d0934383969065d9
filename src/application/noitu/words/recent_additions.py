"""The public list of added words (spec B11: `GET /games/noitu/words`)."""

from __future__ import annotations

from noitu.domain.noitu.additions import Added, Overlay

RECENT_ADDITIONS = 100  # the words the page lists, newest first


class RecentAdditions:
    def __init__(self, overlay: Overlay) -> None:
        self._overlay = overlay

    def __call__(self) -> list[Added]:
        return self._overlay.recent(RECENT_ADDITIONS)
