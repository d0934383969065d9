"""structlog: JSON lines in production, a readable console in local play.

The log records paths only (docs/operating.md): never a client's address, nor a query
string (a game link carries its token there). uvicorn's access log is off; its
WebSocket lines (`<address:port> - "WebSocket <path?query>" [accepted]`, on the
"uvicorn.error" logger) are rewritten to the path alone by `PathOnlySocketLines`.
"""

from __future__ import annotations

import logging
import sys

import structlog

#: The format uvicorn logs a WebSocket handshake with: the client's address, then the
#: path with its query, then the outcome ("[accepted]", 403 or a status).
SOCKET_LINE_PREFIX = '%s - "WebSocket %s"'


class PathOnlySocketLines(logging.Filter):
    """Keeps uvicorn's line per WebSocket handshake, without the client's address and
    the query string: `"WebSocket /arena/ws/rooms/ABC123" [accepted]`."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg
        args = record.args
        if (
            isinstance(message, str)
            and message.startswith(SOCKET_LINE_PREFIX)
            and isinstance(args, tuple)
            and len(args) >= 2
        ):
            record.msg = message[len("%s - "):]
            record.args = (str(args[1]).split("?", 1)[0], *args[2:])
        return True


class NamedLineLogger(structlog.WriteLogger):
    """structlog's line writer, with the name `get_logger` was given (for the `logger`
    field, as a stdlib logger's name gives it)."""

    def __init__(self, name: str) -> None:
        super().__init__(sys.stderr)
        self.name = name


def named_line_logger(*args: object) -> NamedLineLogger:
    return NamedLineLogger(str(args[0]) if args else "")


def configure_logging(log_format: str, level: str = "INFO") -> None:
    """Our own events go straight from structlog to stderr, one line each; the stdlib
    records of the libraries (uvicorn, aiogram) go through a stdlib handler rendering
    the same fields the same way.

    Our events skip the stdlib: through `logging` and its `ProcessorFormatter` an event
    was rendered twice and cost ~50 µs, a fifth of a move's CPU with the access log on
    (the default), and an event below the level still ~10 µs; dropped by level first,
    as here, it costs ~1 µs."""
    renderer: structlog.types.Processor
    if log_format == "json":
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    if log_format == "json":
        shared.append(structlog.processors.format_exc_info)
    structlog.configure(
        processors=[*shared, renderer],
        logger_factory=named_line_logger,
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        cache_logger_on_first_use=True,
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(foreign_pre_chain=shared, processor=renderer)
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # uvicorn's own access log prints the query string, which may hold a game token.
    logging.getLogger("uvicorn.access").disabled = True
    logging.getLogger("uvicorn.access").propagate = False
    uvicorn_lines = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, PathOnlySocketLines) for f in uvicorn_lines.filters):
        uvicorn_lines.addFilter(PathOnlySocketLines())
