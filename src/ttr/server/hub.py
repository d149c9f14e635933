"""The live side of one server process: who is watching which game, bots taking their turns, and news
from other processes (PostgreSQL LISTEN/NOTIFY).

Watchers (WebSockets) subscribe to a game and are woken when its snapshot changes; they then read the
cached snapshot and send what is new. A change made in this process wakes them directly after the
commit; a change made by another process arrives as a notification, the snapshot is reloaded once,
then the watchers are woken.

Bots: after a change that leaves a bot to move, this process plays that turn. Before thinking it takes a
short lease on the game row (so two processes never both think), and it submits with the ``seq`` it
thought about (so a bot never moves twice, even if a lease expired). The thinking happens in the bot
pool (``botpool``: worker processes, fairly shared between games, a time budget per move); the move is
submitted no earlier than ``bot_delay`` seconds after the change it answers (so people can follow), or
``undo_window`` seconds when that change was a person's move that can still be undone (so they can take
it back before a bot answers: an undo never goes past another seat's move). A sweeper finds bot turns
that nobody played for a while — their process died — and plays them: that is how games resume after a
restart.

Service code (database and engine) runs in worker threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, Protocol, TypeVar

import anyio.to_thread

from .botpool import BotPool
from .config import Settings
from .errors import ApiError
from .maps import position_json
from .outage import is_outage, unavailable
from .service import Access, GameService, LiveGame

log = logging.getLogger("ttr.server")
T = TypeVar("T")


class Watcher(Protocol):
    """What the hub reads of a WebSocket session to render its next update: whose view, and the seq it has seen."""

    access: Access
    seat: int | None
    last: int


class Hub:
    def __init__(self, service: GameService, settings: Settings) -> None:
        self.service = service
        self.settings = settings
        self.bot_delay = settings.bot_delay
        self.undo_window = settings.undo_window
        self.pool = BotPool(settings.bot_workers, settings.bot_budget, settings.bot_factory)
        self._subs: dict[str, dict[asyncio.Event, Watcher | None]] = {}
        self._chat_subs: dict[str, set[asyncio.Event]] = {}
        self._rendering: set[asyncio.Task[None]] = set()
        self._bot_tasks: dict[str, asyncio.Task[None]] = {}
        self._bots_again: set[str] = set()  # games whose change arrived while their bot driver was running
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._stop = threading.Event()
        self._listener: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clock_wake: asyncio.Event | None = None

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self.settings.is_postgres:
            self._listener = threading.Thread(target=self._listen, name="ttr-listen", daemon=True)
            self._listener.start()
        await self.pool.start()  # ready to think before the server answers (the first start takes a few seconds)
        self._tasks.append(asyncio.create_task(self._sweep(first_idle=0.0)))
        self._clock_wake = asyncio.Event()
        self._tasks.append(asyncio.create_task(self._clocks()))
        if self.service.db.is_sqlite:
            self._tasks.append(asyncio.create_task(self._checkpoints()))

    async def stop(self) -> None:
        self._stop.set()
        for task in [*self._tasks, *self._bot_tasks.values(), *self._refreshing.values(), *self._rendering]:
            task.cancel()
        for task in [*self._tasks, *self._bot_tasks.values(), *self._refreshing.values(), *self._rendering]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._listener is not None:
            await asyncio.to_thread(self._listener.join, 3.0)
        await self.pool.stop()

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run service code (database, engine) in a worker thread: the event loop only routes requests, so a slow
        engine call or database never stalls the other games (SQLite and PostgreSQL alike)."""
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
        except Exception as exc:
            if is_outage(exc):  # a full disk, a database restarting: 503 unavailable, one log line
                raise unavailable(exc) from None
            raise

    async def change(self, fn: Callable[..., tuple[LiveGame, T]], game_id: str, *args: Any) -> tuple[LiveGame, T]:
        """Run a change of `game_id` (service code returning the new snapshot first), render its watchers' updates in
        the same worker thread (one hand-off to a thread per change, not two), then announce it.

        The watchers are listed on the event loop before the call; one that arrives meanwhile, or has moved on to
        another point, gets its update rendered by ``announce`` as before."""
        watchers = [w for w in self._subs.get(game_id, {}).values() if w is not None]

        def run() -> tuple[LiveGame, T]:
            new, result = fn(game_id, *args)
            if watchers:
                try:
                    for access, seat, last in {(w.access, w.seat, w.last) for w in watchers if 0 <= w.last < new.seq}:
                        new.update_text(access, seat, last)
                except Exception:  # the change is made: a watcher renders its own update on the event loop
                    log.exception("rendering the updates of game %s failed", game_id)
            return new, result

        new, result = await self.call(run)
        self.announce(new)
        return new, result

    # ------------------------------------------------------------------ watchers
    def subscribe(self, game_id: str, watcher: Watcher | None = None) -> asyncio.Event:
        """Be woken (the Event is set) after every change to the game. A `watcher` (a WebSocket session) gets its
        next update rendered in a worker thread before it is woken (see announce)."""
        wake = asyncio.Event()
        self._subs.setdefault(game_id, {})[wake] = watcher
        return wake

    def unsubscribe(self, game_id: str, wake: asyncio.Event) -> None:
        subs = self._subs.get(game_id)
        if subs is not None:
            subs.pop(wake, None)
            if not subs:
                del self._subs[game_id]

    def subscribe_chat(self, game_id: str) -> asyncio.Event:
        wake = asyncio.Event()
        self._chat_subs.setdefault(game_id, set()).add(wake)
        return wake

    def unsubscribe_chat(self, game_id: str, wake: asyncio.Event) -> None:
        subs = self._chat_subs.get(game_id)
        if subs is not None:
            subs.discard(wake)
            if not subs:
                del self._chat_subs[game_id]

    def announce_chat(self, game_id: str) -> None:
        """A chat message was written in `game_id` (here, or in another process: a notification)."""
        for wake in self._chat_subs.get(game_id, ()):
            wake.set()

    def announce(self, live: LiveGame) -> None:
        """A change to `live` was committed by this process: wake its watchers, start its bot if one is to move.

        The watchers' updates (each seat's view, legal actions and rule answers as JSON: milliseconds of CPU for
        each) are rendered first in a worker thread, so that the event loop only sends them."""
        subs = self._subs.get(live.id)
        if subs:
            todo = {
                (w.access, w.seat, w.last)
                for w in subs.values()
                if w is not None and 0 <= w.last < live.seq and ("update", w.access, w.seat, w.last) not in live.memo
            }
            if todo:
                task = asyncio.get_running_loop().create_task(self._render_and_wake(live, todo))
                self._rendering.add(task)
                task.add_done_callback(self._rendering.discard)
            else:
                self._wake(live.id)
        if live.deadline is not None and self._clock_wake is not None:
            self._clock_wake.set()  # a new deadline: the clock loop sleeps until the earliest one
        if live.bot_to_move:
            self.schedule_bot(live.id)
        elif live.status in ("finished", "abandoned"):
            self._forget_bots(live.id)

    def _wake(self, game_id: str) -> None:
        for wake in self._subs.get(game_id, ()):
            wake.set()

    async def _render_and_wake(self, live: LiveGame, todo: set[tuple[Access, int | None, int]]) -> None:
        def render() -> None:
            for access, seat, last in todo:
                live.update_text(access, seat, last)  # kept in the snapshot's memo, where the watchers look

        try:
            await anyio.to_thread.run_sync(render)
        except Exception:  # a watcher renders its own update on the event loop: it must not miss the change
            log.exception("rendering the updates of game %s failed", live.id)
        finally:
            self._wake(live.id)

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
                            seq, _, origin = seq.partition(" ")
                            if seq == "chat":
                                self._post(partial(self.announce_chat, game_id))
                            elif seq.isdigit() and origin != self.service.db.origin:
                                # (our own changes are announced once committed and cached: the notice of one can
                                # arrive before it is cached, and would only make us load the game again)
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
                self._wake(game_id)
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
        else:  # its driver may be reading an older snapshot right now: it must look once more before it stops
            self._bots_again.add(game_id)

    async def _drive_bots(self, game_id: str) -> None:
        """Play bot turns of one game until a human is to move (or another process has the turn)."""
        try:
            tried_seq = -1
            while True:
                self._bots_again.discard(game_id)
                outcome, live = await self._bot_turn(game_id)
                # "moved" was announced by Hub.change, which schedules this game again if a bot is to move
                if outcome == "stale" and live.seq != tried_seq:
                    tried_seq = live.seq  # the game moved under us (an undo, another process): look again
                    self._bots_again.add(game_id)
                if game_id not in self._bots_again:
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
                self._bots_again.discard(game_id)

    def pause(self, live: LiveGame) -> float:
        """Seconds between the change `live` shows and a bot's answer: the undo window after a person's move that
        can still be undone (alone against bots, or hot-seat), else the bot delay."""
        if (
            self.undo_window > self.bot_delay
            and live.undo_allowed
            and isinstance(live.undo_check(Access(live.humans, hotseat=live.hotseat)), int)
        ):
            return self.undo_window
        return self.bot_delay

    async def _bot_turn(self, game_id: str) -> tuple[str, LiveGame]:
        """Think and play one bot turn. Returns (moved | not_bot | busy | stale, snapshot)."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        live, leased, position = await self.call(self._prepare_bot_turn, game_id)
        if not live.bot_to_move:
            return "not_bot", live
        if not leased:
            return "busy", live
        assert position is not None
        seat = live.bot_seat
        assert seat is not None
        not_before = start + self.pause(live)

        def wanted() -> bool:  # asked when a worker is free: skip the thinking if the game has moved on meanwhile
            cur = self.service.cached(game_id)
            return cur is None or cur.seq == live.seq

        move = await self.pool.think(live, seat, position, wanted)
        if move is None:
            return "stale", await self.call(self.service.get, game_id)
        wait = not_before - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)  # the bot thought meanwhile: it answers after the delay, not delay + thinking
        try:
            new, _ = await self.change(self.service.submit, game_id, Access(frozenset({seat})), seat, move["action"], live.seq)
        except ApiError as exc:
            if exc.code == "state_changed":
                return "stale", await self.call(self.service.get, game_id)
            log.error("bot %s played an illegal action in game %s: %s", live.seats[seat].level, game_id, exc.message)
            return "stale", live
        return "moved", new

    def _prepare_bot_turn(self, game_id: str) -> tuple[LiveGame, bool, dict[str, Any] | None]:
        """(Thread) the game, whether this process took the lease to play its bot's turn, the position to think about."""
        live = self.service.get(game_id)
        if not live.bot_to_move or not self.service.take_bot_lease(game_id, live.seq):
            return live, False, None
        return live, True, _position(live)

    def _forget_bots(self, game_id: str) -> None:
        self.pool.forget(game_id)

    async def _checkpoints(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            try:
                await anyio.to_thread.run_sync(self.service.db.checkpoint)  # it may fsync: never on the event loop
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # busy: next time
                log.debug("checkpoint skipped: %s", exc)

    async def _clocks(self) -> None:
        """Fire the deadlines of games whose seat to move ran out of time. The deadlines live in the database, so
        they survive a restart (this loop starts by firing those that passed meanwhile) and every process sees
        those armed by the others (polled every ``clock_poll_seconds``; the ones this process arms wake it at
        once). Firing is decided with the game's row locked: two processes never both fire one deadline."""
        assert self._clock_wake is not None
        poll = self.settings.clock_poll_seconds
        while True:
            sleep = poll
            self._clock_wake.clear()  # before the scan: a deadline armed while it runs wakes the wait below
            try:
                due, nxt = await self.call(self.service.clock_scan)
                for game_id in due:
                    try:
                        live, fired = await self.call(self.service.timeout, game_id)
                    except ApiError:
                        continue
                    if fired:
                        self.announce(live)
                if due:
                    continue  # look again at once: more may be due
                if nxt is not None:
                    sleep = min(poll, max(0.0, (nxt - datetime.now(UTC)).total_seconds()))
            except asyncio.CancelledError:
                raise
            except ApiError as exc:
                log.debug("clock scan skipped: %s", exc.message)
            except Exception:
                log.exception("clock scan failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._clock_wake.wait(), timeout=sleep)

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


def _position(live: LiveGame) -> dict[str, Any]:
    """The position a bot thinks about (computed once per snapshot)."""
    pos = live.memo.get("position")
    if pos is None:
        pos = live.memo["position"] = position_json(live.game)
    return pos
