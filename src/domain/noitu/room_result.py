"""How a game of a group room ended (spec B10): the winner, the standings, the bonus."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from noitu.domain.noitu.room_game import OutReason, Player


@dataclass(frozen=True, slots=True)
class Standing:
    seat: int
    user_id: int
    name: str
    score: int  # the points of the player's words
    bonus: int
    out_reason: OutReason | None

    @property
    def total(self) -> int:
        return self.score + self.bonus


@dataclass(frozen=True, slots=True)
class RoomResult:
    winner: int  # a seat
    words: int  # words played after the opening
    standings: tuple[Standing, ...]

    @property
    def counts(self) -> bool:
        """A game with no word after the opening gives no score, no announcement and no
        leaderboard entry."""
        return self.words > 0

    @property
    def winner_standing(self) -> Standing:
        return self.standings[0]


def ranked(players: Sequence[Player], winner: Player, words: int, bonus: int) -> RoomResult:
    """The standings: the winner; the other survivors by points (ties: earlier seat);
    the players out, last out first (out together: earlier seat first). The winner gets
    the bonus when a word was played after the opening."""
    others = [p for p in players if p is not winner]
    survivors = sorted((p for p in others if p.alive), key=lambda p: (-p.score, p.seat))
    out = sorted((p for p in others if not p.alive), key=lambda p: (-p.out_step, p.seat))
    return RoomResult(
        winner=winner.seat,
        words=words,
        standings=tuple(
            Standing(
                p.seat, p.user_id, p.name, p.score,
                bonus if p is winner and words > 0 else 0, p.out_reason,
            )
            for p in [winner, *survivors, *out]
        ),
    )
