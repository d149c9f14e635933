"""Bot thinking and record replays in a bounded pool of worker processes, fairly shared between games.

Why processes: a bot's search is pure Python. Run in the server's threads it holds the GIL, so thirty
games of search bots starved the event loop (a medium bot took 21.8 s to answer a person, every
request waited). Here the server process only schedules; the thinking happens elsewhere.

**Workers and lanes.** ``workers`` processes (forkserver where available, else spawn), started on first
use and restarted when one dies. With two or more, the last one is the *light lane*: bots of the easy,
medium and hard levels (a few milliseconds a move; hard's short searches at its ticket choices and
last turns take up to about 0.2 s) and replays; the others are the *search lane*
(``max`` bots, which use their whole budget). So a person playing against medium bots never waits
behind a search, however many ``max`` games run. With one worker, everything shares it.

**Bots with memory.** A bot remembers what its seat saw (events) and its own earlier choices. Each game
is played by one worker of its lane (sticky: chosen when its first bot moves, the one with the fewest
games), which keeps that game's bots between moves and is sent only the events each bot has not seen
yet, exactly as they were for that seat. A bot is rebuilt from its seat's events when its worker no
longer has it (restarted, killed after an overrun, evicted) and after an undo (the events it saw are
no longer the game's) — what the server did before the pool, in the same cases.

**Fair sharing.** Each worker serves, among the games with a waiting job, the one that has used the
least thinking time so far (start-time fair queueing: a game that waited starts level with the others
and hoards no credit); a game with a person in it counts its time at a quarter. One game's job runs at
a time, so thirty bot-only games cannot starve a human game: its bot waits at most for the move being
thought when it asked.

**Budget.** A move has ``budget`` seconds: search bots get it as their time limit (ISMCTS
``time_per_move``, on top of the level's iteration cap; ticket choices twice that). A move not answered
within ``2 × budget + 1`` s is an overrun: the worker is killed and restarted, and the move is played by
the documented next cheaper level (max → hard → medium → easy). The worker checks every move against
the legal actions and falls back the same way when a bot fails or names an illegal move, so a bot never
stalls a game and never plays an illegal move.

The bot sees only its seat's ``PlayerView`` (and the events its seat may see); the worker rebuilds the
position from ``Game.to_dict()`` to compute that view and the legal actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..bots import LEVELS, Bot, make_bot
from ..engine import Action
from .config import DEFAULT_BOT_BUDGET, default_bot_workers
from .errors import ApiError
from .maps import game_from_position, game_from_record

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .service import LiveGame

log = logging.getLogger("ttr.server")

FALLBACK = {"max": "hard", "hard": "medium", "medium": "easy"}  # a bot that overruns or fails plays as this
HUMAN_WEIGHT = 4.0  # a game with a person in it counts its thinking time at 1/4
OVERRUN_GRACE = 1.0  # seconds past 2 × budget before a move counts as an overrun
MAX_KEPT_BOTS = 4096  # bots a worker keeps between moves (least recently used leave first)
MAX_REPLAY_JOBS = 64  # replay requests waiting at once (beyond: 503 unavailable)
MAX_REPLAY_JOBS_PER_GAME = 4
BOT_NICE = 5  # search workers run at a lower CPU priority than the server: requests first, searches with what is left
MAX_HOMES = 20_000  # games the pool remembers the worker of (least recently used leave first)


def is_heavy(level: str | None) -> bool:
    """Whether a bot level searches (uses its whole budget) rather than answering in milliseconds."""
    name = (level or "medium").split(":", 1)[0]
    return LEVELS.get(name, (name, {}))[0] == "ismcts"


def level_bot(level: str, seed: int, budget: float) -> Bot:
    """The bot of a difficulty level, with the move budget as the time limit of a search bot."""
    if is_heavy(level):
        return make_bot(level, seed=seed, time_per_move=budget)
    return make_bot(level, seed=seed)


class PoolBusy(ApiError):
    def __init__(self, message: str) -> None:
        super().__init__(503, "unavailable", message, retry_after=2)


# ====================================================================== in the worker process
@dataclass
class _Kept:
    bot: Bot
    level: str
    seen: int  # events observed


def _load_factory(spec: str | None) -> Callable[[str, int, float], Bot]:
    if not spec:
        return level_bot
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name)


def _decide(
    factory: Callable[[str, int, float], Bot], bot: Bot, level: str, seed: int, budget: float, view: Any, legal: list[Action]
) -> tuple[Action, str, str | None]:
    """The bot's move, checked; on failure the next cheaper level's, finally the first legal action."""
    problem = None
    current: Bot | None = bot
    while current is not None:
        try:
            action = current.act(view, list(legal))
            if action in legal:
                return action, level, problem
            problem = f"{level} bot named an illegal action {action}"
        except Exception as exc:
            problem = f"{level} bot failed: {type(exc).__name__}: {exc}"
        level = FALLBACK.get(level, "")
        current = factory(level, seed, budget) if level else None
    return legal[0], "first legal action", problem


def _think(kept: OrderedDict[tuple[str, int], _Kept], factory: Callable[[str, int, float], Bot], p: dict[str, Any]) -> Any:
    key = (p["game_id"], p["seat"])
    level, seed, budget = p["level"], p["seed"], p["budget"]
    k = kept.get(key)
    if p["full"] or p["transient"]:
        k = _Kept(factory(level, seed, budget), level, 0)
    elif k is None or k.seen != p["since"] or k.level != level:
        return "resend"  # this worker lost the bot (restarted, evicted): the server sends every event
    bot = k.bot
    if bot.wants_events:
        for e in p["events"]:
            bot.observe(e)
    k.seen += len(p["events"])
    if not p["transient"]:
        kept[key] = k
        kept.move_to_end(key)
        while len(kept) > MAX_KEPT_BOTS:
            kept.popitem(last=False)
    g = game_from_position(p["position"])
    seat = p["seat"]
    if seat not in g.to_act():
        raise RuntimeError(f"seat {seat} is not to move in this position")
    legal = g.legal_actions(seat)
    t0 = time.perf_counter()
    action, played, problem = _decide(factory, bot, level, seed, budget, g.view(seat), legal)
    return {
        "action": action.to_json(),
        "level": played,
        "problem": problem,
        "seconds": time.perf_counter() - t0,
        "pid": os.getpid(),
    }


def _worker_main(conn: Connection, factory_spec: str | None, nice: int = 0) -> None:
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the server; it stops the workers
    if nice:
        with contextlib.suppress(AttributeError, OSError):
            os.nice(nice)
    factory = _load_factory(factory_spec)
    kept: OrderedDict[tuple[str, int], _Kept] = OrderedDict()
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        kind, job_id, payload = msg
        if kind == "forget":
            for key in [k for k in kept if k[0] == payload]:
                del kept[key]
            continue
        try:
            if kind == "think":
                result: Any = _think(kept, factory, payload)
            elif kind == "replay":
                result = replay_step(payload["record"], payload["step"])
            else:
                raise ValueError(f"unknown job {kind!r}")
            reply = (job_id, "ok", result)
        except ApiError as exc:
            reply = (job_id, "api", (exc.status, exc.code, exc.message))
        except Exception as exc:
            reply = (job_id, "error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return


def replay_step(record: dict[str, Any], step: int) -> dict[str, Any]:
    """For the replay viewer: the public view after `step` actions of a finished game's record, who played
    action `step` and its public events (replaying the record; nothing is stored)."""
    actions = record["actions"]
    if step > len(actions):
        raise ApiError(422, "bad_step", f"step must be between 0 and {len(actions)}")
    seats = record.get("actors") or [None] * len(actions)  # records of format 1: setup one seat after the other
    game = game_from_record(record)
    for a, seat in zip(actions[: max(step - 1, 0)], seats, strict=False):
        game.step(a, seat)
    actor, events = None, []
    if step:
        actor = game.current if seats[step - 1] is None else seats[step - 1]
        events = [e.public() for e in game.apply(actions[step - 1], actor)]
    return {
        "step": step,
        "steps": len(actions),
        "actor": actor,
        "action": actions[step - 1] if step else None,
        "events": events,
        "view": game.view(None).to_dict(),
        "tie_breaks": game.tie_breaks() if game.is_over else [],  # the engine's, for the final sheet
    }


# ====================================================================== in the server process
@dataclass(eq=False)
class _Job:
    id: int
    kind: str  # think | replay
    key: str  # whose share it uses: the game
    weight: float
    future: asyncio.Future[Any]
    make_payload: Callable[[_Worker], dict[str, Any]]  # built when a worker takes it (it depends on what the worker has)
    deadline: float
    wanted: Callable[[], bool] = lambda: True
    urgent: bool = False
    started: float = 0.0
    payload: dict[str, Any] | None = None
    timer: asyncio.TimerHandle | None = None
    gen: int = 0  # the worker generation that ran it


@dataclass(eq=False)
class _Worker:
    index: int
    light: bool  # the light lane (easy/medium/hard bots, replays)
    process: Any = None
    conn: Any = None
    gen: int = 0  # incremented at every (re)start: what a worker kept belongs to one generation
    job: _Job | None = None
    queues: dict[str, deque[_Job]] = field(default_factory=dict)
    games: set[str] = field(default_factory=set)  # games whose bots this worker plays
    clock: float = 0.0  # virtual time: the share used by the job it started last
    restarts: int = 0


class BotPool:
    """See the module docstring. Used from one event loop; `think` and `replay` are coroutines."""

    def __init__(self, workers: int | None = None, budget: float = DEFAULT_BOT_BUDGET, factory: str | None = None) -> None:
        n = max(1, int(workers if workers is not None else default_bot_workers()))
        self.budget = float(budget)
        self.factory = factory
        self.workers = [_Worker(i, light=(n == 1 or i == n - 1)) for i in range(n)]
        self.search_lane = [w for w in self.workers if not w.light] or self.workers
        self.light_lane = [w for w in self.workers if w.light]
        self._home: OrderedDict[str, _Worker] = OrderedDict()  # game -> the worker playing its bots
        self._sent: dict[tuple[str, int], tuple[int, int, int, int]] = {}  # (game, seat) -> (worker, gen, epoch, events sent)
        self._vt: dict[str, float] = {}  # game -> thinking time used (weighted), for fair sharing
        self._ids = itertools.count(1)
        self._arrival = itertools.count()
        self._order: dict[int, int] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._ready = False
        self._starting: asyncio.Task[None] | None = None
        self._ctx = multiprocessing.get_context(
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        )
        if self._ctx.get_start_method() == "forkserver":
            self._ctx.set_forkserver_preload(["ttr.server.botpool"])
        self.stats = {"moves": 0, "overruns": 0, "fallbacks": 0, "rebuilds": 0, "restarts": 0}

    # ------------------------------------------------------------------ public
    async def start(self) -> None:
        """Start the worker processes, in a thread: the first start of the process server imports the engine and
        the bots there (seconds on a busy machine), and forking from it waits for that. Jobs wait until then."""
        self._loop = asyncio.get_running_loop()
        if self._starting is None:
            self._starting = asyncio.current_task()
        try:
            await asyncio.to_thread(self._start_processes)
        finally:
            self._ready = True
            for w in self.workers:
                self._dispatch(w)

    def _start_processes(self) -> None:
        for w in self.workers:
            if not self._closed:
                with contextlib.suppress(Exception):  # started again on its first job
                    self._ensure(w)

    @property
    def deadline(self) -> float:
        return 2 * self.budget + OVERRUN_GRACE

    def pids(self) -> list[int]:
        return [w.process.pid for w in self.workers if w.process is not None and w.process.is_alive()]

    async def think(
        self, live: LiveGame, seat: int, position: dict[str, Any], wanted: Callable[[], bool] | None = None
    ) -> dict[str, Any] | None:
        """The move of the bot in `seat` of `live`: ``{"action": JSON, "level": who played it, ...}``, or None if
        `wanted()` said, when a worker became free, that the game has moved on. `position` is ``live.game.to_dict()``."""
        level = live.seats[seat].level or "medium"
        home = self._home_of(live.id, any(is_heavy(x.level) for x in live.seats if x.type == "bot"))
        seed = (live.game.seed * 31 + seat) % (1 << 62)
        evs = [e for e in live.events if e.action_idx is not None and not e.undone]
        epoch = sum(1 for e in live.events if e.type == "undo")  # after an undo the bots' memories are rebuilt
        entitled = frozenset({seat})
        key = (live.id, seat)
        weight = HUMAN_WEIGHT if live.humans else 1.0

        def payload(worker: _Worker, lvl: str, transient: bool, full: bool) -> dict[str, Any]:
            prev = self._sent.get(key)
            since = 0
            if (
                not (full or transient)
                and prev is not None
                and prev[:3] == (worker.index, worker.gen, epoch)
                and prev[3] <= len(evs)
            ):
                since = prev[3]
            else:
                full = True
            return {
                "game_id": live.id,
                "seat": seat,
                "level": lvl,
                "seed": seed,
                "budget": self.budget,
                "full": full,
                "transient": transient,  # a fallback bot: built for this move only
                "since": since,
                "events": [e.form(entitled) for e in evs[since:]],
                "position": position,
            }

        lvl: str | None = level
        transient = False
        while lvl is not None:
            job = self._job("think", live.id, weight, lambda w, a=lvl, b=transient: payload(w, a, b, False), wanted, transient)
            status, result = await self._run(home, job)
            if status == "ok" and result == "resend":  # the worker no longer had this bot
                job = self._job("think", live.id, weight, lambda w, a=lvl, b=transient: payload(w, a, b, True), wanted, True)
                status, result = await self._run(home, job)
            if status == "dropped":
                return None
            if status == "ok" and isinstance(result, dict):
                if job.payload and job.payload["full"] and not transient:
                    self.stats["rebuilds"] += 1
                if not transient:
                    self._sent[key] = (home.index, job.gen, epoch, len(evs))
                self.stats["moves"] += 1
                if result.get("problem") or transient:
                    self.stats["fallbacks"] += 1
                    if result.get("problem"):
                        log.warning("game %s seat %d: %s; played as %s", live.id, seat, result["problem"], result["level"])
                result["fallback"] = transient or bool(result.get("problem"))
                return result
            if self._closed:
                raise PoolBusy("the server is stopping")
            # an overrun, a crash or a dead worker: the next cheaper level plays this move, in a fresh bot
            self._sent.pop(key, None)
            nxt = FALLBACK.get(lvl)
            log.warning(
                "game %s seat %d: the %s bot %s; the move is played as %s",
                live.id,
                seat,
                lvl,
                result,
                nxt or "the first legal action",
            )
            lvl, transient = nxt, True
        self.stats["fallbacks"] += 1
        legal = await asyncio.to_thread(lambda: game_from_position(position).legal_actions())
        return {"action": legal[0].to_json(), "level": "first legal action", "problem": "every level failed", "fallback": True}

    async def _run(self, worker: _Worker, job: _Job) -> tuple[str, Any]:
        self._enqueue(worker, job)
        try:
            return await job.future
        finally:
            if not job.future.done():
                job.future.cancel()  # the caller was cancelled: the job is skipped when its turn comes

    async def replay(self, game_id: str, record: dict[str, Any], step: int) -> dict[str, Any]:
        waiting = sum(len(q) for w in self.workers for k, q in w.queues.items() if k.startswith("replay:"))
        key = f"replay:{game_id}"
        worker = self.light_lane[0] if self.light_lane else self.workers[-1]
        if waiting >= MAX_REPLAY_JOBS or len(worker.queues.get(key, ())) >= MAX_REPLAY_JOBS_PER_GAME:
            raise PoolBusy("the server is busy replaying games: try again in a moment")
        job = self._job("replay", key, 1.0, lambda w: {"record": record, "step": step}, None)
        status, result = await self._run(worker, job)
        if status == "ok":
            return result
        if status == "api":
            raise ApiError(*result)
        raise PoolBusy(f"the replay could not be computed ({result}): try again in a moment")

    def forget(self, game_id: str) -> None:
        """The game is over (or gone): its bots can be dropped everywhere."""
        self._drop(game_id)

    def _drop(self, game_id: str) -> None:
        worker = self._home.pop(game_id, None)
        self._vt.pop(game_id, None)
        for key in [k for k in self._sent if k[0] == game_id]:
            del self._sent[key]
        if worker is not None:
            worker.games.discard(game_id)
            if worker.conn is not None:
                with contextlib.suppress(OSError, ValueError):
                    worker.conn.send(("forget", 0, game_id))

    async def stop(self) -> None:
        self._closed = True
        for w in self.workers:
            if w.job is not None and not w.job.future.done():
                w.job.future.set_result(("error", "the server is stopping"))
            for q in w.queues.values():
                for job in q:
                    if not job.future.done():
                        job.future.set_result(("error", "the server is stopping"))
            w.queues.clear()
        await asyncio.to_thread(self._stop_processes)

    # ------------------------------------------------------------------ scheduling
    def _home_of(self, game_id: str, heavy: bool) -> _Worker:
        w = self._home.get(game_id)
        if w is None:
            lane = self.search_lane if heavy else (self.light_lane or self.workers)
            w = min(lane, key=lambda x: (len(x.games), x.index))
            self._home[game_id] = w
            w.games.add(game_id)
            while len(self._home) > MAX_HOMES:  # abandoned games: their bots are rebuilt if they ever move again
                self._drop(next(iter(self._home)))
        else:
            self._home.move_to_end(game_id)
        return w

    def _job(
        self,
        kind: str,
        key: str,
        weight: float,
        make: Callable[[_Worker], dict[str, Any]],
        wanted: Callable[[], bool] | None,
        urgent: bool = False,
    ) -> _Job:
        loop = asyncio.get_running_loop()
        self._loop = loop
        if self._starting is None:
            self._starting = loop.create_task(self.start())
        deadline = self.deadline if kind == "think" else max(self.deadline, 10.0)
        job = _Job(next(self._ids), kind, key, weight, loop.create_future(), make, deadline, wanted or (lambda: True), urgent)
        self._order[job.id] = next(self._arrival)
        return job

    def _enqueue(self, worker: _Worker, job: _Job) -> None:
        if self._closed:
            job.future.set_result(("error", "the server is stopping"))
            return
        if job.key not in self._vt or self._vt[job.key] < worker.clock:
            self._vt[job.key] = worker.clock  # a game that waited starts level: no hoarded credit
        q = worker.queues.setdefault(job.key, deque())
        if job.urgent:
            q.appendleft(job)
        else:
            q.append(job)
        self._dispatch(worker)

    def _pick(self, worker: _Worker) -> _Job | None:
        best_key = None
        best: tuple[int, float, int] | None = None
        for key, q in worker.queues.items():
            head = q[0]
            rank = (0 if head.urgent else 1, self._vt.get(key, worker.clock), self._order.get(head.id, 0))
            if best is None or rank < best:
                best, best_key = rank, key
        if best_key is None:
            return None
        q = worker.queues[best_key]
        job = q.popleft()
        if not q:
            del worker.queues[best_key]
        return job

    def _dispatch(self, worker: _Worker) -> None:
        while worker.job is None and self._ready and not self._closed:
            job = self._pick(worker)
            if job is None:
                return
            self._order.pop(job.id, None)
            if job.future.done():
                continue  # the caller gave up (cancelled)
            if not job.wanted():
                job.future.set_result(("dropped", None))
                continue
            try:
                self._ensure(worker)
                job.payload = job.make_payload(worker)
                worker.conn.send((job.kind, job.id, job.payload))
            except Exception as exc:  # could not start or reach the worker
                log.warning("bot worker %d unusable (%s); restarting it", worker.index, exc)
                self._restart(worker)
                job.future.set_result(("error", f"worker unreachable: {exc}"))
                continue
            worker.job = job
            job.gen = worker.gen
            job.started = time.perf_counter()
            worker.clock = max(worker.clock, self._vt.get(job.key, worker.clock))
            assert self._loop is not None
            job.timer = self._loop.call_later(job.deadline, self._overrun, worker, worker.gen, job)

    def _finish(self, worker: _Worker, job: _Job, status: str, result: Any) -> None:
        if job.timer is not None:
            job.timer.cancel()
        worker.job = None
        if job.key in self._vt:  # (not if the game was forgotten meanwhile)
            self._vt[job.key] += (time.perf_counter() - job.started) / job.weight
        if job.key.startswith("replay:") and job.key not in worker.queues:
            self._vt.pop(job.key, None)
        if not job.future.done():
            job.future.set_result((status, result))
        self._dispatch(worker)

    def _overrun(self, worker: _Worker, gen: int, job: _Job) -> None:
        if worker.gen != gen or worker.job is not job:
            return
        self.stats["overruns"] += 1
        log.warning(
            "bot worker %d overran %.1f s on a %s job of %s: restarting it", worker.index, job.deadline, job.kind, job.key
        )
        self._restart(worker)
        self._finish(worker, job, "overrun", f"did not answer within {job.deadline:.1f} s")

    # ------------------------------------------------------------------ processes
    def _ensure(self, worker: _Worker) -> None:
        if worker.process is not None and worker.process.is_alive():
            return
        if worker.process is not None:
            self._restart(worker)
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(
            target=_worker_main,
            args=(child, self.factory, 0 if worker.light else BOT_NICE),
            name=f"ttr-bot-{worker.index}",
            daemon=True,
        )
        proc.start()
        child.close()
        worker.process, worker.conn = proc, parent
        worker.gen += 1
        gen = worker.gen
        threading.Thread(target=self._read, args=(worker, parent, gen), name=f"ttr-bot-read-{worker.index}", daemon=True).start()

    def _restart(self, worker: _Worker) -> None:
        """Kill the worker's process (it is started again on the next job); what it kept is lost."""
        proc, conn = worker.process, worker.conn
        worker.process = worker.conn = None
        worker.gen += 1
        worker.restarts += 1
        self.stats["restarts"] += 1
        if proc is not None:
            with contextlib.suppress(Exception):
                proc.kill()
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
        if proc is not None:
            threading.Thread(target=proc.join, args=(5,), daemon=True).start()  # reap it without blocking the loop

    def _read(self, worker: _Worker, conn: Connection, gen: int) -> None:
        """Thread: every answer of one worker process, handed to the event loop."""
        while True:
            try:
                msg = conn.recv()
            except (EOFError, OSError, ValueError):
                self._post(self._died, worker, gen)
                return
            except Exception as exc:  # an answer that does not unpickle
                msg = (worker.job.id if worker.job else 0, "error", f"bad answer: {exc}")
            self._post(self._answer, worker, gen, msg)

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(fn, *args)

    def _answer(self, worker: _Worker, gen: int, msg: Any) -> None:
        job = worker.job
        if gen != worker.gen or job is None or msg[0] != job.id:
            return  # a late answer from a process killed since
        self._finish(worker, job, msg[1], msg[2])

    def _died(self, worker: _Worker, gen: int) -> None:
        if gen != worker.gen or self._closed:
            return
        log.warning("bot worker %d exited unexpectedly; restarting it", worker.index)
        job = worker.job
        self._restart(worker)
        if job is not None:
            self._finish(worker, job, "died", "its worker process died")
        else:
            self._dispatch(worker)

    def _stop_processes(self) -> None:
        for w in self.workers:
            if w.conn is not None:
                with contextlib.suppress(Exception):
                    w.conn.send(None)
        for w in self.workers:
            proc = w.process
            if proc is not None:
                proc.join(1.0)
                if proc.is_alive():
                    proc.kill()
                    proc.join(1.0)
            if w.conn is not None:
                with contextlib.suppress(Exception):
                    w.conn.close()
            w.process = w.conn = None
            w.gen += 1
