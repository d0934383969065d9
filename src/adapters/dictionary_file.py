"""Reads a dictionary file (the shipped one, or an operator's NOITU_DICTIONARY).

Building a Lexicon from 58,000 lines takes about half a second; the built Lexicon is
kept in a cache file (like Python's .pyc files) named by the dictionary's SHA-256 and the
code that builds it, so later starts load it in a few tens of milliseconds. A missing,
unwritable or stale cache only costs the build; it never changes what is loaded.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from importlib import resources
from pathlib import Path

import structlog

from noitu.domain.noitu import lexicon as lexicon_module
from noitu.domain.noitu import spelling
from noitu.domain.noitu.bots import opponents
from noitu.domain.noitu.lexicon import (
    DictionaryFormatError,
    Lexicon,
    lexicon_from_snapshot,
    lexicon_snapshot,
)

SHIPPED_DICTIONARY = "dictionary.txt"
CACHE_FILES_KEPT = 4  # the newest built Lexicons; older ones (old versions) are removed
log = structlog.get_logger("noitu.dictionary")


class DictionaryUnreadable(ValueError):
    pass


def default_cache_dir() -> Path | None:
    """NOITU_CACHE_DIR ("off" disables); else $XDG_CACHE_HOME/noitu or ~/.cache/noitu."""
    configured = os.environ.get("NOITU_CACHE_DIR", "").strip()
    if configured.lower() == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "noitu"


def _code_fingerprint() -> bytes:
    """The source of everything that shapes a built Lexicon: a new version rebuilds."""
    digest = hashlib.sha256()
    for module in (lexicon_module, spelling, opponents):
        digest.update(Path(module.__file__).read_bytes())  # type: ignore[arg-type]
    return digest.digest()


def _read(path: str | None) -> tuple[str, bytes]:
    if path:
        try:
            return path, Path(path).read_bytes()
        except OSError as error:
            raise DictionaryUnreadable(
                f"{path}: cannot read the dictionary ({error.strerror})"
            ) from None
    shipped = resources.files("noitu.assets") / SHIPPED_DICTIONARY
    return f"<shipped {SHIPPED_DICTIONARY}>", shipped.read_bytes()


def _build(source: str, data: bytes) -> Lexicon:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise DictionaryUnreadable(f"{source}: the dictionary is not UTF-8 ({error.reason})") from None
    try:
        return Lexicon.from_lines(text.split("\n"), source)
    except DictionaryFormatError:
        raise
    except ValueError as error:
        raise DictionaryUnreadable(f"{source}: {error}") from None


def load_lexicon(path: str | None = None, cache_dir: Path | None | str = "default") -> Lexicon:
    """The Lexicon of a dictionary file; errors name the file (and the line)."""
    source, data = _read(path)
    folder = default_cache_dir() if cache_dir == "default" else cache_dir
    if folder is None:
        return _build(source, data)
    key = hashlib.sha256(_code_fingerprint() + hashlib.sha256(data).digest()).hexdigest()
    cached = Path(folder) / f"lexicon-{key[:32]}.marshal"
    try:
        return lexicon_from_snapshot(marshal.loads(cached.read_bytes()))
    except FileNotFoundError:
        pass
    except (OSError, ValueError, EOFError, TypeError, KeyError) as error:
        log.warning("lexicon_cache_unreadable", path=str(cached), error=type(error).__name__)
    lexicon = _build(source, data)
    _store(cached, lexicon)
    return lexicon


def _store(cached: Path, lexicon: Lexicon) -> None:
    try:
        blob = marshal.dumps(lexicon_snapshot(lexicon))
        cached.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=cached.parent, delete=False) as handle:
            handle.write(blob)
        os.replace(handle.name, cached)
        _forget_old(cached)
    except (OSError, ValueError) as error:
        log.info("lexicon_cache_skipped", path=str(cached), error=type(error).__name__)


def _forget_old(newest: Path) -> None:
    """Keep the cache small: every code or dictionary change leaves a file behind."""
    others = [f for f in newest.parent.glob("lexicon-*.marshal") if f != newest]
    others.sort(key=lambda f: f.stat().st_mtime, reverse=True)
    for stale in others[CACHE_FILES_KEPT - 1 :]:
        stale.unlink(missing_ok=True)
