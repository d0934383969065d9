"""Freed memory handed back to the system.

CPython gives a closed connection's memory back to the C allocator, which keeps it to
reuse: with glibc, the pages a burst of connections used stay resident after they all
closed (a room feed over a WebSocket is ~85 KB, most of it the zlib state of
permessage-deflate). `trim_heap` asks glibc to return its free pages (`malloc_trim`);
with another C library it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

_trim: Callable[[int], int] | None = None
_looked = False


def _malloc_trim() -> Callable[[int], int] | None:
    global _trim, _looked
    if not _looked:
        _looked = True
        name = ctypes.util.find_library("c")
        try:
            _trim = ctypes.CDLL(name).malloc_trim if name else None
        except (OSError, AttributeError):  # not glibc
            _trim = None
    return _trim


def trim_heap() -> bool:
    """Return the allocator's free pages to the system; False where it cannot."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
