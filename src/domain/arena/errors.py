"""What the engine refuses. Messages are Vietnamese: a person's page shows them."""

from __future__ import annotations


class ArenaRuleError(Exception):
    """Something the rules do not allow; the match is unchanged."""


class WrongPhase(ArenaRuleError):
    """The request does not fit the match's phase (e.g. a MOVE during placement)."""


class NotYourTurn(ArenaRuleError):
    """A side acted while it was the other side's turn."""


class IllegalAction(ArenaRuleError):
    """A MOVE or PASS the rules do not allow in this position."""


class PlacementError(ArenaRuleError):
    """A PLACE, RANDOM_PLACEMENT or READY the placement rules do not allow."""
