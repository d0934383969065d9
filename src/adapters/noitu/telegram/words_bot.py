"""What the bot's word commands need (spec B11), bundled for the dispatcher; no aiogram
here, so the composition root can build it without importing aiogram."""

from __future__ import annotations

from dataclasses import dataclass

from noitu.application.noitu.words.change_words import ChangeWords
from noitu.application.noitu.words.file_report import FileReport
from noitu.application.noitu.words.look_up_word import LookUpWord
from noitu.application.noitu.words.reject_words import RejectWords


@dataclass(frozen=True)
class WordsBot:
    file_report: FileReport
    look_up: LookUpWord
    change_words: ChangeWords
    reject_words: RejectWords
    admin_chat: int | None  # NOITU_ADMIN_CHAT: where reported words are reviewed
