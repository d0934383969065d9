"""The Telegram side: /noitu, Play, score reports, polling and the webhook route.

Importing aiogram takes seconds, so only `factories` and `links` are light; the other
modules here import aiogram and are loaded only when a bot token is set.
"""
