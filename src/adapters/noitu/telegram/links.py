"""Game links for Play: `<GAME_BASE_URL>/games/noitu/?t=<token>` (spec "How a game flows")."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.noitu.ports import TokenIssuer
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.application.ports import Clock
from noitu.domain.noitu.rules import MAX_PLAYER_NAME_CHARACTERS, TOKEN_LIFETIME_S

GAME_SHORT_NAME = "noitu"
ROOM_COMMAND = "noituphong"  # a room card (spec B10)
TOP_COMMAND = "noitutop"  # the chat's leaderboard
REPORT_COMMAND = "baotu"  # /baotu <từ>: report a missing word (spec B11)
LOOKUP_COMMAND = "tu"  # /tu <từ>: is a word in the game (spec B11)
DAILY_COMMAND = "noitungay"  # today's game (spec B13), the game NOITU_DAILY_GAME names
DEFAULT_DAILY_GAME = "noitungay"  # NOITU_DAILY_GAME's default: the daily game's short name


@dataclass(frozen=True)
class GameLinks:
    """Signs a link naming the player and the game message; off without a base URL or issuer."""

    base_url: str
    issuer: TokenIssuer | None
    clock: Clock
    page_path: str
    ttl_s: int = TOKEN_LIFETIME_S

    @property
    def enabled(self) -> bool:
        return bool(self.base_url) and self.issuer is not None

    def url_for(
        self,
        user_id: int,
        first_name: str,
        message: GameMessage,
        *,
        room: bool = False,
        daily: bool = False,
    ) -> str:
        """The page's link; `room` signs a room card's link (claim `r: 1`), `daily` a
        daily game's (claim `d: 1`)."""
        if self.issuer is None or not self.base_url:
            raise RuntimeError("the game is disabled: no game links")
        ticket = Ticket(
            user_id=user_id,
            first_name=(first_name or "")[:MAX_PLAYER_NAME_CHARACTERS],
            message=message,
            expires_at=self.clock.now_ms() // 1000 + self.ttl_s,
            room=room,
            daily=daily,
        )
        return f"{self.base_url}{self.page_path}?t={self.issuer.issue(ticket)}"
