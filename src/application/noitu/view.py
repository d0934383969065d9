"""The session view: what the page is told about a game (spec "Session view fields")."""

from __future__ import annotations

import msgspec

from noitu.application.noitu.session import Session
from noitu.domain.noitu.chain import Link
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.players_day import iso_date

CACHED_CHAINS = 4096


# The views of words are immutable values holding only strings, numbers and tuples of
# such values: they can take part in no reference cycle, so they are kept out of the
# garbage collector (`gc=False`). A session's cached chain views then cost its full
# collections nothing, where they were two tracked objects a word (the full passes
# then stalled requests under a load of short games).
class MeaningView(msgspec.Struct, frozen=True, gc=False):
    pos: str
    gloss: str


class LinkView(msgspec.Struct, frozen=True, gc=False):
    word: str
    by: str
    points: int
    meanings: tuple[MeaningView, ...]


class SuggestionView(msgspec.Struct, frozen=True, gc=False):
    word: str
    meanings: tuple[MeaningView, ...]


class SessionView(msgspec.Struct, frozen=True):
    session: str
    player: str
    difficulty: str
    status: str
    end_reason: str
    current: str
    chain: list[LinkView]
    score: int
    turn_limit_ms: int
    deadline_ms: int
    server_now_ms: int
    suggestions: list[SuggestionView]
    score_reported: str
    # Ours, beyond the spec's fields: the session that a newer start of the same
    # player put in this one's place ("" when none). The game still ended as the spec
    # says (`gave_up` or `no_legal_move`); this tells the page why.
    replaced_by: str = ""
    # Ours: the day (YYYY-MM-DD) of a daily game (B13), "" for a solo game; the page
    # shows the daily game's end screen for it.
    day: str = ""


def meanings_of(lexicon: Lexicon, word: int) -> tuple[MeaningView, ...]:
    return tuple(MeaningView(m.pos, m.gloss) for m in lexicon.meanings[word])


def link_view(lexicon: Lexicon, link: Link) -> LinkView:
    return LinkView(link.word.text, link.by.value, link.points, meanings_of(lexicon, link.word.id))


class SessionViews:
    """Builds session views. A chain only grows, so the view of its words is built once
    per session and kept here (a bounded, per-process cache of derived data: any
    instance can rebuild it from the session)."""

    def __init__(self, cached_chains: int = CACHED_CHAINS) -> None:
        self._limit = cached_chains
        self._chains: dict[str, list[LinkView]] = {}

    def _chain(self, session: Session) -> list[LinkView]:
        links = session.game.chain.links
        lexicon = session.game.lexicon
        shown = self._chains.pop(session.id, None)
        if shown is None or len(shown) > len(links) or (
            shown and shown[-1].word != links[len(shown) - 1].word.text
        ):
            shown = []
        shown.extend(link_view(lexicon, link) for link in links[len(shown):])
        self._chains[session.id] = shown  # newest last: the oldest goes first
        if len(self._chains) > self._limit:
            del self._chains[next(iter(self._chains))]
        return shown

    def of(self, session: Session, now_ms: int) -> SessionView:
        game = session.game
        lexicon = game.lexicon
        words = lexicon.words
        return SessionView(
            session=session.id,
            player=session.ticket.first_name,
            difficulty=game.difficulty.value,
            status=game.status.value,
            end_reason=game.end_reason.value if game.end_reason else "",
            current=game.chain.current_syllable,
            chain=list(self._chain(session)),
            score=game.score,
            turn_limit_ms=game.clock.turn_ms,
            deadline_ms=game.deadline_ms,
            server_now_ms=now_ms,
            suggestions=[
                SuggestionView(words[w], meanings_of(lexicon, w)) for w in game.suggestions
            ],
            score_reported=session.report.value,
            replaced_by=session.replaced_by,
            day=iso_date(session.day) if session.day else "",
        )
