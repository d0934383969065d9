"""Where each game lives on the server: the one home of every URL prefix."""

from __future__ import annotations

NOITU_PATH = "/games/noitu"  # the nối từ page; its API under NOITU_PATH + "/api/"
NOITU_API_PATH = f"{NOITU_PATH}/api"
WEBHOOK_PATH = "/telegram/webhook"  # Telegram's updates in webhook mode
