"""Settings from the environment, validated once at start (spec "Setup").

Bad values that would make the server misbehave stop it with one line per problem.
A bad GAME_BASE_URL or a short NOITU_GAME_SECRET does not stop it: the spec says they
disable the game, with a warning, while the bot keeps answering /noitu.

Only the environment is here: what a process was started as (a web server, a worker
and its matches at once, a CLI command and its --no-sandbox) is its role,
`entrypoints/role.py`, which the entry point gives the container.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from noitu.adapters.http.paths import WEBHOOK_PATH
from noitu.adapters.noitu.telegram.links import DEFAULT_DAILY_GAME
from noitu.adapters.noitu.telegram.links import GAME_SHORT_NAME as SOLO_GAME
from noitu.adapters.noitu.token_signer import MIN_SECRET_BYTES
from noitu.application.arena.admission import AddressLimits
from noitu.application.arena.retention import Retention
from noitu.domain.noitu.rules import SessionLimits, TurnClock

BASE_URL_PATTERN = re.compile(
    r"^https://(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?)"
    r"(?P<path>(?:/[A-Za-z0-9._~%!$&'()*+,;=:@-]+)*)$"
)
TELEGRAM_MODES = ("polling", "webhook", "none")
STORES = ("memory", "redis")
ARENA_QUEUES = ("local", "saq")
#: Where the arena keeps its files (NOITU_ARENA_FILES; spec B9).
ARENA_FILES = ("directory", "database")
MAX_INSTANCE_NAME = 64  # the archive's `runner` column
LOG_FORMATS = ("json", "console")
#: The data directory's room for uploaded bots by default: 2 GiB.
DEFAULT_ARENA_UPLOADS_MIB = 2048
# A Telegram game's short name, as BotFather takes it.
DAILY_GAME_PATTERN = re.compile(r"[A-Za-z0-9_]{1,64}")


class SettingsError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Settings:
    bot_token: str = ""
    game_base_url: str = ""
    game_secret: bytes = b""
    modules: tuple[str, ...] = ()
    dictionary: str = ""
    turn_ms: int = TurnClock().turn_ms
    grace_ms: int = TurnClock().grace_ms
    host: str = ""
    port: int = 8080
    # The server's own connections (spec B10; docs/operating.md): a WebSocket message
    # from a client larger than this closes the socket with 1009; a connection that has
    # not sent a whole request head this long after it opened (or after its last
    # answer) is closed; beyond this many open connections a new one is refused at once;
    # a request head larger than this is answered 431 and its connection closed; a
    # request body must have come whole within `body_timeout_s` plus a second for every
    # `body_min_kib_per_s` KiB of it (else the connection is closed, with 408 when
    # nothing was answered yet).
    ws_max_message_bytes: int = 4096
    head_timeout_s: float = 10.0
    max_connections: int = 1000
    max_head_bytes: int = 16 * 1024
    body_timeout_s: float = 10.0
    body_min_kib_per_s: int = 16
    log_format: str = ""
    log_level: str = "INFO"
    access_log: bool = True
    telegram_mode: str = "polling"
    telegram_api_base: str = ""
    store: str = "memory"
    redis_url: str = ""
    # The operators' Telegram chat (NOITU_ADMIN_CHAT, its numeric id): each newly
    # reported word is posted there for review (spec B11); None: no review chat.
    admin_chat: int | None = None
    # The daily game's Telegram short name (NOITU_DAILY_GAME, spec B13): the second game
    # the operator creates with BotFather; "" (set empty): /noitungay says it is off.
    daily_game: str = DEFAULT_DAILY_GAME
    max_sessions: int = SessionLimits().max_playing
    cache_dir: Path | None = None  # where built Lexicons are kept; None: nowhere
    # The arena's data directory (uploaded bots, artefacts, replays; spec B4) and its
    # database (a SQLAlchemy async URL; "": the SQLite file in the data directory).
    data_dir: Path = field(default_factory=lambda: _default_data_dir(os.environ))
    arena_database_url: str = ""
    # Where the arena's files (sources, artefacts, replays) live (NOITU_ARENA_FILES):
    # "directory" (the data directory, the embedded default) or "database" (blobs in the
    # arena's database, the data directory only this machine's cache; spec B9).
    arena_files: str = "directory"
    # What uploaded bots (sources and artefacts) may take in the data directory, in
    # bytes (NOITU_ARENA_UPLOADS_MIB, in MiB); past it uploads are refused (B10).
    arena_uploads_max_bytes: int = DEFAULT_ARENA_UPLOADS_MIB * 1024 * 1024
    # Retention (B14): rooms' replays kept NOITU_ARENA_REPLAY_DAYS days, each bot's
    # newest NOITU_ARENA_LADDER_REPLAYS ladder replays; the hourly sweep deletes the rest.
    arena_retention: Retention = field(default_factory=Retention)
    # This instance's name among those sharing one arena database (NOITU_INSTANCE;
    # default: host name and port). A restart ends only its own live matches.
    instance: str = ""
    # Where the arena's jobs (builds of uploads) run (NOITU_ARENA_QUEUE, spec B9): "local",
    # in this process (the embedded default), or "saq", on `noitu arena worker`
    # processes through Redis (needs NOITU_STORE=redis and a PostgreSQL database). A
    # job no worker takes within `arena_job_take_s` (NOITU_ARENA_JOB_TAKE_SECONDS, 30 by
    # default) is given up: the upload answers 503 busy.
    arena_queue: str = "local"
    arena_job_take_s: float = 30.0
    # This process's name when it runs as `noitu arena worker` (NOITU_INSTANCE;
    # default host name and process id: several workers may share a machine).
    worker_instance: str = ""
    # Whether this instance drives the ladder (NOITU_ARENA_LADDER, on by default): its
    # matches then fill the slots the rooms leave idle, between the ranked bots, while
    # at least one uploaded bot is ranked (the built-ins alone play nothing).
    arena_ladder: bool = True
    # Benchmark only (NOITU_BENCH_CPU=1): `noitu serve` counts its CPU per route and
    # answers GET /_bench/cpu with the totals (noitu.bench.server_cpu). Off by default.
    bench_cpu: bool = False
    # Admission control per client address (arena, spec B10): owner keys made, uploads
    # and rooms opened per minute; and the reverse proxies whose X-Forwarded-For's last
    # hop names the client (none: the header is ignored, the socket's peer counts).
    address_limits: AddressLimits = field(default_factory=AddressLimits)
    trusted_proxies: frozenset[str] = frozenset()
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def local_play(self) -> bool:
        """No bot token: the local play mode on 127.0.0.1, without Telegram."""
        return not self.bot_token

    @property
    def noitu_enabled(self) -> bool:
        """MODULES empty or naming noitu."""
        return not self.modules or "noitu" in self.modules

    @property
    def arena_enabled(self) -> bool:
        """MODULES empty or naming arena."""
        return not self.modules or "arena" in self.modules

    @property
    def game_disabled_reason(self) -> str:
        """Why the game page is off in production, or "" when it is on."""
        if self.local_play:
            return ""
        if not self.game_base_url:
            return "GAME_BASE_URL is unset or invalid"
        if self.game_secret and len(self.game_secret) < MIN_SECRET_BYTES:
            return f"NOITU_GAME_SECRET is shorter than {MIN_SECRET_BYTES} bytes"
        return ""

    @property
    def game_enabled(self) -> bool:
        return self.noitu_enabled and not self.game_disabled_reason

    @property
    def telegram_enabled(self) -> bool:
        """A bot token and nối từ on: the bot runs and scores go to Telegram."""
        return bool(self.bot_token) and self.noitu_enabled

    @property
    def score_reports(self) -> str:
        """Where scores go: "telegram", or "log" (local play, or nối từ off)."""
        return "telegram" if self.telegram_enabled else "log"

    @property
    def telegram_problem(self) -> str:
        """Why the chosen Telegram mode cannot run as asked, or ""."""
        if self.telegram_mode == "webhook" and not self.game_base_url:
            return "webhook mode needs a valid GAME_BASE_URL: no updates will arrive"
        return ""

    @property
    def effective_telegram_mode(self) -> str:
        return "none" if self.telegram_problem else self.telegram_mode

    @property
    def webhook_url(self) -> str:
        if self.effective_telegram_mode != "webhook":
            return ""
        return f"{self.game_base_url}{WEBHOOK_PATH}"

    @property
    def session_limits(self) -> SessionLimits:
        return SessionLimits(max_playing=self.max_sessions)

    @property
    def turn_clock(self) -> TurnClock:
        return TurnClock(turn_ms=self.turn_ms, grace_ms=self.grace_ms)

    @property
    def bind_host(self) -> str:
        return self.host or ("127.0.0.1" if self.local_play else "0.0.0.0")

    @property
    def effective_log_format(self) -> str:
        return self.log_format or ("console" if self.local_play else "json")


def _seconds_to_ms(name: str, raw: str, minimum: float, problems: list[str]) -> int | None:
    try:
        value = float(raw)
    except ValueError:
        problems.append(f"{name}={raw!r}: expected a number of seconds")
        return None
    if not (minimum <= value <= 3600):
        problems.append(f"{name}={raw!r}: expected between {minimum:g} and 3600 seconds")
        return None
    return round(value * 1000)


def _whole(name: str, raw: str, low: int, high: int, problems: list[str]) -> int | None:
    raw = raw.strip()
    if raw.isdigit() and low <= int(raw) <= high:
        return int(raw)
    problems.append(f"{name}={raw!r}: expected a whole number from {low} to {high}")
    return None


#: The server I/O settings (spec B10): environment variable, field, and the range a
#: whole number must fall in (None: seconds, 0.1 to 3600).
SERVER_IO = (
    ("NOITU_WS_MAX_MESSAGE_BYTES", "ws_max_message_bytes", (128, 16 * 1024 * 1024)),
    ("NOITU_HEAD_TIMEOUT_SECONDS", "head_timeout_s", None),
    ("NOITU_MAX_CONNECTIONS", "max_connections", (1, 1_000_000)),
    ("NOITU_MAX_HEAD_BYTES", "max_head_bytes", (1024, 1024 * 1024)),
    ("NOITU_BODY_TIMEOUT_SECONDS", "body_timeout_s", None),
    ("NOITU_BODY_MIN_KIB_PER_SECOND", "body_min_kib_per_s", (1, 1024 * 1024)),
)


def _server_io(env: Mapping[str, str], values: dict[str, object], problems: list[str]) -> None:
    """The bounds on the server's own connections (spec B10)."""
    default = Settings()
    for name, key, whole in SERVER_IO:
        if whole is not None:
            raw = env.get(name, str(getattr(default, key)))
            if (number := _whole(name, raw, *whole, problems)) is not None:
                values[key] = number
            continue
        raw = env.get(name, f"{getattr(default, key):g}").strip()
        try:
            seconds = float(raw)
        except ValueError:
            seconds = -1.0
        if 0.1 <= seconds <= 3600:
            values[key] = seconds
        else:
            problems.append(f"{name}={raw!r}: expected 0.1 to 3600 seconds")


def _choice(name: str, raw: str, options: tuple[str, ...], problems: list[str]) -> str:
    value = raw.strip().lower()
    if value not in options:
        problems.append(f"{name}={raw!r}: expected one of {', '.join(options)}")
    return value


def _cache_dir(env: Mapping[str, str]) -> Path | None:
    """NOITU_CACHE_DIR ("off" disables); else $XDG_CACHE_HOME/noitu or ~/.cache/noitu."""
    configured = env.get("NOITU_CACHE_DIR", "").strip()
    if configured.lower() == "off":
        return None
    if configured:
        return Path(configured)
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "noitu"


def _default_data_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "noitu"


def _data_dir(env: Mapping[str, str]) -> Path:
    """NOITU_DATA_DIR; else $XDG_DATA_HOME/noitu or ~/.local/share/noitu."""
    configured = env.get("NOITU_DATA_DIR", "").strip()
    path = Path(configured).expanduser() if configured else _default_data_dir(env)
    return path.absolute()


def _arena_database(env: Mapping[str, str], data_dir: Path, problems: list[str]) -> str:
    """NOITU_ARENA_DATABASE (sqlite:///PATH or postgresql://…) in the async driver's
    form; else the SQLite file in the data directory."""
    # Imported here: SQLAlchemy is needed only once the arena's storage is.
    from sqlalchemy.exc import ArgumentError

    from noitu.adapters.arena.sql.engine import default_url, describe, normalize_url

    raw = env.get("NOITU_ARENA_DATABASE", "").strip()
    if not raw:
        return default_url(data_dir)
    try:
        return normalize_url(raw)
    except ValueError as error:
        try:
            shown = describe(raw)
        except ArgumentError:  # too malformed to parse: say nothing of it
            shown = "(unreadable)"
        problems.append(f"NOITU_ARENA_DATABASE={shown!r}: {error}")
        return ""


def _per_minute(env: Mapping[str, str], name: str, default: int, problems: list[str]) -> int:
    raw = env.get(name, str(default)).strip()
    if raw.isdigit() and 1 <= int(raw) <= 100_000:
        return int(raw)
    problems.append(f"{name}={raw!r}: expected a number from 1 to 100000 (per minute)")
    return default


def _retention(env: Mapping[str, str], problems: list[str]) -> Retention:
    """NOITU_ARENA_REPLAY_DAYS and NOITU_ARENA_LADDER_REPLAYS (B14)."""
    counts = []
    for name, default, unit in (
        ("NOITU_ARENA_REPLAY_DAYS", Retention().replay_days, "days"),
        ("NOITU_ARENA_LADDER_REPLAYS", Retention().ladder_replays, "replays per bot"),
    ):
        raw = env.get(name, str(default)).strip()
        if raw.isdigit() and 1 <= int(raw) <= 1_000_000:
            counts.append(int(raw))
        else:
            problems.append(f"{name}={raw!r}: expected a number from 1 to 1000000 ({unit})")
            counts.append(default)
    return Retention(*counts)


def _trusted_proxies(raw: str, problems: list[str]) -> frozenset[str]:
    """NOITU_TRUSTED_PROXY: IP addresses, separated by commas or spaces."""
    proxies = set()
    for part in raw.replace(",", " ").split():
        try:
            proxies.add(str(ipaddress.ip_address(part)))
        except ValueError:
            problems.append(f"NOITU_TRUSTED_PROXY: {part[:60]!r} is not an IP address")
    return frozenset(proxies)


def _arena_queue(env: Mapping[str, str], values: dict[str, object], problems: list[str]) -> None:
    """NOITU_ARENA_QUEUE and the job's take-within time. The SAQ queue spans machines:
    it needs the shared Redis and a PostgreSQL arena database every process reaches."""
    queue = _choice("NOITU_ARENA_QUEUE", env.get("NOITU_ARENA_QUEUE", "local"), ARENA_QUEUES, problems)
    values["arena_queue"] = queue
    raw = env.get("NOITU_ARENA_JOB_TAKE_SECONDS", "30").strip()
    try:
        take_s = float(raw)
    except ValueError:
        take_s = -1.0
    if 0.1 <= take_s <= 3600:
        values["arena_job_take_s"] = take_s
    else:
        problems.append(f"NOITU_ARENA_JOB_TAKE_SECONDS={raw!r}: expected 0.1 to 3600 seconds")
    if queue != "saq":
        return
    if values.get("store") != "redis":
        problems.append(
            "NOITU_ARENA_QUEUE=saq needs NOITU_STORE=redis (and REDIS_URL): the jobs go through Redis"
        )
    if not str(values.get("arena_database_url", "")).startswith("postgresql"):
        problems.append(
            "NOITU_ARENA_QUEUE=saq needs NOITU_ARENA_DATABASE=postgresql://…: every web"
            " instance and worker must reach the arena's database"
        )


def _daily_game(env: Mapping[str, str], problems: list[str]) -> str:
    """NOITU_DAILY_GAME: unset, the default short name; set empty, off; else a short
    name as BotFather takes it, other than the solo game's."""
    raw = env.get("NOITU_DAILY_GAME")
    if raw is None:
        return DEFAULT_DAILY_GAME
    name = raw.strip()
    if name and (not DAILY_GAME_PATTERN.fullmatch(name) or name == SOLO_GAME):
        problems.append(
            f"NOITU_DAILY_GAME={name!r}: expected the short name of a second game made with"
            f" BotFather (letters, digits and _, not {SOLO_GAME!r}), or empty to turn it off"
        )
        return ""
    return name


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if env is None else env
    problems: list[str] = []
    warnings: list[str] = []
    values: dict[str, object] = {}

    values["bot_token"] = env.get("TELEGRAM_BOT_TOKEN", "").strip()

    base_url = env.get("GAME_BASE_URL", "").strip()
    if base_url and not BASE_URL_PATTERN.match(base_url):
        warnings.append(
            f"GAME_BASE_URL={base_url!r} is not https://host[/path] without a trailing slash;"
            " the game is disabled"
        )
        base_url = ""
    values["game_base_url"] = base_url

    secret = env.get("NOITU_GAME_SECRET", "").encode()
    if secret and len(secret) < MIN_SECRET_BYTES:
        warnings.append(
            f"NOITU_GAME_SECRET has {len(secret)} bytes, fewer than {MIN_SECRET_BYTES};"
            " the game is disabled"
        )
    values["game_secret"] = secret

    modules = env.get("MODULES", "").replace(",", " ").split()
    values["modules"] = tuple(m.strip().lower() for m in modules)

    values["dictionary"] = env.get("NOITU_DICTIONARY", "").strip()
    raw_admin = env.get("NOITU_ADMIN_CHAT", "").strip()
    if raw_admin:
        if re.fullmatch(r"-?[1-9][0-9]{0,15}", raw_admin):
            values["admin_chat"] = int(raw_admin)
        else:
            problems.append(
                f"NOITU_ADMIN_CHAT={raw_admin!r}: expected a Telegram chat id, such as -1001234567890"
            )
    values["daily_game"] = _daily_game(env, problems)
    default_turn, default_grace = TurnClock().turn_ms / 1000, TurnClock().grace_ms / 1000
    turn = _seconds_to_ms(
        "NOITU_TURN_SECONDS", env.get("NOITU_TURN_SECONDS", f"{default_turn:g}"), 1, problems
    )
    grace = _seconds_to_ms(
        "NOITU_GRACE_SECONDS", env.get("NOITU_GRACE_SECONDS", f"{default_grace:g}"), 0, problems
    )
    if turn is not None:
        values["turn_ms"] = turn
    if grace is not None:
        values["grace_ms"] = grace

    values["host"] = env.get("NOITU_HOST", "").strip()
    raw_port = env.get("NOITU_PORT", "8080").strip()
    if raw_port.isdigit() and 0 < int(raw_port) < 65536:
        values["port"] = int(raw_port)
    else:
        problems.append(f"NOITU_PORT={raw_port!r}: expected a port number from 1 to 65535")

    _server_io(env, values, problems)

    raw_format = env.get("NOITU_LOG_FORMAT", "")
    values["log_format"] = _choice("NOITU_LOG_FORMAT", raw_format, LOG_FORMATS, problems) if raw_format else ""
    level = env.get("NOITU_LOG_LEVEL", "INFO").strip().upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        problems.append(f"NOITU_LOG_LEVEL={level!r}: expected DEBUG, INFO, WARNING or ERROR")
    values["log_level"] = level
    access = env.get("NOITU_ACCESS_LOG", "1").strip().lower()
    if access not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
        problems.append(f"NOITU_ACCESS_LOG={access!r}: expected 1 or 0")
    values["access_log"] = access in ("1", "true", "yes", "on")
    ladder = env.get("NOITU_ARENA_LADDER", "1").strip().lower()
    if ladder not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
        problems.append(f"NOITU_ARENA_LADDER={ladder!r}: expected 1 or 0")
    values["arena_ladder"] = ladder in ("1", "true", "yes", "on")

    values["telegram_mode"] = _choice(
        "TELEGRAM_MODE", env.get("TELEGRAM_MODE", "polling"), TELEGRAM_MODES, problems
    )
    api_base = env.get("TELEGRAM_API_BASE", "").strip().rstrip("/")
    if api_base and not re.match(r"^https?://[^/\s]+(/\S*)?$", api_base):
        problems.append(f"TELEGRAM_API_BASE={api_base!r}: expected an http(s) URL")
    values["telegram_api_base"] = api_base

    values["store"] = _choice("NOITU_STORE", env.get("NOITU_STORE", "memory"), STORES, problems)
    values["redis_url"] = env.get("REDIS_URL", "").strip()
    if values["store"] == "redis" and not values["redis_url"]:
        problems.append("NOITU_STORE=redis needs REDIS_URL (e.g. redis://127.0.0.1:6379/0)")
    elif values["redis_url"] and not re.match(r"^(redis|rediss|unix)://\S+$", values["redis_url"]):
        problems.append(f"REDIS_URL={values['redis_url']!r}: expected redis://host:port/db")
    # The cap on live sessions (spec: 2,000), shared by every instance on one Redis.
    raw_max = env.get("NOITU_MAX_SESSIONS", str(SessionLimits().max_playing)).strip()
    if raw_max.isdigit() and 0 < int(raw_max) <= 1_000_000:
        values["max_sessions"] = int(raw_max)
    else:
        problems.append(f"NOITU_MAX_SESSIONS={raw_max!r}: expected a number from 1 to 1000000")

    values["cache_dir"] = _cache_dir(env)
    values["data_dir"] = _data_dir(env)
    values["arena_database_url"] = _arena_database(env, values["data_dir"], problems)  # type: ignore[arg-type]
    values["arena_files"] = _choice(
        "NOITU_ARENA_FILES", env.get("NOITU_ARENA_FILES", "directory"), ARENA_FILES, problems
    )
    raw_uploads = env.get("NOITU_ARENA_UPLOADS_MIB", str(DEFAULT_ARENA_UPLOADS_MIB)).strip()
    if raw_uploads.isdigit() and 0 < int(raw_uploads) <= 1 << 30:
        values["arena_uploads_max_bytes"] = int(raw_uploads) * 1024 * 1024
    else:
        problems.append(
            f"NOITU_ARENA_UPLOADS_MIB={raw_uploads!r}: expected a number of MiB from 1 to 1073741824"
        )
    values["arena_retention"] = _retention(env, problems)
    values["instance"] = (
        env.get("NOITU_INSTANCE", "").strip() or f"{socket.gethostname()}:{values.get('port', 8080)}"
    )[:MAX_INSTANCE_NAME]
    values["worker_instance"] = (
        env.get("NOITU_INSTANCE", "").strip() or f"{socket.gethostname()}:{os.getpid()}"
    )[:MAX_INSTANCE_NAME]
    _arena_queue(env, values, problems)
    values["address_limits"] = AddressLimits(
        owner_keys=_per_minute(env, "NOITU_ARENA_KEYS_PER_MINUTE", AddressLimits().owner_keys, problems),
        uploads=_per_minute(env, "NOITU_ARENA_UPLOADS_PER_MINUTE", AddressLimits().uploads, problems),
        rooms=_per_minute(env, "NOITU_ARENA_ROOMS_PER_MINUTE", AddressLimits().rooms, problems),
    )
    values["trusted_proxies"] = _trusted_proxies(env.get("NOITU_TRUSTED_PROXY", ""), problems)
    bench_cpu = env.get("NOITU_BENCH_CPU", "0").strip().lower()
    if bench_cpu not in ("0", "1"):
        problems.append(f"NOITU_BENCH_CPU={bench_cpu!r}: expected 1 or 0 (benchmark only)")
    values["bench_cpu"] = bench_cpu == "1"

    if problems:
        raise SettingsError(problems)
    return Settings(warnings=tuple(warnings), **values)  # type: ignore[arg-type]
