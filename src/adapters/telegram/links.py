"""Game links for Play: `<GAME_BASE_URL>/games/noitu/?t=<token>` (spec "How a game flows")."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.noitu.ports import Clock, TokenIssuer
from noitu.application.noitu.session import GameMessage, Ticket

GAME_SHORT_NAME = "noitu"
GAME_PATH = "/games/noitu/"
TOKEN_TTL_S = 6 * 3600
MAX_NAME_CHARACTERS = 64


@dataclass(frozen=True)
class GameLinks:
    """Signs a link naming the player and the game message; off without a base URL or issuer."""

    base_url: str
    issuer: TokenIssuer | None
    clock: Clock
    ttl_s: int = TOKEN_TTL_S

    @property
    def enabled(self) -> bool:
        return bool(self.base_url) and self.issuer is not None

    def url_for(self, user_id: int, first_name: str, message: GameMessage) -> str:
        if self.issuer is None or not self.base_url:
            raise RuntimeError("the game is disabled: no game links")
        ticket = Ticket(
            user_id=user_id,
            first_name=(first_name or "")[:MAX_NAME_CHARACTERS],
            message=message,
            expires_at=self.clock.now_ms() // 1000 + self.ttl_s,
        )
        return f"{self.base_url}{GAME_PATH}?t={self.issuer.issue(ticket)}"
