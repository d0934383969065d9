"""The session view: what the page is told about a game (spec "Session view fields")."""

from __future__ import annotations

import msgspec

from noitu.domain.noitu.lexicon import Lexicon
from noitu.application.noitu.session import Session


class MeaningView(msgspec.Struct, frozen=True):
    pos: str
    gloss: str


class LinkView(msgspec.Struct, frozen=True):
    word: str
    by: str
    points: int
    meanings: list[MeaningView]


class SuggestionView(msgspec.Struct, frozen=True):
    word: str
    meanings: list[MeaningView]


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


def meanings_of(lexicon: Lexicon, word: int) -> list[MeaningView]:
    return [MeaningView(m.pos, m.gloss) for m in lexicon.meanings[word]]


def view_of(session: Session, now_ms: int) -> SessionView:
    game = session.game
    lexicon = game.lexicon
    words = lexicon.words
    shown = session.shown_links
    links = game.chain.links
    if len(shown) > len(links):
        shown.clear()
    shown.extend(
        LinkView(words[link.word], link.by.value, link.points, meanings_of(lexicon, link.word))
        for link in links[len(shown):]
    )
    return SessionView(
        session=session.id,
        player=session.ticket.first_name,
        difficulty=game.difficulty.value,
        status=game.status.value,
        end_reason=game.end_reason.value if game.end_reason else "",
        current=game.chain.current_syllable,
        chain=list(shown),
        score=game.score,
        turn_limit_ms=game.rules.turn_ms,
        deadline_ms=game.deadline_ms,
        server_now_ms=now_ms,
        suggestions=[
            SuggestionView(words[w], meanings_of(lexicon, w)) for w in game.suggestions
        ],
        score_reported=session.report.value,
    )
