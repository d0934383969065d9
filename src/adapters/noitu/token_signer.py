"""The HMAC token signer: game links that name the player and the game message (B8).

A token is base64url(JSON claims) "." base64url(HMAC-SHA256(key, first part)), both
without padding. Claims: u user id, n first name, c+m chat and message id or i inline
message id, t forum topic, e expiry in Unix seconds, r 1 on a room card's link (B10), d 1 on a daily game's
link (B13); a link is never both.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json

from noitu.application.noitu.errors import BadToken, TokenExpired
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.domain.noitu.rules import MAX_PLAYER_NAME_CHARACTERS

MAX_TOKEN_BYTES = 1024
MIN_SECRET_BYTES = 32
KEY_DERIVATION_LABEL = b"noitu/token/v1"
CLAIM_KEYS = frozenset({"u", "n", "c", "m", "i", "t", "e", "r", "d"})
ROOM_CLAIM = 1
DAILY_CLAIM = 1


def key_from_bot_token(bot_token: str) -> bytes:
    """The signing key when no NOITU_GAME_SECRET is set: HMAC(bot token, label)."""
    return hmac.new(bot_token.encode(), KEY_DERIVATION_LABEL, hashlib.sha256).digest()


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    if not text or "=" in text:
        raise ValueError("empty or padded")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ticket_from_claims(claims: object) -> Ticket:
    if not isinstance(claims, dict) or not CLAIM_KEYS.issuperset(claims):
        raise BadToken()
    user, name, expiry = claims.get("u"), claims.get("n", ""), claims.get("e")
    chat, message, inline, topic = claims.get("c"), claims.get("m"), claims.get("i"), claims.get("t")
    if not (_is_int(user) and user > 0 and _is_int(expiry)):
        raise BadToken()
    if not isinstance(name, str) or len(name) > MAX_PLAYER_NAME_CHARACTERS:
        raise BadToken()
    if topic is not None and not (_is_int(topic) and topic > 0):
        raise BadToken()
    room = claims.get("r")
    if room is not None and not (_is_int(room) and room == ROOM_CLAIM):
        raise BadToken()
    daily = claims.get("d")
    if daily is not None and not (_is_int(daily) and daily == DAILY_CLAIM and room is None):
        raise BadToken()
    by_chat = chat is not None or message is not None
    if by_chat == (inline is not None):
        raise BadToken()
    if by_chat and not (_is_int(chat) and chat != 0 and _is_int(message) and message > 0):
        raise BadToken()
    if inline is not None and not (isinstance(inline, str) and 0 < len(inline) <= 256):
        raise BadToken()
    address = GameMessage(chat_id=chat, message_id=message, inline_message_id=inline, topic_id=topic)
    return Ticket(
        user_id=user,
        first_name=name,
        message=address,
        expires_at=expiry,
        room=room is not None,
        daily=daily is not None,
    )


class HmacTokenSigner:
    """Signs and verifies game links; implements the TokenIssuer and TokenVerifier ports."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_SECRET_BYTES:
            raise ValueError(f"the signing key needs at least {MIN_SECRET_BYTES} bytes")
        self._key = key

    def _mac(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode("ascii"), hashlib.sha256).digest()

    def issue(self, ticket: Ticket) -> str:
        address = ticket.message
        claims: dict[str, object] = {"u": ticket.user_id}
        if ticket.first_name:
            claims["n"] = ticket.first_name[:MAX_PLAYER_NAME_CHARACTERS]
        if address.inline_message_id:
            claims["i"] = address.inline_message_id
        else:
            claims["c"], claims["m"] = address.chat_id, address.message_id
        if address.topic_id:
            claims["t"] = address.topic_id
        claims["e"] = ticket.expires_at
        if ticket.room and ticket.daily:
            raise ValueError("a link is a room card's or a daily game's, not both")
        if ticket.room:
            claims["r"] = ROOM_CLAIM
        if ticket.daily:
            claims["d"] = DAILY_CLAIM
        body = _b64encode(json.dumps(claims, separators=(",", ":"), ensure_ascii=False).encode())
        return f"{body}.{_b64encode(self._mac(body))}"

    def verify(self, token: str, now_s: int) -> Ticket:
        if len(token.encode("utf-8", "surrogatepass")) > MAX_TOKEN_BYTES or token.count(".") != 1:
            raise BadToken()
        body, _, signature = token.partition(".")
        try:
            mac = _b64decode(signature)
            claims = json.loads(_b64decode(body))
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise BadToken() from None
        if not hmac.compare_digest(mac, self._mac(body)):
            raise BadToken()
        ticket = _ticket_from_claims(claims)
        if now_s > ticket.expires_at:
            raise TokenExpired()
        return ticket
