"""The expiry sweep: games nobody plays any more are closed, and what this process kept of them is freed.

A game with human seats is abandoned when no human has done anything (joined, moved, undone) for
``abandon_after_seconds`` — its ``updated_at``: bots move only until a human is to move, so a game
whose humans left stops changing. A bot-only game is abandoned ``abandon_bot_games_after_seconds``
after it was created (bots alone finish a game in minutes). A rematch offer whose game has not started
(some seat of the old table has not accepted) expires ``rematch_offer_seconds`` after it was made; the
old table may then offer again. Finished games are never touched.

Closing keeps everything stored (actions, events, position) and sets the status to ``abandoned``,
with a last event ``game_closed {"reason": "abandoned"}`` (``"rematch_expired"`` for an offer) that
every watcher receives; actions and joins are then refused with ``409 game_closed``. This process
then drops the game's cached snapshot, lock and bot memory. Several processes may sweep at once:
closing is a change like any other (the game's row is locked, the condition checked again inside the
transaction), so a game is closed once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from ..engine import Event
from .db import games, seats
from .errors import ApiError
from .service import ABANDONED, ACTIVE, OPEN, GameService, LiveGame

if TYPE_CHECKING:
    from .config import Settings
    from .hub import Hub

log = logging.getLogger("ttr.server")
FORGET_DELAY = 2.0  # seconds between closing a game and freeing its snapshot: watchers first send the last update


def _parse(ts: str) -> datetime:
    dt = datetime.fromisoformat(ts)
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


class Expiry:
    def __init__(self, service: GameService, hub: Hub, settings: Settings) -> None:
        self.service = service
        self.hub = hub
        self.human_after = timedelta(seconds=settings.abandon_after_seconds)
        self.bot_after = timedelta(seconds=settings.abandon_bot_games_after_seconds)
        self.offer_after = timedelta(seconds=settings.rematch_offer_seconds)
        self.every = settings.expiry_sweep_seconds
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.every > 0:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: next time
                log.warning("expiry sweep skipped: %s", exc)

    async def sweep(self) -> list[str]:
        """Close every abandoned game now; returns their ids."""
        closed = []
        for game_id in await asyncio.to_thread(self.due):
            try:
                live = await asyncio.to_thread(self.close, game_id)
            except ApiError:
                continue
            if live is None:
                continue
            closed.append(game_id)
            self.hub.announce(live)
            asyncio.get_running_loop().call_later(FORGET_DELAY, self.service.forget, game_id)
        await asyncio.to_thread(self._prune_created)
        if closed:
            log.info("closed %d abandoned game(s)", len(closed))
        return closed

    def due(self, now: datetime | None = None) -> list[str]:
        """Ids of the games in play past their time (see the module's docstring)."""
        now = now or datetime.now(UTC)
        has_human = sa.exists().where(seats.c.game_id == games.c.id, seats.c.type == "human")
        due = []
        if self.human_after:
            due.append(sa.and_(has_human, games.c.updated_at < now - self.human_after))
        if self.bot_after:
            due.append(sa.and_(~has_human, games.c.created_at < now - self.bot_after))
        if self.offer_after:
            offers = sa.select(games.c.rematch).where(games.c.rematch.is_not(None)).scalar_subquery()
            due.append(sa.and_(games.c.status == OPEN, games.c.id.in_(offers), games.c.created_at < now - self.offer_after))
        if not due:
            return []
        with self.service.db.read() as conn:
            rows = conn.execute(sa.select(games.c.id).where(games.c.status.in_((OPEN, ACTIVE)), sa.or_(*due))).all()
        return [r.id for r in rows]

    def _reason(self, conn: Connection, live: LiveGame, now: datetime) -> str | None:
        """Why `live` is to be closed now ("abandoned", "rematch_expired"), or None if it is not."""
        if live.status not in (OPEN, ACTIVE):
            return None
        if (
            live.status == OPEN
            and self.offer_after
            and _parse(live.created_at) < now - self.offer_after
            and conn.execute(sa.select(games.c.id).where(games.c.rematch == live.id).limit(1)).first() is not None
        ):
            return "rematch_expired"
        if live.humans:
            idle = bool(self.human_after) and _parse(live.updated_at) < now - self.human_after
        else:
            idle = bool(self.bot_after) and _parse(live.created_at) < now - self.bot_after
        return "abandoned" if idle else None

    def close(self, game_id: str) -> LiveGame | None:
        """Close one abandoned game (checked again under its lock); None if it is no longer abandoned."""
        service = self.service
        now = datetime.now(UTC)

        def change(conn: Connection, live: LiveGame) -> tuple[LiveGame, bool]:
            reason = self._reason(conn, live, now)
            if reason is None:
                return live, False
            new, _ = service._append(conn, live, now, [(None, Event("game_closed", None, {"reason": reason}))], status=ABANDONED)
            return new, True

        live, done = service._change(game_id, change)
        return live if done else None

    def _prune_created(self) -> None:
        """Forget the games of the per-client cap that are no longer in play (the cap counts the others)."""
        service = self.service
        with service._guard:
            ids = [g for mine in service._created.values() for g in mine]
        if not ids:
            return
        asked = set(ids)
        in_play: set[str] = set()
        with service.db.read() as conn:
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                rows = conn.execute(sa.select(games.c.id).where(games.c.id.in_(chunk), games.c.status.in_((OPEN, ACTIVE))))
                in_play.update(r.id for r in rows)
        with service._guard:
            for client in list(service._created):
                kept = [g for g in service._created[client] if g in in_play or g not in asked]
                if kept:
                    service._created[client] = kept
                else:
                    del service._created[client]
