"""The HMAC token of B8: format, claims, expiry, tampering, key derivation."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from noitu.adapters.noitu.token_signer import HmacTokenSigner, key_from_bot_token
from noitu.application.noitu.errors import BadToken, TokenExpired
from noitu.application.noitu.session import GameMessage, Ticket

KEY = b"k" * 32
NOW = 1_800_000_000


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed(claims: dict, key: bytes = KEY) -> str:
    body = b64(json.dumps(claims).encode())
    return f"{body}.{b64(hmac.new(key, body.encode(), hashlib.sha256).digest())}"


def test_round_trip_for_chat_and_inline_messages():
    signer = HmacTokenSigner(KEY)
    chat = Ticket(7, "Lan", GameMessage(chat_id=-100, message_id=5, topic_id=3), NOW + 60)
    inline = Ticket(8, "", GameMessage(inline_message_id="BAAx"), NOW + 60)
    for ticket in (chat, inline):
        token = signer.issue(ticket)
        assert "=" not in token and token.count(".") == 1
        assert signer.verify(token, NOW) == ticket


def test_the_body_is_the_spec_claims():
    token = HmacTokenSigner(KEY).issue(Ticket(7, "Lan", GameMessage(chat_id=1, message_id=2), NOW))
    body = token.split(".")[0]
    assert json.loads(base64.urlsafe_b64decode(body + "==")) == {"u": 7, "n": "Lan", "c": 1, "m": 2, "e": NOW}


def test_expiry():
    signer = HmacTokenSigner(KEY)
    token = signed({"u": 1, "c": 1, "m": 1, "e": NOW})
    assert signer.verify(token, NOW).user_id == 1
    with pytest.raises(TokenExpired):
        signer.verify(token, NOW + 1)


@pytest.mark.parametrize(
    "claims",
    [
        {"u": 0, "c": 1, "m": 1, "e": NOW},
        {"u": True, "c": 1, "m": 1, "e": NOW},
        {"u": "1", "c": 1, "m": 1, "e": NOW},
        {"u": 1, "e": NOW},
        {"u": 1, "c": 1, "m": 1, "i": "x", "e": NOW},
        {"u": 1, "c": 1, "e": NOW},
        {"u": 1, "i": "", "e": NOW},
        {"u": 1, "c": 1, "m": 1},
        {"u": 1, "c": 1, "m": 1, "e": NOW, "n": "x" * 65},
        {"u": 1, "c": 1, "m": 1, "e": NOW, "t": 0},
        {"u": 1, "c": 1, "m": 1, "e": NOW, "s": 100},
        [1, 2],
    ],
)
def test_bad_claims_are_bad_token_even_when_expired(claims):
    with pytest.raises(BadToken):
        HmacTokenSigner(KEY).verify(signed(claims), NOW + 10_000)


def test_wrong_key_and_oversized_tokens():
    signer = HmacTokenSigner(KEY)
    with pytest.raises(BadToken):
        signer.verify(signed({"u": 1, "c": 1, "m": 1, "e": NOW}, key=b"x" * 32), NOW)
    big = signed({"u": 1, "c": 1, "m": 1, "e": NOW, "n": "a" * 64, "i": None})
    with pytest.raises(BadToken):
        signer.verify(big + "A" * 1024, NOW)
    with pytest.raises(BadToken):
        signer.verify("ü.ü", NOW)


def test_key_derivation_and_minimum_length():
    expected = hmac.new(b"123:abc", b"noitu/token/v1", hashlib.sha256).digest()
    assert key_from_bot_token("123:abc") == expected
    with pytest.raises(ValueError):
        HmacTokenSigner(b"short")


def test_a_room_link_carries_r_1_and_nothing_else_is_a_room_claim():
    signer = HmacTokenSigner(KEY)
    room = Ticket(7, "Lan", GameMessage(chat_id=-100, message_id=5), NOW + 60, room=True)
    token = signer.issue(room)
    body = token.split(".")[0]
    assert json.loads(base64.urlsafe_b64decode(body + "=="))["r"] == 1
    assert signer.verify(token, NOW) == room
    assert not signer.verify(signed({"u": 1, "c": 1, "m": 1, "e": NOW}), NOW).room
    for bad in (0, 2, True, "1"):
        with pytest.raises(BadToken):
            signer.verify(signed({"u": 1, "c": 1, "m": 1, "e": NOW, "r": bad}), NOW)


def test_a_daily_link_carries_d_1_and_is_never_also_a_room_link():
    signer = HmacTokenSigner(KEY)
    ticket = Ticket(7, "Lan", GameMessage(chat_id=1, message_id=2), NOW + 60, daily=True)
    token = signer.issue(ticket)
    body = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert body["d"] == 1 and "r" not in body
    assert signer.verify(token, NOW) == ticket
    claims = {"u": 7, "c": 1, "m": 2, "e": NOW + 60}
    assert not signer.verify(signed(claims), NOW).daily
    for bad in ({"d": 2}, {"d": True}, {"d": "1"}, {"d": 1, "r": 1}):
        with pytest.raises(BadToken):
            signer.verify(signed({**claims, **bad}), NOW)
    with pytest.raises(ValueError):
        signer.issue(Ticket(7, "", GameMessage(chat_id=1, message_id=2), NOW, room=True, daily=True))
