"""`noitu serve` and `noitu token`: nối từ's server and its signed game links."""

from __future__ import annotations

import argparse
import functools
import gc
import resource
import sys
import textwrap
import time
from typing import TYPE_CHECKING

import structlog

from noitu.adapters.http.paths import ARENA_PATH, NOITU_PATH
from noitu.adapters.noitu.dictionary_file import DictionaryFormatError, DictionaryUnreadable
from noitu.application.noitu.session import GameMessage, Ticket
from noitu.domain.noitu.rules import TOKEN_LIFETIME_S
from noitu.entrypoints.role import WEB, Role
from noitu.entrypoints.settings import Settings, SettingsError, load_settings

if TYPE_CHECKING:  # the container is imported by the commands that build it (fast --help)
    from noitu.entrypoints.container import Container

YOUNG_GC_THRESHOLD = 10_000  # CPython's default is 700 (see `serve`)

LOCAL_PLAYER = Ticket(
    user_id=1, first_name="Bạn", message=GameMessage(chat_id=1, message_id=1), expires_at=0
)


def settings_or_exit() -> Settings:
    """The settings, or each problem on stderr and exit status 2 (every `noitu` command)."""
    try:
        return load_settings()
    except SettingsError as error:
        for problem in error.problems:
            print(f"noitu: {problem}", file=sys.stderr)
        raise SystemExit(2) from None


def build_container(settings: Settings, role: Role) -> Container:
    from noitu.entrypoints.container import Container

    return Container(settings=settings, role=role)


def _load_dictionary_or_exit(container: Container) -> None:
    try:
        lexicon = container.lexicon()
        container.bot_index()  # the bots' indexes, built now rather than on a first move
    except (DictionaryFormatError, DictionaryUnreadable) as error:
        print(f"noitu: bad dictionary: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    # Every word's Word (what chains hold) made now, so that `serve` freezes them with
    # the dictionary: made on first play, they become tens of thousands of objects that
    # every full pass of the garbage collector scans (about 4 MB, made in a few tens of ms).
    for word_id in range(len(lexicon)):
        lexicon.word(word_id)
    structlog.get_logger("noitu").info(
        "dictionary_loaded", words=len(lexicon), source=container.settings().dictionary or "shipped"
    )


def local_play_link(container: Container, host: str, port: int) -> str:
    ticket = Ticket(
        user_id=LOCAL_PLAYER.user_id,
        first_name=LOCAL_PLAYER.first_name,
        message=LOCAL_PLAYER.message,
        expires_at=int(time.time()) + TOKEN_LIFETIME_S,
    )
    token = container.token_signer().issue(ticket)
    return f"http://{_shown_host(host)}:{port}{NOITU_PATH}/?t={token}"


# Local play's daily game (B13): its own game message, so it never replaces the solo one.
LOCAL_DAILY = GameMessage(chat_id=1, message_id=3)


def local_daily_link(container: Container, host: str, port: int) -> str:
    """Today's game for the local player (a link with the daily claim)."""
    ticket = Ticket(
        LOCAL_PLAYER.user_id, LOCAL_PLAYER.first_name, LOCAL_DAILY,
        int(time.time()) + TOKEN_LIFETIME_S, daily=True,
    )
    token = container.token_signer().issue(ticket)
    return f"http://{_shown_host(host)}:{port}{NOITU_PATH}/?t={token}"


# Local play's room: one card, a few fake people to try it from one machine (B10).
LOCAL_ROOM = GameMessage(chat_id=1, message_id=2)
LOCAL_ROOM_PLAYERS = 3


def local_room_links(container: Container, host: str, port: int) -> list[tuple[str, str]]:
    """(name, link) of each fake player of the local room card."""
    expires = int(time.time()) + TOKEN_LIFETIME_S
    links = []
    for number in range(1, LOCAL_ROOM_PLAYERS + 1):
        name = f"Người chơi {number}"
        ticket = Ticket(LOCAL_PLAYER.user_id + number, name, LOCAL_ROOM, expires, room=True)
        token = container.token_signer().issue(ticket)
        links.append((name, f"http://{_shown_host(host)}:{port}{NOITU_PATH}/?t={token}"))
    return links


def _shown_host(host: str) -> str:
    """Where a browser on this machine reaches a server bound to `host`."""
    return "127.0.0.1" if host in ("0.0.0.0", "::", "") else host


def arena_link(host: str, port: int) -> str:
    return f"http://{_shown_host(host)}:{port}{ARENA_PATH}/"


#: Descriptors kept for everything but client connections: bots' pipes, stages and
#: cgroups, the database, Redis, logs.
SPARE_DESCRIPTORS = 512


def descriptor_limit(soft: int, hard: int, max_connections: int) -> tuple[int, str]:
    """The soft RLIMIT_NOFILE `noitu serve` runs with, and a warning when even that
    leaves too few descriptors beyond `max_connections` (then a flood of connections,
    though capped, starves the bots and the database)."""
    needed = max_connections + SPARE_DESCRIPTORS
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return soft, ""
    limit = needed if hard == resource.RLIM_INFINITY else max(soft, min(hard, needed))
    if limit < needed:
        return limit, (
            f"the descriptor limit ({limit}) leaves fewer than {SPARE_DESCRIPTORS} beyond"
            f" NOITU_MAX_CONNECTIONS={max_connections}: raise it (LimitNOFILE=) or lower"
            " NOITU_MAX_CONNECTIONS"
        )
    return limit, ""


def serve(args: argparse.Namespace) -> None:
    from noitu.adapters.log_setup import configure_logging

    settings = settings_or_exit()
    configure_logging(settings.effective_log_format, settings.log_level)
    log = structlog.get_logger("noitu")
    for warning in settings.warnings:
        log.warning("settings", problem=warning)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    files, problem = descriptor_limit(soft, hard, settings.max_connections)
    if files != soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (files, hard))
    if problem:
        log.warning("settings", problem=problem)
    container = build_container(settings, WEB)
    if settings.noitu_enabled:
        _load_dictionary_or_exit(container)
    # The server's parts once the settings and the dictionary are known good: a mistake
    # in either is told without waiting for them.
    import uvicorn

    from noitu.adapters.http.fast_paths import ClosingWebSocketsProtocol
    from noitu.adapters.http.server_protocol import BoundedHttpToolsProtocol, ConnectionLimits
    from noitu.entrypoints.app import create_app

    app = create_app(container)
    # The dictionary is a large heap that lives as long as the process: keep it out of
    # the garbage collector's full passes, which would otherwise stall requests.
    gc.collect()
    gc.freeze()
    # Young passes less often, for a load of short games: with the default 700, a pass came every ~50 ms
    # under load and caught each stored copy of a session during the 300 ms it lives
    # (until the player's next request replaces it), promoting thousands of objects a
    # second towards the full passes. At 10,000 a pass comes every 7–10 s under the same
    # load, finds those copies gone, and takes 30–40 ms; the older generations keep
    # CPython's defaults. Garbage in reference cycles is still collected, a little later.
    gc.set_threshold(YOUNG_GC_THRESHOLD, *gc.get_threshold()[1:])
    host, port = settings.bind_host, settings.port
    if settings.local_play:
        links = []
        if settings.game_enabled:
            links.append(f"  nối từ:  {local_play_link(container, host, port)}")
            links.append(f"  nối từ hôm nay: {local_daily_link(container, host, port)}")
            links.append("  phòng nối từ (mở mỗi link ở một thẻ hoặc trình duyệt riêng):")
            links += [f"    {name}: {link}" for name, link in local_room_links(container, host, port)]
        if settings.arena_enabled:
            links.append(f"  đấu bot: {arena_link(host, port)}")
        if links:
            print(
                "\nnoitu: local play mode, open a link to play:\n\n" + "\n".join(links) + "\n",
                flush=True,
            )
    asgi: object = app
    if settings.bench_cpu:  # benchmark only: the CPU per route, for `noitu bench http`
        from noitu.bench.server_cpu import CpuByRoute

        asgi = CpuByRoute(app)
    uvicorn.run(
        asgi, host=host, port=port, log_config=None, access_log=False, server_header=False,
        lifespan="on",
        # Each answer in one write; connections capped, request heads timed and capped,
        # request bodies timed with a minimum rate.
        http=functools.partial(BoundedHttpToolsProtocol, limits=ConnectionLimits(
            max_connections=settings.max_connections,
            head_timeout_s=settings.head_timeout_s,
            max_head_bytes=settings.max_head_bytes,
            body_timeout_s=settings.body_timeout_s,
            body_min_bytes_per_s=settings.body_min_kib_per_s * 1024,
        )),
        # The room WebSocket reads nothing from clients: uvicorn's 16 MiB per message
        # let 40 frames take 1.3 GB. A larger one closes the socket (1009).
        ws_max_size=settings.ws_max_message_bytes, ws_max_queue=4,
        # A closed WebSocket's memory is freed at once, not at a rare full collection.
        ws=ClosingWebSocketsProtocol,
        # uvicorn must not rewrite the peer from X-Forwarded-For: the arena's limits per
        # client address read that header themselves, and only from a proxy the operator
        # trusts (NOITU_TRUSTED_PROXY, adapters/http/client_address.py).
        proxy_headers=False,
    )


def token(args: argparse.Namespace) -> None:
    settings = settings_or_exit()
    if not settings.game_secret and not settings.bot_token:
        print(
            "noitu: set NOITU_GAME_SECRET (or TELEGRAM_BOT_TOKEN) so the server can check"
            " the token",
            file=sys.stderr,
        )
        raise SystemExit(2)
    if (args.chat is None) != (args.message is None) or (args.chat is None) == (args.inline is None):
        print("noitu: give either --chat and --message, or --inline", file=sys.stderr)
        raise SystemExit(2)
    if args.user <= 0:
        print("noitu: --user must be a positive Telegram user id", file=sys.stderr)
        raise SystemExit(2)
    if args.room and args.chat is None:
        print("noitu: a room link names a chat message: give --chat and --message", file=sys.stderr)
        raise SystemExit(2)
    if args.room and args.daily:
        print("noitu: a link is a room card's or a daily game's, not both", file=sys.stderr)
        raise SystemExit(2)
    container = build_container(settings, Role.cli())
    ticket = Ticket(
        user_id=args.user,
        first_name=args.name,
        message=GameMessage(
            chat_id=args.chat, message_id=args.message, inline_message_id=args.inline,
            topic_id=args.topic,
        ),
        expires_at=int(time.time()) + args.ttl,
        room=args.room,
        daily=args.daily,
    )
    print(container.token_signer().issue(ticket))


class _ReadNames(dict[str, str]):
    """An empty environment that notes every name `load_settings` looks up."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        if key not in self.names:
            self.names.append(key)
        return default


def setting_names() -> list[str]:
    """The environment variables the server reads, in `load_settings`'s order: read from
    its one definition by watching it read an empty environment."""
    environment = _ReadNames()
    try:
        load_settings(environment)
    except SettingsError:
        pass  # the names were noted all the same
    return environment.names


def serve_epilog() -> str:
    names = textwrap.fill(", ".join(setting_names()), width=76, initial_indent="  ",
                          subsequent_indent="  ")
    return (
        "settings: environment variables, read once at start:\n"
        f"{names}\n"
        "each one's default and meaning: README.md, section \"Settings (environment)\";\n"
        "running it for Telegram: docs/operating.md."
    )


def add_arguments(commands: argparse._SubParsersAction) -> None:
    serve_parser = commands.add_parser(
        "serve", help="run the server (local play without a bot token)",
        description="Run the server: nối từ and the bot arena (local play without a bot token).",
        epilog=serve_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve_parser.set_defaults(run=serve)

    token_parser = commands.add_parser("token", help="print a signed game token")
    token_parser.add_argument("--user", type=int, required=True, help="Telegram user id")
    token_parser.add_argument("--name", default="", help="the player's first name")
    token_parser.add_argument("--chat", type=int, help="chat id of the game message")
    token_parser.add_argument("--message", type=int, help="message id of the game message")
    token_parser.add_argument("--inline", help="inline_message_id of the game message")
    token_parser.add_argument("--topic", type=int, help="forum topic id")
    token_parser.add_argument("--ttl", type=int, default=TOKEN_LIFETIME_S, help="seconds until it expires")
    token_parser.add_argument("--room", action="store_true",
                              help="a room card's link (group rooms, claim r: 1)")
    token_parser.add_argument("--daily", action="store_true",
                              help="a daily game's link (Nối từ hôm nay, claim d: 1)")
    token_parser.set_defaults(run=token)
