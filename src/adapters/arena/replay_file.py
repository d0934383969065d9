"""A match's replay as a JSON Lines file (spec B4), written atomically: events go to a
temporary file beside the target as they happen, and the finished replay replaces the
target in one rename, so a reader never sees half a replay. The stores keep it
compressed (`compressed=True`, spec B14: `replay_codec`); the CLI writes plain lines an
author reads."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import msgspec

from noitu.adapters.arena.replay_codec import CompressedLines
from noitu.application.arena.replay import Event


class ReplayFile:
    """`MatchEvents` that writes each event as one compact JSON line."""

    def __init__(self, path: Path, *, compressed: bool = False) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
        self._partial = Path(name)
        self._file = os.fdopen(handle, "wb")
        self._lines = CompressedLines(self._file) if compressed else self._file
        self._encoder = msgspec.json.Encoder()

    def record(self, event: Event) -> None:
        self._lines.write(self._encoder.encode(event) + b"\n")

    def finish(self) -> Path:
        """Flush, sync and move the replay into place."""
        if isinstance(self._lines, CompressedLines):
            self._lines.finish()
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.chmod(self._partial, 0o644)
        os.replace(self._partial, self.path)
        return self.path

    def discard(self) -> None:
        if not self._file.closed:
            self._file.close()
        self._partial.unlink(missing_ok=True)
