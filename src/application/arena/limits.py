"""Every per-owner and per-upload limit of the arena (spec B5), by name, in one place.

The upload use case enforces the upload limits; the rooms' use cases enforce
`MAX_LIVE_MATCHES_PER_OWNER`. Sizes are in bytes of the uploaded file as received.
"""

from __future__ import annotations

from noitu.application.arena.ports import Language

KIB = 1024
MIB = 1024 * KIB

#: A source file (.py, .cpp/.cc/.cxx, .java) and a JAR, at most (B5).
MAX_SOURCE_BYTES = 256 * KIB
MAX_JAR_BYTES = 16 * MIB


def max_upload_bytes(language: Language) -> int:
    """The cap on an upload of `language`: a JAR's, or a source file's."""
    return MAX_JAR_BYTES if language is Language.JAR else MAX_SOURCE_BYTES


#: What one build may leave (B10): the artefact (a C++ program; a Java build's class
#: files together) at most `MAX_ARTEFACT_BYTES`, a Java build at most
#: `MAX_JAVA_CLASSES` class files, an uploaded JAR at most `MAX_JAR_ENTRIES` entries
#: (counted from its central directory before any is read).
MAX_ARTEFACT_BYTES = 16 * MIB
MAX_JAVA_CLASSES = 500
MAX_JAR_ENTRIES = 10_000

#: Uploads one owner may make in a sliding window of one minute.
UPLOADS_PER_WINDOW = 6
UPLOAD_WINDOW_MS = 60_000

#: Bots one owner may keep stored. Only bots that built count: a failed build is kept
#: for its compiler messages `FAILED_BUILD_KEPT_MS`, then removed, and only the owner's
#: newest `MAX_FAILED_BUILDS_PER_OWNER` of them are kept.
MAX_BOTS_PER_OWNER = 20
FAILED_BUILD_KEPT_MS = 24 * 3_600_000
MAX_FAILED_BUILDS_PER_OWNER = 20

#: Matches one owner may have live at once (their bots' or their own seats).
MAX_LIVE_MATCHES_PER_OWNER = 3

#: A page of public bots: its default and largest size.
PUBLIC_PAGE_SIZE = 20
MAX_PUBLIC_PAGE_SIZE = 50

#: What an owner may type as a bot's name, before it is cleaned and cut to 40.
MAX_TYPED_NAME = 200
