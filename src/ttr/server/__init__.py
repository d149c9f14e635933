"""The game server: HTTP + WebSocket API over the engine, games stored through SQLAlchemy (SQLite or PostgreSQL)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .config import Settings, database_url

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["Settings", "create_app", "database_url"]


def __getattr__(name: str) -> Any:
    # The web application (FastAPI, SQLAlchemy) is imported when asked for: the bot pool's worker processes import
    # ttr.server.botpool and need only the engine and the bots.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
