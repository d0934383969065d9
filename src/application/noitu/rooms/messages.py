"""Every Vietnamese sentence group rooms say besides their errors, in one place."""

from __future__ import annotations

ANNOUNCEMENT = "Ván nối từ kết thúc: {name} thắng sau {words} từ!"
BAD_LEVEL = "Bot chỉ có thể là dễ (easy), vừa (medium) hoặc khó (hard)."


def announcement(name: str, words: int) -> str:
    return ANNOUNCEMENT.format(name=name, words=words)
