"""B8 "Pairings": a pairing is two matches with the same seed, sides swapped, so
placement luck and the first move cancel out. `first` sits on P1 in one match and on P2
in the other; they may run one after the other or together. A bot is in at most one
pairing at a time. When a match of the pairing was not rated (the server's fault), the
pairing is played again with a new seed once both have ended. A pairing names the
instance whose driver plays it, so a restarted instance can end its own and no other's.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from noitu.domain.arena.board import Side

MATCHES_PER_PAIRING = 2


@dataclass(frozen=True, slots=True)
class PairingEnd:
    """How one match of a pairing ended: rated or not, and the winning bot (None for a
    draw or a match that was not rated)."""

    match_id: str
    rated: bool
    winner: str | None


@dataclass(frozen=True, slots=True)
class Pairing:
    id: str
    seed: int
    first: str
    second: str
    placement: bool  # one of `first`'s placement pairings (placement.py)
    started_ms: int
    ends: tuple[PairingEnd, ...] = ()
    #: The instance whose driver plays it ("": not known, a pairing opened before
    #: pairings named their instance).
    instance: str = ""

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError("a pairing needs two different bots")

    @property
    def bots(self) -> tuple[str, str]:
        return self.first, self.second

    def seats(self, match_index: int) -> tuple[str, str]:
        """(P1, P2) of the pairing's first (0) or second (1) match: sides swapped."""
        return (self.first, self.second) if match_index == 0 else (self.second, self.first)

    def opponent_of(self, bot: str) -> str:
        if bot not in self.bots:
            raise ValueError(f"{bot} is not in pairing {self.id}")
        return self.second if bot == self.first else self.first

    def with_end(self, end: PairingEnd) -> Pairing:
        """The pairing with one more match ended; a match told twice counts once."""
        if any(known.match_id == end.match_id for known in self.ends):
            return self
        if self.over:
            raise ValueError(f"pairing {self.id} has both its matches already")
        return replace(self, ends=(*self.ends, end))

    @property
    def over(self) -> bool:
        return len(self.ends) >= MATCHES_PER_PAIRING

    @property
    def to_replay(self) -> bool:
        """Over, with a match that was not rated: play the pairing again."""
        return self.over and not all(end.rated for end in self.ends)

    def wins_of(self, bot: str) -> int:
        return sum(end.rated and end.winner == bot for end in self.ends)


def winner_bot(p1: str, p2: str, winner: Side | None) -> str | None:
    """The bot that won a match between `p1` and `p2`; None for a draw."""
    if winner is None:
        return None
    return p1 if winner is Side.P1 else p2
