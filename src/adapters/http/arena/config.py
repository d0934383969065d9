"""`GET /arena/api/config`: the facts the page "Vào trận" shows but does not own, read
from their one home in the server so the page never keeps a copy: the built-in bots'
names (`adapters/arena/builtin.py`), the languages a bot may be written in
(`application/arena/languages.py`) and every figure an author meets — the match clock
(`application/arena/match_clock.py`), the per-owner limits
(`application/arena/limits.py`), a bot's and a build's sandbox (`adapters/arena`),
the ladder's rules and rating (`domain/arena/ladder`).

The figures are keyed by the names BOT-UPLOAD.md and the guide mark them with
(`<span data-limit="NAME">`), in the unit the name ends with; the page marks its own
numbers the same way and fills them from this answer, and the documents' test compares
their figures with `author_figures()`.

The answer is the same for everyone and changes only with a new release, so it may be
cached for a few minutes.
"""

from __future__ import annotations

import msgspec
from litestar import Response, Router, get

from noitu.adapters.arena.build import BuildLimits
from noitu.adapters.arena.builtin import BUILTIN_SOURCES
from noitu.adapters.arena.cgroups.limits import BOT_LIMITS, BUILD_LIMITS, MIB
from noitu.adapters.arena.languages import JVM_FLAGS
from noitu.adapters.arena.process import CLOSE_GRACE_S
from noitu.adapters.arena.sandbox import BOT_TMP_BYTES
from noitu.adapters.http.assets import RELEASE_CACHE
from noitu.adapters.http.paths import ARENA_API_PATH
from noitu.application.arena import limits
from noitu.application.arena.bot_matches import STDERR_KEPT_MS
from noitu.application.arena.languages import LANGUAGES
from noitu.application.arena.match_clock import MATCH_CLOCK
from noitu.application.arena.ports import MAX_REPLY_CODE_POINTS, STDERR_TAIL_BYTES
from noitu.application.arena.replay import RECEIVED_KEPT_BYTES
from noitu.domain.arena.ladder import version_check
from noitu.domain.arena.ladder.members import FAILURES_TO_SUSPEND, MAX_RANKED_PER_OWNER
from noitu.domain.arena.ladder.pairing import MATCHES_PER_PAIRING
from noitu.domain.arena.ladder.rating import FIRST_RATING, ORDINAL_SIGMAS
from noitu.domain.arena.ladder.scheduling import NEAREST
from noitu.domain.arena.match import FIRST_SEQUENCE_BETWEEN_BOTS

Figure = int | float


def _figure(value: float) -> Figure:
    """A whole number as an int (JSON shows `2`, not `2.0`)."""
    return int(value) if float(value).is_integer() else value


def _jvm_flag(name: str) -> str:
    return next(f.split("=", 1)[1] for f in JVM_FLAGS if f.startswith(f"-XX:{name}="))


def author_figures() -> dict[str, Figure]:
    """Every figure an author meets that is the same on every server, by its mark's name.
    (The per-address limits are the operator's settings and are not here.)"""
    jvm_max_ram_mb = int(_jvm_flag("MaxRAM").rstrip("m"))
    figures: dict[str, float] = {
        # per owner (B5)
        "uploads_per_minute": limits.UPLOADS_PER_WINDOW * 60_000 / limits.UPLOAD_WINDOW_MS,
        "bots_per_owner": limits.MAX_BOTS_PER_OWNER,
        "matches_at_once": limits.MAX_LIVE_MATCHES_PER_OWNER,
        "source_kib": limits.MAX_SOURCE_BYTES / limits.KIB,
        "jar_mib": limits.MAX_JAR_BYTES / limits.MIB,
        # the clock (A6, B2, B4)
        "first_reply_s": MATCH_CLOCK.first_reply_s,
        "reply_s": MATCH_CLOCK.reply_s,
        "person_turn_s": MATCH_CLOCK.person_turn_ms / 1000,
        "placement_s": MATCH_CLOCK.placement_ms / 1000,
        "turn_limit": MATCH_CLOCK.turn_limit,
        "exit_grace_s": CLOSE_GRACE_S,
        # a bot process (B2)
        "cpu": BOT_LIMITS.cpu_quota_us / BOT_LIMITS.cpu_period_us,
        "cpu_quota_ms": BOT_LIMITS.cpu_quota_us / 1000,
        "cpu_period_ms": BOT_LIMITS.cpu_period_us / 1000,
        "memory_mb": BOT_LIMITS.memory_bytes / MIB,
        "pids": BOT_LIMITS.pids_max,
        "tmp_mb": BOT_TMP_BYTES / MIB,
        "reply_chars": MAX_REPLY_CODE_POINTS,
        "reply_chars_over": MAX_REPLY_CODE_POINTS + 1,
        "stderr_kib": STDERR_TAIL_BYTES / 1024,
        "received_kept_kib": RECEIVED_KEPT_BYTES / 1024,
        "jvm_max_ram_mb": jvm_max_ram_mb,
        "jvm_heap_mib": jvm_max_ram_mb * int(_jvm_flag("MaxRAMPercentage")) / 100,
        # a compile (B2)
        "build_wall_s": BuildLimits().wall_s,
        "build_cpu": BUILD_LIMITS.cpu_quota_us / BUILD_LIMITS.cpu_period_us,
        "build_memory_gib": BUILD_LIMITS.memory_bytes / (1024 * MIB),
        "build_pids": BUILD_LIMITS.pids_max,
        "build_tmp_mib": BuildLimits().tmp_bytes / MIB,
        # what a build may leave (B10)
        "artefact_mib": limits.MAX_ARTEFACT_BYTES / limits.MIB,
        "java_classes": limits.MAX_JAVA_CLASSES,
        "jar_entries": limits.MAX_JAR_ENTRIES,
        # the protocol (B1)
        "first_sequence": FIRST_SEQUENCE_BETWEEN_BOTS,
        # the ladder (B8)
        "ranked_per_owner": MAX_RANKED_PER_OWNER,
        "failures_to_suspend": FAILURES_TO_SUSPEND,
        "pairing_matches": MATCHES_PER_PAIRING,
        "ladder_nearest": NEAREST,
        "rating_mu": FIRST_RATING.mu,
        "rating_sigma": FIRST_RATING.sigma,
        "ordinal_sigmas": ORDINAL_SIGMAS,
        "stderr_days": STDERR_KEPT_MS / 86_400_000,
        # the version check (B11), also a local series' verdict
        "version_check_min_games": version_check.MIN_MATCHES,
    }
    return {name: _figure(value) for name, value in figures.items()}


class LanguageOut(msgspec.Struct, frozen=True, rename="camel"):
    #: What the API calls it (a bot's `language`).
    id: str
    #: The name people read.
    title: str
    #: The upload's file name suffixes, the usual one first.
    suffixes: tuple[str, ...]


class ArenaConfig(msgspec.Struct, frozen=True, rename="camel"):
    #: The languages a bot may be written in (`application/arena/languages.py`).
    languages: tuple[LanguageOut, ...]
    #: The names a seat `{"kind": "builtin", "ref": name}` accepts, in the menu's order.
    builtins: tuple[str, ...]
    #: Every figure an author meets, by the name the documents mark it with (a JSON
    #: number: whole figures are written without a fraction).
    figures: dict[str, float]


def arena_config() -> ArenaConfig:
    return ArenaConfig(
        languages=tuple(
            LanguageOut(spec.language.value, spec.title, spec.suffixes)
            for spec in LANGUAGES.values()
        ),
        builtins=tuple(BUILTIN_SOURCES),
        figures=author_figures(),
    )


def config_router() -> Router:
    answer = arena_config()

    @get(
        "/config",
        summary="What the page shows but the server owns: languages, built-in bots, figures",
    )
    async def config() -> Response[ArenaConfig]:
        return Response(answer, headers={"Cache-Control": RELEASE_CACHE})

    return Router(path=ARENA_API_PATH, route_handlers=[config], tags=["arena"])
