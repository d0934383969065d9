"""What the players and the operators read about reported words (spec B11)."""

from __future__ import annotations

from noitu.domain.noitu.additions import Unfit
from noitu.domain.noitu.reports import DAILY_REPORTS
from noitu.domain.noitu.rules import MAX_TYPED_CHARACTERS, MAX_TYPED_TOKENS, MIN_SYLLABLES

REPORTED = "Cảm ơn bạn! Từ «{word}» đã được gửi để xem xét."
KNOWN = "Từ «{word}» đã có trong trò chơi rồi."
UNFIT: dict[Unfit, str] = {
    Unfit.TOO_LONG: f"Từ quá dài: tối đa {MAX_TYPED_CHARACTERS} ký tự và {MAX_TYPED_TOKENS} tiếng.",
    Unfit.ONE_SYLLABLE: f"Từ cần có ít nhất {MIN_SYLLABLES} tiếng.",
    Unfit.NOT_LETTERS: "Từ chỉ gồm chữ cái và dấu cách, không có số, dấu câu hay gạch nối.",
    Unfit.FOREIGN_LETTER: "Tiếng Việt không dùng các chữ f, j, w, z.",
    Unfit.NOT_VIETNAMESE: "Có tiếng trong từ này không phải tiếng Việt.",
}
TOO_MANY_REPORTS = f"Hôm nay bạn đã báo đủ {DAILY_REPORTS} từ rồi. Mai báo tiếp nhé!"
NOT_REFUSED = "Chỉ báo được từ vừa bị từ chối vì không có trong từ điển."
