"""The game server: HTTP + WebSocket API over the engine, games stored through SQLAlchemy (SQLite or PostgreSQL)."""

from .app import create_app
from .config import Settings, database_url

__all__ = ["Settings", "create_app", "database_url"]
