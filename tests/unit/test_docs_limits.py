"""The authors' documents (BOT-UPLOAD.md, the guide) against the code: every limit an
author meets (the ladder's rules and rating among them) is written in both, each mention
is marked `<span data-limit="NAME">…</span>` and holds the figure the code defines; both
documents name the same failure codes, the same command-line flags and the JVM's flags
the server uses, and advise a search budget well inside the reply limit."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from noitu.adapters.arena.languages import JVM_FLAGS
from noitu.adapters.http.arena.config import author_figures
from noitu.application.arena.admission import ADDRESS_WINDOW_MS, AddressLimits
from noitu.domain.arena.failure import FailureCode

ROOT = Path(__file__).resolve().parents[2]
UPLOAD = ROOT / "BOT-UPLOAD.md"
GUIDE = ROOT / "assets" / "arena" / "bot-guide.html"
#: How each document writes a number: (thousands separator, decimal mark).
NUMBER_STYLE = {UPLOAD: (",", "."), GUIDE: (".", ",")}


def _exact(value: float) -> Fraction:
    return Fraction(value).limit_denominator(1000)


#: Every figure an author meets, by the name its mentions are marked with, in the unit
#: the name ends with: the ones the config route serves (read from the code's own
#: definitions), and the per-address limits, whose defaults the documents give.
LIMITS: dict[str, Fraction] = {name: _exact(value) for name, value in author_figures().items()}
LIMITS |= {
    # per client address, whatever the owner keys (B10; the operator's settings' defaults)
    "address_keys_per_minute": _exact(AddressLimits().owner_keys * 60_000 / ADDRESS_WINDOW_MS),
    "address_uploads_per_minute": _exact(AddressLimits().uploads * 60_000 / ADDRESS_WINDOW_MS),
    "address_rooms_per_minute": _exact(AddressLimits().rooms * 60_000 / ADDRESS_WINDOW_MS),
}

#: Figures the guide's worked examples derive from the limits (BOT-UPLOAD.md need not).
LIMITS |= {
    "first_sequence_p2": LIMITS["first_sequence"] + 1,
    "turns_per_side": LIMITS["turn_limit"] / 2,
}

#: Figures both documents derive from the limits: where a new bot starts on the table
#: (μ − 3σ of the first rating); the most failures in a row a suspended bot shows (the
#: pairing's other match still runs and is rated); and the search budget they advise —
#: at most half the reply limit, since a budget measured on the bot's own clock
#: overshoots on a loaded server (issue 30: a 700 ms budget showed a p99 of 963 ms).
LIMITS |= {
    "first_ordinal": LIMITS["rating_mu"] - LIMITS["ordinal_sigmas"] * LIMITS["rating_sigma"],
    "failures_when_suspended": LIMITS["failures_to_suspend"] + LIMITS["pairing_matches"] - 1,
    "search_budget_s": LIMITS["reply_s"] / 2,
}

#: What each document must mention at least once.
REQUIRED = set(LIMITS) - {"first_sequence_p2", "turns_per_side"}

#: Figures the code defines with more digits than a reader needs: a document may write
#: them rounded (σ₀ = 25/3 as 8.33), to the decimals it writes.
ROUNDED = {"rating_sigma"}

MARKED = re.compile(r'<span data-limit="([a-z_0-9]+)">([^<]*)</span>')


def _same(name: str, value: Fraction, text: str, document: Path) -> bool:
    """Whether `text` (read as `value`) is the code's figure, or for a ROUNDED one the
    figure rounded to the decimals written."""
    if value == LIMITS[name]:
        return True
    decimals = len(text.strip().partition(NUMBER_STYLE[document][1])[2])
    return name in ROUNDED and decimals > 0 and value == round(LIMITS[name], decimals)


def _number(text: str, document: Path) -> Fraction | None:
    thousands, decimal = NUMBER_STYLE[document]
    plain = text.strip().replace(thousands, "").replace(decimal, ".")
    if not re.fullmatch(r"\d+(\.\d+)?", plain):
        return None
    return Fraction(plain)


def _figures(document: Path) -> list[tuple[str, str]]:
    return MARKED.findall(document.read_text(encoding="utf-8"))


@pytest.mark.parametrize("document", [UPLOAD, GUIDE], ids=lambda p: p.name)
def test_every_marked_figure_is_the_codes_own(document: Path) -> None:
    problems = []
    for name, written in _figures(document):
        if name not in LIMITS:
            problems.append(f'{document.name}: data-limit="{name}" names no limit the test knows')
            continue
        value = _number(written, document)
        if value is None:
            problems.append(f'{document.name}: data-limit="{name}" holds {written!r}, not a number')
        elif not _same(name, value, written, document):
            problems.append(
                f'{document.name}: data-limit="{name}" says {written}, the code says {float(LIMITS[name]):g}'
            )
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("document", [UPLOAD, GUIDE], ids=lambda p: p.name)
def test_every_limit_is_written_in_the_document(document: Path) -> None:
    missing = REQUIRED - {name for name, _ in _figures(document)}
    assert not missing, f"{document.name} never mentions (marked): {sorted(missing)}"


#: A figure with a unit an author could take for a limit; each must be marked.
UNMARKED = re.compile(
    r"(?<![\w.,>=-])(\d[\d.,]*)\s*(?:giây|s\b|ms\b|KiB|MiB|MB|GiB|CPU|ký tự|characters|"
    r"tiến trình|processes|pids|lượt|turns|uploads|lần tải|bots?\b|rooms|phòng)"
)


def _prose(document: Path) -> str:
    """The document without marked figures, code and examples."""
    text = document.read_text(encoding="utf-8")
    text = MARKED.sub("", text)
    text = re.sub(r"<pre.*?</pre>", "", text, flags=re.DOTALL)
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    text = re.sub(r"<code>.*?</code>|`[^`\n]*`", "", text)
    return re.sub(r"<[^>]+>", "", text)


#: Figures that are not limits (examples, advice), with a few words around them.
NOT_LIMITS = {
    UPLOAD: ["a 700 ms budget gave a p99 reply time of 963 ms"],
    GUIDE: ["ngân sách 700 ms cho thời gian trả lời p99 là 963 ms", "khoảng 1 giây CPU", "chưa tới 200 ký tự"],
}


@pytest.mark.parametrize("document", [UPLOAD, GUIDE], ids=lambda p: p.name)
def test_no_figure_is_written_without_its_mark(document: Path) -> None:
    prose = _prose(document)
    for allowed in NOT_LIMITS[document]:
        assert allowed in prose, f"{document.name} no longer says {allowed!r}: update NOT_LIMITS"
        prose = prose.replace(allowed, "")
    loose = [f"{m.group(0)!r} in “…{prose[max(0, m.start() - 40):m.end() + 10]}…”" for m in UNMARKED.finditer(prose)]
    assert not loose, f"{document.name}: mark these with <span data-limit=...> or reword:\n" + "\n".join(loose)


def _failure_codes(document: Path) -> set[str]:
    return set(re.findall(r"\b(" + "|".join(c.value for c in FailureCode) + r")\b", document.read_text("utf-8")))


def test_both_documents_name_every_failure_code() -> None:
    every = {c.value for c in FailureCode}
    assert _failure_codes(UPLOAD) == every, f"BOT-UPLOAD.md misses {sorted(every - _failure_codes(UPLOAD))}"
    assert _failure_codes(GUIDE) == every, f"the guide misses {sorted(every - _failure_codes(GUIDE))}"


#: Where BOT-UPLOAD.md turns to the operator (container and sandbox flags follow).
OPERATOR_PART = "## 7. Preparing a server to run uploaded bots"


def _cli_flags(document: Path) -> set[str]:
    text = document.read_text("utf-8")
    if document is UPLOAD:
        assert OPERATOR_PART in text, f"BOT-UPLOAD.md has no heading {OPERATOR_PART!r}"
        text = text.split(OPERATOR_PART)[0]
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*[a-z]", text))


def test_both_documents_name_the_same_command_line_flags() -> None:
    upload, guide = _cli_flags(UPLOAD), _cli_flags(GUIDE)
    assert upload == guide, f"only in BOT-UPLOAD.md: {sorted(upload - guide)}; only in the guide: {sorted(guide - upload)}"


@pytest.mark.parametrize("document", [UPLOAD, GUIDE], ids=lambda p: p.name)
def test_the_jvm_flags_written_are_the_servers(document: Path) -> None:
    written = set(re.findall(r"-XX:[+-]?\w+(?:=\w+)?", document.read_text("utf-8")))
    assert written, f"{document.name} names no JVM flag"
    assert written <= set(JVM_FLAGS), f"{document.name} names JVM flags the server does not use: {sorted(written - set(JVM_FLAGS))}"


SAMPLES = ROOT / "assets" / "bot-examples"


def test_the_samples_advise_the_documents_search_budget() -> None:
    """A sample's comments speak of seconds only as the documents do: the reply limits,
    and the search budget they advise (tactical.py, where a search would go, says it)."""
    allowed = {LIMITS[name] for name in ("search_budget_s", "reply_s", "first_reply_s")}
    said: dict[str, set[Fraction]] = {}
    for sample in sorted(SAMPLES.iterdir()):
        figures = re.findall(r"(\d+(?:[.,]\d+)?)\s*giây", sample.read_text("utf-8"))
        said[sample.name] = {Fraction(f.replace(",", ".")) for f in figures}
    assert all(found <= allowed for found in said.values()), said
    assert LIMITS["search_budget_s"] in said["tactical.py"], "tactical.py no longer advises the search budget"
