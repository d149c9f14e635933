"""Database outages: what counts as one, and the ``503 unavailable`` answer it gets.

A full disk (SQLite: ``database or disk is full``, or any I/O error), a PostgreSQL server restarting or
unreachable, a connection dropped half-way, a pool with no free connection in time: the change was
not made (its transaction rolled back), nothing was acknowledged, and the client may simply try again.
The web layer answers ``503 {"error": {"code": "unavailable", ...}}`` with ``Retry-After``, the
WebSocket sends the same error; the log gets one warning line, no traceback. Connections are not checked
before each use (that would cost a round trip per request): the first request that finds its pooled
connection dead after a restart answers 503 too, and SQLAlchemy then replaces every connection made before
that moment, so the requests after it get fresh ones.
"""

from __future__ import annotations

import logging
import time

import sqlalchemy.exc as sa_exc

from .errors import ApiError

log = logging.getLogger("ttr.server")
RETRY_AFTER = 2  # seconds
OUTAGES: tuple[type[BaseException], ...] = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError)
_last_warning = [0.0]


def is_outage(exc: BaseException) -> bool:
    if isinstance(exc, OUTAGES):
        return True
    return isinstance(exc, sa_exc.DBAPIError) and bool(exc.connection_invalidated)


def unavailable(exc: BaseException | None = None) -> ApiError:
    """The 503 for an outage; logs one line (at most one a second, so that an outage does not flood the log)."""
    if exc is not None:
        now = time.monotonic()
        if now - _last_warning[0] >= 1.0:
            _last_warning[0] = now
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0][:200]
            log.warning("database unavailable (%s): answering 503", reason)
    return ApiError(503, "unavailable", "the game database is unavailable right now: try again shortly", retry_after=RETRY_AFTER)
