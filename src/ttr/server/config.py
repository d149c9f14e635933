"""Server settings: where games are stored, how fast bots play, how big a request may be."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_BOT_DELAY = 0.5  # seconds a bot waits before playing, so humans can follow the game
MAX_BODY_BYTES = 64 * 1024


def default_data_dir() -> Path:
    """``$TTR_DATA_DIR``, else ``$XDG_DATA_HOME/ttr``, else ``~/.local/share/ttr``: games survive a change of directory."""
    if env := os.environ.get("TTR_DATA_DIR"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ttr"


def database_url(db: str | None = None) -> str:
    """The SQLAlchemy URL: ``db`` (a URL or a file path), else ``$TTR_DATABASE_URL``, else the SQLite file in the data dir.

    ``postgresql://`` and ``postgres://`` are mapped to the psycopg 3 driver (``postgresql+psycopg://``).
    """
    raw = db or os.environ.get("TTR_DATABASE_URL")
    if not raw:
        path = default_data_dir() / "ttr.sqlite3"
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
    for scheme in ("postgresql://", "postgres://"):
        if raw.startswith(scheme):
            return "postgresql+psycopg://" + raw[len(scheme) :]
    if "://" not in raw:  # a plain file path means a SQLite file
        path = Path(raw).expanduser().resolve()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
    return raw


@dataclass(frozen=True)
class Settings:
    database_url: str
    bot_delay: float = DEFAULT_BOT_DELAY
    max_body_bytes: int = MAX_BODY_BYTES
    bot_sweep_seconds: float = 1.0  # how often to look for bot turns that no process is playing (after a crash)
    bot_lease_seconds: float = 5.0  # a process that took a bot turn keeps it this long before another may

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith("postgresql")

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")
