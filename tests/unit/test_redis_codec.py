"""The Redis session snapshot: a chain's kept encoding gives the same bytes as encoding
it whole, whatever happened to the chain since, and reads back as the same session."""

from __future__ import annotations

import random

import msgspec
from test_session_storage import T0, played_session, same_state

from noitu.adapters.noitu.redis import codec as codec_module
from noitu.adapters.noitu.redis.codec import ChainEncodings, SessionCodec
from noitu.application.noitu.session import Session
from noitu.domain.noitu.bots import BotIndex, make_opponents
from noitu.domain.noitu.lexicon import Lexicon
from noitu.domain.noitu.opponent import Difficulty
from noitu.domain.noitu.rules import TurnClock


def moves(lexicon: Lexicon, session: Session, count: int) -> list[Session]:
    """Up to `count` moves, each on a copy of the one before (as the unit of work
    changes a session); every copy on the way."""
    opponent = make_opponents(BotIndex(lexicon))[Difficulty.MEDIUM]
    rng = random.Random(7)
    seen = []
    now = T0 + 1_000
    for _ in range(count):
        if session.game.is_over:
            break
        session = session.copy()
        word = next(session.game.chain.legal_words(), None)
        if word is None:
            break
        session.game.play(lexicon.words[word], now, opponent, rng)
        now += 1_000
        seen.append(session)
    return seen


def test_the_kept_encoding_is_the_whole_encoding(little: Lexicon) -> None:
    kept = SessionCodec(little, TurnClock(), kept_chains=10)
    whole = SessionCodec(little, TurnClock(), kept_chains=0)
    start = played_session(little)
    sessions = [start, *moves(little, start, 6)]
    assert len(sessions[-1].game.chain) > len(start.game.chain)
    for session in sessions:
        data = kept.encode(session)
        assert data == whole.encode(session)
        same_state(kept.decode(session.id, data, session.version), session)


def test_a_chain_decoded_again_or_shorter_is_encoded_whole(little: Lexicon) -> None:
    kept = SessionCodec(little, TurnClock(), kept_chains=10)
    whole = SessionCodec(little, TurnClock(), kept_chains=0)
    start = played_session(little)
    later = moves(little, start, 3)[-1]
    kept.encode(later)
    # The same words as new objects (another instance's snapshot, read back): the kept
    # text is not trusted, and the bytes are still right.
    reread = kept.decode(later.id, kept.encode(later), later.version)
    assert reread.game.chain.links[-1] is not later.game.chain.links[-1]
    assert kept.encode(reread) == whole.encode(reread)
    # An older, shorter copy of the same session after a longer one.
    assert kept.encode(start) == whole.encode(start)
    # A different game under the same id, as long as the kept one.
    other = played_session(little)
    other.game.chain.links[-1] = type(other.game.chain.links[-1])(
        other.game.chain.links[-1].word, other.game.chain.links[-1].by, 99
    )
    assert kept.encode(other) == whole.encode(other)


def test_kept_encodings_are_bounded_and_forgotten(little: Lexicon) -> None:
    chains = ChainEncodings(2)
    links = played_session(little).game.chain.links
    for session_id in ("a", "b", "c"):
        chains.encode(session_id, links)
    assert list(chains._kept) == ["b", "c"]
    chains.forget("b")
    assert list(chains._kept) == ["c"]
    assert msgspec.json.decode(chains.encode("c", [])) == []


def test_the_written_records_have_the_read_records_fields() -> None:
    """Writing uses subclasses of the read records whose chain is made beforehand: they
    rely on msgspec keeping an overridden field in its place, with its defaults."""

    def shape(record: type) -> list[tuple[str, object]]:
        return [
            (
                field.name,
                field.default_factory() if field.default_factory is not msgspec.NODEFAULT
                else field.default,
            )
            for field in msgspec.structs.fields(record)
        ]

    for name in ("_GameRecord", "_SessionRecord"):
        read, write = getattr(codec_module, name), getattr(codec_module, name + "Out")
        assert shape(read) == shape(write)
        assert read.__struct_config__.omit_defaults == write.__struct_config__.omit_defaults


def test_a_chain_holding_a_word_removed_since_still_decodes() -> None:
    """B11: removing a word stops new moves only; a game stored on Redis keeps it."""
    from noitu.adapters.noitu.dictionary_file import lexicon_from_lines
    from noitu.domain.noitu.additions import Action, Overlay, WordChange
    from support.dictionaries import LITTLE

    lexicon = lexicon_from_lines(LITTLE.splitlines(), "little")
    session = played_session(lexicon)
    codec = SessionCodec(lexicon, TurnClock(), kept_chains=0)
    data = codec.encode(session)
    removed = [link.word.text for link in session.game.chain.links][-1]
    assert Overlay(lexicon).apply(WordChange(removed, Action.REMOVE, 4, T0))
    decoded = codec.decode(session.id, data, session.version)
    same_state(decoded, session)
    assert decoded.refused == "đầu gối"
