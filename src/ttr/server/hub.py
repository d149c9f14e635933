"""The live side of one server process: who is watching which game, bots taking their turns, and news
from other processes (PostgreSQL LISTEN/NOTIFY).

Watchers (WebSockets) subscribe to a game and are woken when its snapshot changes; they then read the
cached snapshot and send what is new. A change made in this process wakes them directly after the
commit; a change made by another process arrives as a notification, the snapshot is reloaded once,
then the watchers are woken.

Bots: after a change that leaves a bot to move, this process plays that turn after ``bot_delay``
seconds. Before thinking it takes a short lease on the game row (so two processes never both think),
and it submits with the ``seq`` it thought about (so a bot never moves twice, even if a lease expired).
A sweeper finds bot turns that nobody played for a while — their process died — and plays them: that
is how games resume after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import anyio.to_thread

from ..bots import Bot, make_bot
from ..engine import Action
from .config import Settings
from .errors import ApiError
from .outage import is_outage, unavailable
from .service import Access, GameService, LiveGame

log = logging.getLogger("ttr.server")
T = TypeVar("T")


@dataclass
class _BotMemory:
    bot: Bot
    seen: int  # events observed up to this seq


class Hub:
    def __init__(self, service: GameService, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.bot_delay = settings.bot_delay
        self.inline = service.db.is_sqlite
        self._subs: dict[str, set[asyncio.Event]] = {}
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._bots: dict[tuple[str, int], _BotMemory] = {}
        self._bots_lock = threading.Lock()
        self._tasks: list[asyncio.Task[None]] = []
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self.settings.is_postgres:
            self._listener = threading.Thread(target=self._listen, name="ttr-listen", daemon=True)
            self._listener.start()
        self._tasks.append(asyncio.create_task(self._sweep(first_idle=0.0)))
        if self.service.db.is_sqlite:
            self._tasks.append(asyncio.create_task(self._checkpoints()))

    async def stop(self) -> None:
        self._stop.set()
        for task in [*self._tasks, *self._bot_tasks.values(), *self._refreshing.values()]:
            task.cancel()
        for task in [*self._tasks, *self._bot_tasks.values(), *self._refreshing.values()]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._listener is not None:
            await asyncio.to_thread(self._listener.join, 3.0)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run service code (database, engine). SQLite: right here — a change takes about a millisecond and SQLite
        runs one writer at a time anyway, while worker threads would fight the event loop for the GIL and add
        latency under load. PostgreSQL: in a worker thread, so that network round trips never block the loop."""
        try:
            if self.inline:
                return fn(*args, **kwargs)
            return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
        except Exception as exc:
            if is_outage(exc):  # a full disk, a database restarting: 503 unavailable, one log line
                raise unavailable(exc) from None
            raise

    # ------------------------------------------------------------------ watchers
    def subscribe(self, game_id: str) -> asyncio.Event:
        wake = asyncio.Event()
        self._subs.setdefault(game_id, set()).add(wake)
        return wake

    def unsubscribe(self, game_id: str, wake: asyncio.Event) -> None:
        subs = self._subs.get(game_id)
        if subs is not None:
            subs.discard(wake)
            if not subs:
                del self._subs[game_id]

    def announce(self, live: LiveGame) -> None:
        """A change to `live` was committed by this process: wake its watchers, start its bot if one is to move."""
        for wake in self._subs.get(live.id, ()):
            wake.set()
        if live.bot_to_move:
            self.schedule_bot(live.id)
        elif live.status in ("finished", "abandoned"):
            self._forget_bots(live.id)

    # ------------------------------------------------------------------ other processes
    def _listen(self) -> None:
        """Thread: LISTEN ttr_games on PostgreSQL and hand each notification to the event loop."""
        import psycopg

        url = self.settings.database_url.replace("postgresql+psycopg://", "postgresql://", 1)
        while not self._stop.is_set():
            try:
                with psycopg.connect(url, autocommit=True) as conn:
                    conn.execute("LISTEN ttr_games")
                    self._post(self._resync_watched)  # we may have missed notifications while (re)connecting
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=1.0):
                            game_id, _, seq = note.payload.partition(" ")
                            if seq.isdigit():
                                self._post(partial(self._on_remote, game_id, int(seq)))
            except Exception as exc:  # connection lost: retry
                if self._stop.is_set():
                    return
                log.warning("LISTEN connection lost (%s); reconnecting", exc)
                self._stop.wait(1.0)

    def _post(self, fn: Callable[[], None]) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(fn)

    def _resync_watched(self) -> None:
        for game_id in list(self._subs):
            self._on_remote(game_id, None)

    def _on_remote(self, game_id: str, seq: int | None) -> None:
        cached = self.service.cached(game_id)
        if seq is not None and cached is not None and cached.seq >= seq:
            return  # our own change, already announced
        if game_id not in self._subs:
            return  # nobody here watches it: it is loaded when someone asks
        if game_id in self._refreshing:
            self._dirty.add(game_id)
            return
        self._refreshing[game_id] = asyncio.get_running_loop().create_task(self._refresh(game_id))

    async def _refresh(self, game_id: str) -> None:
        """Reload a watched game changed by another process, then wake its watchers (again if it changed meanwhile)."""
        try:
            while True:
                self._dirty.discard(game_id)
                await self.call(self.service.get, game_id)
                for wake in self._subs.get(game_id, ()):
                    wake.set()
                if game_id not in self._dirty:
                    return
        except ApiError:
            return
        except Exception:
            log.exception("refreshing game %s failed", game_id)
        finally:
            self._refreshing.pop(game_id, None)

    # ------------------------------------------------------------------ bots
    def schedule_bot(self, game_id: str) -> None:
        task = self._bot_tasks.get(game_id)
        if task is None or task.done():
            self._bot_tasks[game_id] = asyncio.get_running_loop().create_task(self._drive_bots(game_id))

    async def _drive_bots(self, game_id: str) -> None:
        """Play bot turns of one game until a human is to move (or another process has the turn)."""
        try:
            tried_seq = -1
            while True:
                await asyncio.sleep(self.bot_delay)
                outcome, live = await self._bot_turn(game_id)
                if outcome == "moved":
                    self.announce(live)
                    if not live.bot_to_move:
                        return
                elif outcome == "stale" and live.seq != tried_seq:
                    tried_seq = live.seq  # the game moved under us (an undo, another process): look again
                else:
                    return
        except ApiError:
            return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot turn failed in game %s", game_id)
        finally:
            if self._bot_tasks.get(game_id) is asyncio.current_task():
                del self._bot_tasks[game_id]

    async def _bot_turn(self, game_id: str) -> tuple[str, LiveGame]:
        """Think and play one bot turn. Returns (moved | not_bot | busy | stale, snapshot)."""
        live = await self.call(self.service.get, game_id)
        if not live.bot_to_move:
            return "not_bot", live
        if not await self.call(self.service.take_bot_lease, game_id, live.seq):
            return "busy", live
        seat = live.game.current
        action = await anyio.to_thread.run_sync(self._think, live, seat)  # a strong bot may think for seconds
        try:
            new, _ = await self.call(self.service.submit, game_id, Access(frozenset({seat})), seat, action.to_json(), live.seq)
        except ApiError as exc:
            if exc.code == "state_changed":
                return "stale", await self.call(self.service.get, game_id)
            log.error("bot %s played an illegal action in game %s: %s", live.seats[seat].level, game_id, exc.message)
            return "stale", live
        return "moved", new

    def _think(self, live: LiveGame, seat: int) -> Action:
        g = live.game
        legal = g.legal_actions()
        bot = self._bot_for(live, seat)
        try:
            return bot.act(g.view(seat), legal)
        except Exception:
            log.exception("bot %s failed in game %s; playing its first legal action", live.seats[seat].level, live.id)
            return legal[0]

    def _bot_for(self, live: LiveGame, seat: int) -> Bot:
        """This process's bot for the seat, having observed every event its player may see (rebuilt after an undo)."""
        key = (live.id, seat)
        with self._bots_lock:
            mem = self._bots.get(key)
            if mem is not None and any(e.type == "undo" for e in live.events[mem.seen :]):
                mem = None
            if mem is None:
                level = live.seats[seat].level or "medium"
                mem = self._bots[key] = _BotMemory(make_bot(level, seed=(live.game.seed * 31 + seat) % (1 << 62)), 0)
            entitled = frozenset({seat})
            for e in live.events[mem.seen :]:
                if e.action_idx is not None and not e.undone:
                    mem.bot.observe(e.form(entitled))
            mem.seen = live.seq
            return mem.bot

    def _forget_bots(self, game_id: str) -> None:
        with self._bots_lock:
            for key in [k for k in self._bots if k[0] == game_id]:
                del self._bots[key]

    async def _checkpoints(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            try:
                await anyio.to_thread.run_sync(self.service.db.checkpoint)  # it may fsync: never on the event loop
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # busy: next time
                log.debug("checkpoint skipped: %s", exc)

    async def _sweep(self, first_idle: float) -> None:
        """Start bot turns nobody is playing: at start-up all of them, later those idle for a while."""
        idle = first_idle
        while True:
            try:
                for game_id in await self.call(self.service.bot_games_due, idle):
                    self.schedule_bot(game_id)
            except asyncio.CancelledError:
                raise
            except ApiError as exc:  # the database is unavailable (logged once): next time
                log.debug("bot sweep skipped: %s", exc.message)
            except Exception:
                log.exception("bot sweep failed")
            idle = self.bot_delay + 2 * self.settings.bot_sweep_seconds
            await asyncio.sleep(self.settings.bot_sweep_seconds)
