from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
from noitu.domain.noitu.lexicon import Lexicon
from support.dictionaries import LITTLE
from support.fakes import FakeClock


@pytest.fixture
def little() -> Lexicon:
    return lexicon_from_lines(LITTLE.splitlines(), "little")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def rng() -> random.Random:
    return random.Random(7)
