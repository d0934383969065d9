"""The rules of nối từ by name (spec "Rules", "Limits and security", B2–B8).

Every number the spec sets lives here once; the game, the use cases and the adapters
read it from here. What a rule needs to decide (the chain, the Lexicon, the time) comes
in as arguments.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from noitu.domain.noitu.spelling import syllables

if TYPE_CHECKING:
    from noitu.domain.noitu.chain import Chain
    from noitu.domain.noitu.lexicon import Lexicon

# --- words -----------------------------------------------------------------------------

MIN_SYLLABLES = 2  # a valid word has at least 2 syllables
MAX_TYPED_CHARACTERS = 64  # B2: what a player may type, before normalization
MAX_TYPED_TOKENS = 8
COMMON_TIER = 2  # tiers 1 and 2 are the words most people know
TIERS = (1, 2, 3, 4)

# --- a game ----------------------------------------------------------------------------

OPENING_MIN_REPLIES = 20  # the bot opens with a word whose last syllable starts ≥ 20 words
# An open word leaves a person plenty to answer: its last syllable starts at least 20
# common words. The opening is one when it can be, and the easy and medium bots play
# open words while they have one (`noitu.domain.noitu.bots.vocabulary`).
OPEN_MIN_COMMON_REPLIES = 20
MAX_CHAIN_WORDS = 300  # a chain this long ends as the player's win (`max_moves`)
SUGGESTION_LIMIT = 3  # words shown after a loss

# --- links and sessions ----------------------------------------------------------------

TOKEN_LIFETIME_S = 6 * 3600  # a game link expires after 6 hours
MAX_PLAYER_NAME_CHARACTERS = 64  # the first name a link carries


@dataclass(frozen=True, slots=True)
class TurnClock:
    """Each turn lasts 30 s; a move within 2 more seconds counts, without speed points."""

    turn_ms: int = 30_000
    grace_ms: int = 2_000


@dataclass(frozen=True, slots=True)
class SessionLimits:
    """How many games live at once and how fast a player may act (spec "Limits")."""

    max_playing: int = 2_000
    max_playing_per_user: int = 3
    move_interval_ms: int = 300  # at most one move per 300 ms per session
    starts_per_window: int = 10  # at most 10 starts per user per minute
    start_window_ms: int = 60_000
    idle_ms: int = 15 * 60_000  # an untouched game is given up after 15 minutes
    finished_ms: int = 2 * 60_000  # a finished game stays readable for 2 minutes


class Rejection(str, Enum):
    TOO_FEW_SYLLABLES = "too_few_syllables"
    NOT_IN_DICTIONARY = "not_in_dictionary"
    WRONG_LINK = "wrong_link"
    ALREADY_USED = "already_used"
    TIMEOUT = "timeout"


def typed_word_too_long(raw: str) -> bool:
    """Input over 64 characters (raw) or over 8 space-separated tokens (spec B2)."""
    return len(raw) > MAX_TYPED_CHARACTERS or len(raw.split()) > MAX_TYPED_TOKENS


def check_word(chain: Chain, typed: str) -> tuple[Rejection | None, int | None]:
    """Check a normalized word against the chain in the spec's order: syllables,
    dictionary, link, reuse. Answers (the rejection or None, the word's id if known)."""
    if len(syllables(typed)) < MIN_SYLLABLES:
        return Rejection.TOO_FEW_SYLLABLES, None
    lexicon = chain.lexicon
    word = lexicon.resolve(typed)
    if word is None:
        return Rejection.NOT_IN_DICTIONARY, None
    if lexicon.first[word] != chain.current:
        return Rejection.WRONG_LINK, word
    if word in chain.used:
        return Rejection.ALREADY_USED, word
    return None, word


def draw_opening(lexicon: Lexicon, rng: random.Random) -> int:
    """The bot's opening (spec B6): a random word whose last syllable starts at least 20
    words, chosen so that a person gets a game.

    The pool is the first non-empty one of:

    1. open common words (tier ≤ 2, the last syllable starts ≥ 20 common words) that
       offer no immediate win: no word answering them leaves the other side without a
       reply (`Lexicon.open_opening_candidates`);
    2. common words whose last syllable starts ≥ 20 words;
    3. any word whose last syllable starts ≥ 20 words.

    With none of these, the best-connected word: the most words start with its last
    syllable, ties going to the first in code-point order.
    """
    pool = (
        lexicon.open_opening_candidates
        or lexicon.common_opening_candidates
        or lexicon.opening_candidates
    )
    if pool:
        return pool[rng.randrange(len(pool))]
    degree = lexicon.out_degree
    last = lexicon.last
    return max(range(len(lexicon)), key=lambda w: (degree[last[w]], -w))


def suggestions(chain: Chain, syllable: int, limit: int = SUGGESTION_LIMIT) -> list[int]:
    """Up to 3 unused words answering a syllable, shown after a loss: common words
    first, then those that would have left the bot the fewest replies, then code-point
    order (spec B7). An empty list means the position was a true dead end."""
    lexicon = chain.lexicon
    tiers, last, out_degree = lexicon.tiers, lexicon.last, lexicon.out_degree
    used, used_from = chain.used, chain.used_from
    # The key is (tier, `chain.replies_after(w)`, w), spelled out: a word answering
    # `syllable` starts with it, so it loops back when its last syllable is `syllable`.
    # Every give-up ranks all the words left here, often hundreds.
    ranked = sorted(
        (tiers[w], out_degree[end] - used_from.get(end, 0) - (end == syllable), w)
        for w in lexicon.starting_with[syllable]
        if w not in used
        for end in (last[w],)
    )
    return [w for _, _, w in ranked[:limit]]
