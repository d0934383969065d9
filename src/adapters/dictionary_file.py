"""Reads a dictionary file (the shipped one, or an operator's NOITU_DICTIONARY)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..domain.lexicon import DictionaryFormatError, Lexicon

SHIPPED_DICTIONARY = "dictionary.txt"


class DictionaryUnreadable(ValueError):
    pass


def load_lexicon(path: str | None = None) -> Lexicon:
    """The Lexicon of a dictionary file; errors name the file (and the line)."""
    if path:
        source = path
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise DictionaryUnreadable(f"{path}: cannot read the dictionary ({error.strerror})") from None
        except UnicodeDecodeError as error:
            raise DictionaryUnreadable(f"{path}: the dictionary is not UTF-8 ({error.reason})") from None
    else:
        source = f"<shipped {SHIPPED_DICTIONARY}>"
        text = (resources.files("noitu.assets") / SHIPPED_DICTIONARY).read_text(encoding="utf-8")
    try:
        return Lexicon.from_lines(text.split("\n"), source)
    except DictionaryFormatError:
        raise
    except ValueError as error:
        raise DictionaryUnreadable(f"{source}: {error}") from None
