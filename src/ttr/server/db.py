"""Tables (SQLAlchemy Core), engines and transactions for SQLite and PostgreSQL, and schema migrations.

SQLite: WAL journal and ``synchronous=NORMAL`` (a commit survives the process being killed), and every
write transaction starts with ``BEGIN IMMEDIATE`` so that writers queue on the database lock instead
of failing half-way. Commits never checkpoint (``wal_autocheckpoint=0``): the hub calls
``Database.checkpoint()`` every second from a worker thread. A passive checkpoint alone never lets the
log start over while readers and writers overlap without pause, so once the log is past
``wal_limit_bytes`` the checkpoint is a ``TRUNCATE`` one, taken between two of this process's writers;
``journal_size_limit`` also cuts the file back whenever SQLite restarts the log by itself.
PostgreSQL (psycopg 3): writers lock the game row with ``SELECT ... FOR UPDATE``.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("edition", sa.String(64), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON
    sa.Column("name", sa.String(100), nullable=True),
    sa.Column("public", sa.Boolean, nullable=False),
    sa.Column("hotseat", sa.Boolean, nullable=False),
    sa.Column("hotseat_token_hash", sa.String(64), nullable=True),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),  # open | active | finished
    sa.Column("seq", sa.Integer, nullable=False),  # last event sequence number
    sa.Column("action_count", sa.Integer, nullable=False),
    sa.Column("position", sa.Text, nullable=False),  # Game.to_dict() JSON
    sa.Column("to_move", sa.Integer, nullable=True),
    sa.Column("bot_to_move", sa.Boolean, nullable=False),
    sa.Column("bot_lease_owner", sa.String(64), nullable=True),
    sa.Column("bot_lease_until", sa.DateTime(timezone=True), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    # accounts (migration 0002): every seat a distinct account, no bots, not hot-seat -> the game is rated
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    # clocks (migration 0004): the time control (JSON, None: no clock) and when the seat to move runs out
    sa.Column("clock", sa.Text, nullable=True),
    sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_games_deadline", "deadline"),
    sa.Column("rematch", sa.String(32), nullable=True),  # 0005: the game its rematch offer created
    sa.Index("ix_games_status", "status", "public"),
    sa.Index("ix_games_bots", "status", "bot_to_move"),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("type", sa.String(8), nullable=False),  # human | bot
    sa.Column("level", sa.String(32), nullable=True),
    sa.Column("name", sa.String(64), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("joined", sa.Boolean, nullable=False),
    sa.Column("joined_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),  # 0002
    sa.Index("ix_seats_user", "user_id"),
    # 0004: a person's seat played by a bot after a timeout (until they return), or for good (dropped)
    sa.Column("away", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("dropped", sa.Boolean, nullable=False, server_default=sa.false()),
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(32), nullable=False),  # as typed at sign-up
    sa.Column("name_key", sa.String(32), nullable=False, unique=True),  # lower case: names are unique ignoring case
    sa.Column("password_hash", sa.String(255), nullable=False),  # Argon2id, PHC string
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),  # sha256 of the cookie value
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_sessions_user", "user_id"),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("idx", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("action", sa.Text, nullable=False),  # Action JSON
    sa.Column("reveals", sa.Boolean, nullable=False),  # showed a hidden card or ticket: undo stops here
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

events = sa.Table(
    "events",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("action_idx", sa.Integer, nullable=True),  # None: a server event (join, start, undo)
    sa.Column("player", sa.Integer, nullable=True),
    sa.Column("type", sa.String(32), nullable=False),
    sa.Column("public", sa.Text, nullable=False),  # JSON: the form anyone may see
    sa.Column("secret", sa.Text, nullable=True),  # JSON: added for `player` (and whoever controls that seat)
    sa.Column("undone", sa.Boolean, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

# ratings (migration 0003): one openskill rating per account, edition and player-count class
ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("edition", sa.String(64), primary_key=True),
    sa.Column("klass", sa.String(8), primary_key=True),  # "2p" | "3-4p" | "5p+"
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("ordinal", sa.Float, nullable=False),  # mu - 3 sigma: what the leaderboard sorts by
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_ratings_board", "edition", "klass", "ordinal"),
)

rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    sa.Column("edition", sa.String(64), nullable=False),
    sa.Column("klass", sa.String(8), nullable=False),
    sa.Column("rank", sa.Integer, nullable=False),
    sa.Column("mu", sa.Float, nullable=False),
    sa.Column("sigma", sa.Float, nullable=False),
    sa.Column("ordinal", sa.Float, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_rating_history_user", "user_id", "at"),
)

player_stats = sa.Table(  # per seat of a finished game, computed once from its record (stats.py)
    "player_stats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("stats", sa.Text, nullable=False),  # JSON
)

chat = sa.Table(  # 0005: chat messages of a game, per channel (table.py)
    "chat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    sa.Column("channel", sa.String(16), nullable=False),  # players | spectators
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("text", sa.String(400), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_chat_game", "game_id", "channel", "id"),
)

TZ = sa.DateTime(timezone=True)

# The statements of every change, built once: the hot path of the server (building Core statements per call
# costs more than running them on SQLite).
SELECT_SEQ = sa.text("SELECT seq FROM games WHERE id = :gid")
LOCK_SEQ = {False: SELECT_SEQ, True: sa.text("SELECT seq FROM games WHERE id = :gid FOR UPDATE")}
INSERT_EVENT = sa.text(
    "INSERT INTO events (game_id, seq, action_idx, player, type, public, secret, undone, at) "
    "VALUES (:game_id, :seq, :action_idx, :player, :type, :public, :secret, :undone, :at)"
).bindparams(sa.bindparam("at", type_=TZ), sa.bindparam("undone", type_=sa.Boolean))
INSERT_ACTION = sa.text(
    "INSERT INTO actions (game_id, idx, seat, action, reveals, at) VALUES (:game_id, :idx, :seat, :action, :reveals, :at)"
).bindparams(sa.bindparam("at", type_=TZ), sa.bindparam("reveals", type_=sa.Boolean))
# the game row after a change, only if it is still at the seq the change was made on; with the new whole position
# when one is stored (GameService.position_due)
_SET_GAME = (
    "UPDATE games SET seq = :seq, status = :status, updated_at = :now, to_move = :to_move, bot_to_move = :bot_to_move, "
    "deadline = :deadline, bot_lease_owner = NULL, bot_lease_until = NULL{} WHERE id = :gid AND seq = :old_seq"
)
_SET_POSITION = ", position = :position, action_count = :action_count"
# PostgreSQL: the whole change in one statement (one round trip, atomic on its own): the game row updated only if
# still at `old_seq`, the action and event rows (JSON arrays of rows) inserted only then, and the notification to
# the other processes; no row back means another process changed the game first and nothing was written
_APPEND_PG = (
    "WITH g AS ({} RETURNING id), "
    "a AS (INSERT INTO actions SELECT r.* FROM g, json_populate_recordset(NULL::actions, CAST(:actions AS json)) AS r), "
    "e AS (INSERT INTO events SELECT r.* FROM g, json_populate_recordset(NULL::events, CAST(:events AS json)) AS r) "
    "SELECT pg_notify('ttr_games', :note) FROM g"
)


def _game_statement(sql: str) -> sa.TextClause:
    return sa.text(sql).bindparams(
        sa.bindparam("now", type_=TZ), sa.bindparam("deadline", type_=TZ), sa.bindparam("bot_to_move", type_=sa.Boolean)
    )


# keyed by whether the whole position is written too
UPDATE_GAME = {pos: _game_statement(_SET_GAME.format(_SET_POSITION if pos else "")) for pos in (False, True)}
APPEND_PG = {pos: _game_statement(_APPEND_PG.format(_SET_GAME.format(_SET_POSITION if pos else ""))) for pos in (False, True)}
UPDATE_FINISHED = sa.text("UPDATE games SET finished_at = :now WHERE id = :gid").bindparams(sa.bindparam("now", type_=TZ))
NOTIFY = sa.text("SELECT pg_notify('ttr_games', :p)")
DEFAULT_WAL_LIMIT = 16 * 1024 * 1024  # SQLite: past this the background checkpoint empties the write-ahead log


class Database:
    """Engines and transactions. ``write()`` serialises writers; ``read()`` is a plain transaction."""

    def __init__(self, url: str, *, wal_limit_bytes: int = DEFAULT_WAL_LIMIT) -> None:
        self.url = url
        self.origin = uuid.uuid4().hex  # names this process in its notifications (PostgreSQL), so it skips its own
        self.is_sqlite = url.startswith("sqlite")
        self.is_postgres = url.startswith("postgresql")
        self._sqlite_writer = threading.Lock()
        self.wal_limit_bytes = wal_limit_bytes
        self.wal_path: str | None = None
        if self.is_sqlite:
            self.engine = _sqlite_engine(url, immediate=True, wal_limit=wal_limit_bytes)
            self.read_engine = _sqlite_engine(url, immediate=False, wal_limit=wal_limit_bytes)
            database = self.engine.url.database
            if database and database != ":memory:":
                self.wal_path = database + "-wal"
        else:
            # as many connections kept as worker threads run service code (anyio: 40), and a few more: under load
            # a thread never waits for a connection while holding its game's lock, and no connection is opened
            # and closed per request (with 20 kept, every one beyond was closed when given back: a new backend
            # process per request in a burst). No check before each use
            # (pool_pre_ping: a round trip per request, as many as a move's own): a connection found dead makes
            # its request answer 503 and SQLAlchemy replace every connection older than that (outage.py)
            self.engine = sa.create_engine(url, pool_size=40, max_overflow=10, pool_recycle=1800)
            self.read_engine = self.engine

    @contextmanager
    def write(self) -> Iterator[Connection]:
        if self.is_sqlite:
            # One writer at a time in this process: SQLite would otherwise make the others sleep and retry
            # (its busy handler backs off up to 100 ms), which is where slow requests came from under load.
            with self._sqlite_writer, self.engine.begin() as conn:
                yield conn
            return
        with self.engine.begin() as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self.read_engine.connect() as conn:
            yield conn

    def lock_game(self, conn: Connection, game_id: str) -> int | None:
        """The game's seq, its row locked until the transaction ends (SQLite: the whole database already is)."""
        return conn.execute(LOCK_SEQ[self.is_postgres], {"gid": game_id}).scalar()

    def notify(self, conn: Connection, payload: str) -> None:
        """Tell every process (LISTEN ttr_games) that a game changed; delivered when the transaction commits."""
        if self.is_postgres:
            conn.execute(NOTIFY, {"p": payload})

    def append(
        self,
        conn: Connection,
        game: dict[str, Any],
        action: dict[str, Any] | None,
        events: list[dict[str, Any]],
        position: str | None,
    ) -> bool:
        """Write one change of a game: its `action` row (if any), its `events` rows and the `game` row's new values
        (`gid`, `old_seq`, `seq`, `status`, `now`, `to_move`, `bot_to_move`, `deadline`; `position` and
        `action_count` when the position is stored). False, having written nothing, if the game is no longer at
        `old_seq`. PostgreSQL: one statement, which also notifies the other processes (see ``_APPEND_PG``)."""
        if self.is_postgres:
            params = {
                **game,
                "actions": orjson.dumps([action] if action else []).decode(),
                "events": orjson.dumps(events).decode(),
                "note": f"{game['gid']} {game['seq']} {self.origin}",
            }
            if position is not None:
                params["position"] = position
            return conn.execute(APPEND_PG[position is not None], params).first() is not None
        if action:
            conn.execute(INSERT_ACTION, action)
        if events:
            conn.execute(INSERT_EVENT, events)
        params = game if position is None else {**game, "position": position}
        return conn.execute(UPDATE_GAME[position is not None], params).rowcount == 1

    @contextmanager
    def autocommit(self) -> Iterator[Connection]:
        """A connection without a transaction: each statement commits on its own (one statement, one round trip)."""
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            yield conn

    def wal_size(self) -> int:
        """SQLite: the size of the write-ahead log file in bytes (0 when there is none)."""
        if not self.wal_path:
            return 0
        try:
            return os.path.getsize(self.wal_path)
        except OSError:
            return 0

    def checkpoint(self) -> str | None:
        """SQLite: move the write-ahead log into the database file, in the background, not inside a commit.

        Passive first (copies what it can without waiting for anyone); then, if the log file is still over
        ``wal_limit_bytes``, a ``TRUNCATE`` checkpoint holding this process's writer lock: it waits (a few
        milliseconds: read transactions are short) until no reader needs the log, then empties the file.
        Returns the mode of the last checkpoint run, None for PostgreSQL.
        """
        if not self.is_sqlite:
            return None
        raw = self.read_engine.raw_connection()  # autocommit (isolation_level None): no BEGIN around the pragma
        try:
            cur = raw.cursor()
            cur.execute("PRAGMA wal_checkpoint(PASSIVE)")
            cur.fetchall()
            if self.wal_size() <= self.wal_limit_bytes:
                return "passive"
            with self._sqlite_writer:
                cur.execute("PRAGMA busy_timeout=2000")  # readers finish in milliseconds; else try again next time
                try:
                    cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                    cur.fetchall()
                finally:
                    cur.execute("PRAGMA busy_timeout=30000")
            return "truncate"
        finally:
            raw.close()

    def dispose(self) -> None:
        self.engine.dispose()
        if self.read_engine is not self.engine:
            self.read_engine.dispose()


def _sqlite_engine(url: str, immediate: bool, wal_limit: int = 0) -> Engine:
    engine = sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, pool_size=8, max_overflow=16)

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # type: ignore[no-untyped-def]
        dbapi_conn.isolation_level = None  # let SQLAlchemy's begin() below emit BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute("PRAGMA wal_autocheckpoint=0")  # checkpoints run in a background task (Database.checkpoint)
        cur.execute(f"PRAGMA journal_size_limit={int(wal_limit)}")  # a restarted log is cut back to this size
        cur.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(conn) -> None:  # type: ignore[no-untyped-def]
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


MIGRATIONS_DIR = Path(__file__).parent / "migrations"
MIGRATION_LOCK_KEY = 7_272_001  # PostgreSQL advisory lock: two processes starting at once migrate one after the other


def migrate(db: Database) -> None:
    """Bring the schema to the newest revision (Alembic, configured in code: works from an installed package)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with db.engine.connect() as conn:
        if db.is_postgres:
            conn.execute(sa.text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK_KEY})
            conn.commit()
        try:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            conn.commit()
        finally:
            if db.is_postgres:
                conn.execute(sa.text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK_KEY})
                conn.commit()
