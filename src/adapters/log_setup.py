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


def configure_logging(log_format: str, level: str = "INFO") -> None:
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
        processors=[*shared, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
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
