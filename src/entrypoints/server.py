"""Builds the whole server (HTTP, and later the Telegram side) from one container."""

from __future__ import annotations

from litestar import Litestar

from .app import create_app
from .container import Container


def build_app(container: Container) -> Litestar:
    return create_app(container)
