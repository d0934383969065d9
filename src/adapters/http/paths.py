"""Where each game lives on the server: the one home of every URL prefix."""

from __future__ import annotations

NOITU_PATH = "/games/noitu"  # the nối từ page; its API under NOITU_PATH + "/api/"
NOITU_API_PATH = f"{NOITU_PATH}/api"
WEBHOOK_PATH = "/telegram/webhook"  # Telegram's updates in webhook mode
SCHEMA_PATH = "/schema"  # the OpenAPI document, as JSON only: SCHEMA_PATH + "/openapi.json"
ARENA_PATH = "/arena"  # the arena's page "Vào trận"; its API under ARENA_PATH + "/api/"
ARENA_API_PATH = f"{ARENA_PATH}/api"  # the arena's REST API (spec B6)
ARENA_WS_PATH = f"{ARENA_PATH}/ws"  # the arena's WebSockets: ARENA_WS_PATH + "/rooms/{code}"
BOT_GUIDE_PATH = "/bot-guide.html"  # the bot authors' guide (spec B6)
KERNEL_PATH = "/kernel"  # what both pages share: KERNEL_PATH + "/kernel.css", + "/js/<name>.js"
ARENA_ASSETS_PATH = "/assets"  # /assets/bot-examples/<file>, /assets/arena/<file>
