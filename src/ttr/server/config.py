"""Server settings: where games are stored, how fast bots play, how big a request may be, and every limit.

Each operator knob is one ``Knob`` in ``KNOBS``: its ``Settings`` field, its ``ttr serve`` option, its
environment variable (``TTR_...``) and its help. ``ttr serve --help`` is generated from that table, so
the option, the variable and the default shown can never disagree. Tests build ``Settings`` directly.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_BOT_DELAY = 0.5  # seconds a bot waits before playing, so humans can follow the game
MAX_BODY_BYTES = 64 * 1024
DEFAULT_BOT_BUDGET = 2.0  # seconds a search bot (level max) may think about one move
DEFAULT_UNDO_WINDOW = 2.0  # seconds bots wait after a person's move that can still be undone


def default_bot_workers() -> int:
    """Bot worker processes: two on a small machine (one for searches, one for quick bots), up to four."""
    return max(2, min(4, os.cpu_count() or 2))


DEFAULT_BOT_WORKERS = default_bot_workers()


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
    # --- bots (ttr.server.botpool)
    bot_workers: int = DEFAULT_BOT_WORKERS  # processes bots think in
    bot_budget: float = DEFAULT_BOT_BUDGET  # seconds a max bot may think about a move
    undo_window: float = DEFAULT_UNDO_WINDOW  # seconds bots wait after a person's move that can still be undone
    maps_dir: str | None = None  # ttr serve --maps DIR: a folder of custom map files offered in the lobby
    bot_factory: str | None = None  # "module:function(level, seed, budget) -> Bot" instead of the levels (tests)

    # --- per-client rates ("N/second", "N/minute", "N/hour"; several joined by ";"): moving windows, per IP
    limits_enabled: bool = True  # False: no rate and no cap at all (load tests on a machine of one's own)
    rate_create: str = "10/minute;60/hour"  # POST /api/games
    rate_join: str = "30/minute;200/hour"  # POST /api/games/{id}/join (renames included)
    rate_rename: str = "5/minute;30/hour"  # per seat: joining again under another name
    rate_action: str = "100/second;3000/minute"  # POST .../actions and .../undo
    rate_ws_connect: str = "60/minute"  # WebSocket connections opened
    rate_ws_message: str = "100/second;3000/minute"  # WebSocket messages received (pings included)
    rate_auth_failure: str = "10/minute;50/hour"  # 401 answers; past this every token-bearing request is refused
    rate_signup: str = "5/minute;20/hour"  # POST /api/auth/signup
    rate_login: str = "20/minute;200/hour"  # POST /api/auth/login, whatever the name
    # failed logins per username (existing or not): each window is a longer lockout, so it grows with the failures
    rate_login_failure: str = "5/minute;10/15 minutes;20/hour;50/day"
    rate_chat: str = "5/10 seconds;60/hour"  # chat messages per client and game
    clock_poll_seconds: float = 1.0  # how often to look for deadlines armed by other processes
    # --- accounts
    argon2_time_cost: int = 2  # Argon2id passes (OWASP's minimum: m=19 MiB, t=2, p=1)
    argon2_memory_kib: int = 19456  # Argon2id memory per hash, KiB
    session_days: float = 30.0  # a login lasts this long (the cookie's Max-Age)
    # --- caps on games
    max_games_per_client: int = 20  # open or active games created by one client (IP) and not yet over
    max_bot_games: int = 50  # bot-only games in play, server-wide
    cached_ended_games: int = 64  # games that ended kept in memory (the others are read from the database again)
    # --- expiry of abandoned games (their record is kept; finished games are never touched)
    abandon_after_seconds: float = 24 * 3600.0  # a game with humans: no human action (join, move, undo) for this long
    abandon_bot_games_after_seconds: float = 3600.0  # a bot-only game: this long after it was created
    rematch_offer_seconds: float = 3600.0  # a rematch offer not accepted by every seat: this long after it was made
    expiry_sweep_seconds: float = 60.0  # how often to look for abandoned games
    # --- connections (uvicorn)
    header_timeout: float = 10.0  # a request's line and headers must arrive within this many seconds
    keep_alive_timeout: float = 30.0  # an idle keep-alive connection is closed after this
    max_header_bytes: int = 16 * 1024  # request line plus headers
    ws_deflate: int = 0  # 1: compress WebSocket messages (permessage-deflate) for clients that offer it
    # --- SQLite
    wal_limit_bytes: int = 16 * 1024 * 1024  # past this the background checkpoint empties the write-ahead log
    # --- storage
    position_every: int = 20  # a game's whole position is stored every this many actions (and at its end); in between
    # only the action is, and loading replays the few actions since the stored position (service.GameService._load)
    # --- the garbage collector's schedule (collector.py; ttr serve only)
    gc_interval: float = 0.5  # seconds between two young collections, after which what lives is frozen (0: Python's)
    gc_full_every: float = 600.0  # seconds between two whole-heap collections (0: never)
    malloc_trim_every: float = 60.0  # seconds between two returns of the C allocator's free pages (glibc; 0: never)

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith("postgresql")

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@dataclass(frozen=True)
class Knob:
    field: str
    flag: str
    help: str

    @property
    def env(self) -> str:
        return "TTR_" + self.field.upper()


KNOBS: tuple[Knob, ...] = (
    Knob(
        "bot_workers",
        "--bot-workers",
        "processes bots think in, at least 1; with 2 or more one is kept for the quick levels (easy, medium, hard) "
        "so that max-bot searches never delay them",
    ),
    Knob(
        "bot_budget",
        "--bot-budget",
        "seconds a max bot may think about one move (ticket choices twice that); a move not answered in "
        "2 x budget + 1 s is played by the next cheaper level",
    ),
    Knob(
        "undo_window",
        "--undo-window",
        "seconds bots wait after a person's move that can still be undone (0: they answer after --bot-delay, and "
        "undo is possible only until they do)",
    ),
    Knob("rate_create", "--rate-create", "games one client may create"),
    Knob("rate_join", "--rate-join", "joins (and renames) by one client"),
    Knob("rate_rename", "--rate-rename", "renames of one seat"),
    Knob("rate_action", "--rate-action", "HTTP actions and undos by one client"),
    Knob("rate_ws_connect", "--rate-ws-connect", "WebSocket connections opened by one client"),
    Knob("rate_ws_message", "--rate-ws-message", "WebSocket messages from one client (pings included)"),
    Knob("rate_auth_failure", "--rate-auth-failure", "failed authentications (401) of one client before it is refused"),
    Knob("clock_poll_seconds", "--clock-poll", "seconds between two looks for deadlines armed by other processes"),
    Knob("rate_signup", "--rate-signup", "accounts one client may create"),
    Knob("rate_login", "--rate-login", "login attempts by one client"),
    Knob(
        "rate_login_failure",
        "--rate-login-failure",
        "failed logins per username before it is locked for a while (each window a longer lockout)",
    ),
    Knob("rate_chat", "--rate-chat", "chat messages by one client in one game"),
    Knob("argon2_time_cost", "--argon2-time-cost", "Argon2id passes per password hash"),
    Knob("argon2_memory_kib", "--argon2-memory-kib", "Argon2id memory per password hash (KiB)"),
    Knob("session_days", "--session-days", "days a login lasts"),
    Knob("max_games_per_client", "--max-games-per-client", "open or active games one client may have created"),
    Knob("max_bot_games", "--max-bot-games", "bot-only games in play on the server"),
    Knob("cached_ended_games", "--cached-ended-games", "games that ended kept in memory (the others are read from the database)"),
    Knob("abandon_after_seconds", "--abandon-after", "seconds without a human action before a game is closed"),
    Knob("abandon_bot_games_after_seconds", "--abandon-bot-games-after", "seconds after which a bot-only game is closed"),
    Knob("rematch_offer_seconds", "--rematch-offer", "seconds a rematch offer waits for every seat to accept"),
    Knob("expiry_sweep_seconds", "--expiry-sweep", "seconds between two looks for abandoned games"),
    Knob("header_timeout", "--header-timeout", "seconds a client has to send a request's headers"),
    Knob("keep_alive_timeout", "--keep-alive-timeout", "seconds an idle keep-alive connection is kept"),
    Knob("max_header_bytes", "--max-header-bytes", "bytes of request line and headers"),
    Knob(
        "ws_deflate",
        "--ws-deflate",
        "1: compress WebSocket messages (permessage-deflate) for clients that offer it: updates of ~6 KB become "
        "~1.3 KB, for ~10%% more server CPU per move, spent on the event loop, and a compressor kept per socket "
        "(0: send them as they are)",
    ),
    Knob("wal_limit_bytes", "--wal-limit-bytes", "SQLite: write-ahead log size past which it is checkpointed and emptied"),
    Knob(
        "position_every",
        "--position-every",
        "store a game's whole position every this many actions (0 or 1: after every action); in between only the "
        "action is written, and loading a game replays the actions since its stored position",
    ),
    Knob(
        "gc_interval",
        "--gc-interval",
        "seconds between two young garbage collections, after which what is alive is frozen out of the collector's "
        "sight (0: Python's own schedule)",
    ),
    Knob("gc_full_every", "--gc-full-every", "seconds between two whole-heap garbage collections (0: never)"),
    Knob(
        "malloc_trim_every",
        "--malloc-trim-every",
        "seconds between two returns of the C allocator's free memory to the system (glibc malloc_trim; 0: never)",
    ),
)

_DEFAULTS = {f.name: f.default for f in fields(Settings)}


def knob_default(knob: Knob) -> Any:
    return _DEFAULTS[knob.field]


def knob_type(knob: Knob) -> type:
    return type(_DEFAULTS[knob.field])


def parse_knob(knob: Knob, raw: Any) -> Any:
    """A knob's value from the command line or the environment, checked: ValueError names the knob and why."""
    kind = knob_type(knob)
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{knob.flag} (${knob.env}): {raw!r} is not a {kind.__name__}") from None
    if kind is str:
        from .limits import parse_rate

        parse_rate(value, knob.flag)
    elif value < 0 or (kind is float and value != value):
        raise ValueError(f"{knob.flag} (${knob.env}): must not be negative")
    return value


def knobs_from_env(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """The knobs set in the environment (``TTR_RATE_CREATE=...``), checked."""
    env = os.environ if environ is None else environ
    return {k.field: parse_knob(k, env[k.env]) for k in KNOBS if env.get(k.env, "") != ""}
