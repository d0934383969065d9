"""A reply line that is not one JSON object (spec A4's BAD_JSON), told in Vietnamese:
not UTF-8, nested too deep, the decoder's error near where it happened, a JSON value that
is not an object; and, when the line is plainly not JSON at all (debug text on stdout),
the hint that stdout is for ACTION lines only."""

from __future__ import annotations

import re

import msgspec

# Deeper nesting than this (in fields the server would ignore anyway) is refused as
# BAD_JSON, so that the verdict never depends on the server's own stack depth.
MAX_DEPTH = 256
# At most this many characters of the bot's own text are quoted in a detail.
QUOTE_LIMIT = 60
#: Added to a BAD_JSON whose line is plainly not JSON (debug text on stdout).
STDERR_HINT = "Dòng này không phải JSON: stdout chỉ dành cho dòng ACTION, log hãy ghi ra stderr."

_BYTE_AT = re.compile(r"\(byte (\d+)\)")
_KIND_BY_FIRST_BYTE = {
    ord("["): "một mảng",
    ord('"'): "một chuỗi",
    ord("t"): "true",
    ord("f"): "false",
    ord("n"): "null",
}
_REASONS = (
    ("invalid character", "có ký tự không hợp lệ"),
    ("invalid number", "có một số viết sai"),
    ("trailing comma", "có dấu phẩy thừa"),
    ("expected ':'", "thiếu dấu hai chấm"),
    ("expected ','", "thiếu dấu phẩy"),
    ("hex escape", "có chuỗi thoát \\u không hợp lệ"),
    ("escape", "có chuỗi thoát \\ không hợp lệ"),
    ("control character", "có ký tự điều khiển trong chuỗi"),
)


def quote(text: bytes | str, limit: int = QUOTE_LIMIT) -> str:
    """At most `limit` characters of the bot's text, for a detail."""
    if not isinstance(text, str):
        text = bytes(text).decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "…"


def unreadable(reply: bytes) -> str | None:
    """Why `reply` is refused before any decoding (not UTF-8, nested too deep), or None."""
    try:
        reply.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"Dòng trả lời không phải UTF-8 hợp lệ (byte lỗi ở vị trí {error.start})."
    if _too_deep(reply):
        return f"JSON lồng nhau quá sâu (hơn {MAX_DEPTH} tầng)."
    return None


def not_an_object(reply: bytes) -> str:
    """The detail for a JSON value that is not an object."""
    text = reply.strip(b" \t\r\n")
    kind = _KIND_BY_FIRST_BYTE.get(text[0], "một số")
    return _hinted(reply, f"Cần một đối tượng JSON {{...}}, nhưng nhận được {kind}: {quote(text, 40)}.")


def undecodable(reply: bytes, error: Exception) -> str:
    """The detail for a line the decoder refused with `error`."""
    message = str(error)
    where = _BYTE_AT.search(message)
    if isinstance(error, RecursionError):
        detail = "JSON lồng nhau quá sâu."
    elif "truncated" in message:
        detail = "JSON bị cụt: thiếu dấu đóng } hoặc ], hoặc thiếu một giá trị."
    elif "trailing characters" in message and where is not None:
        # msgspec's byte is one past the first extra character.
        at = max(int(where.group(1)) - 1, 0)
        detail = (
            f"Sau đối tượng JSON còn dữ liệu thừa (từ byte {at}): {quote(reply[at:], 40)}. "
            "Mỗi dòng chỉ được có đúng một đối tượng JSON."
        )
    else:
        reason = next((vi for en, vi in _REASONS if en in message), "không hợp lệ")
        if where is not None:
            at = int(where.group(1))
            near = quote(reply[max(at - 30, 0) : at + 30])
            detail = f"JSON {reason} (gần byte {at}): {near}"
        else:
            detail = f"JSON {reason}."
    return _hinted(reply, detail)


def _hinted(reply: bytes, detail: str) -> str:
    """`detail`, with the stderr hint when `reply` is plainly not JSON."""
    if not _plainly_not_json(reply):
        return detail
    return f"{detail if detail.endswith('.') else detail + '.'} {STDERR_HINT}"


def _plainly_not_json(reply: bytes) -> bool:
    """Not an object and not JSON at all: text such as `thinking about turn 0`."""
    text = reply.strip(b" \t\r\n")
    if text.startswith((b"{", b"[")):
        return False
    try:
        msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return True
    return False


def _too_deep(reply: bytes) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH. Only a reply with
    that many brackets is scanned, byte by byte (linear, whatever the bot sent)."""
    if len(reply) <= MAX_DEPTH or reply.count(b"[") + reply.count(b"{") <= MAX_DEPTH:
        return False
    depth = 0
    in_string = escaped = False
    for byte in reply:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x5B or byte == 0x7B:  # [ {
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte == 0x5D or byte == 0x7D:  # ] }
            depth -= 1
    return False
