"""The session limits of spec Part A "Limits and security" and B8."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SessionLimits:
    max_playing: int = 2_000
    max_playing_per_user: int = 3
    move_interval_ms: int = 300
    idle_ms: int = 15 * 60_000
    finished_ms: int = 2 * 60_000
