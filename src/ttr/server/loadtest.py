"""Load test: N concurrent games played through the real HTTP/WebSocket API of a running server.

Every game has human seats driven by this client (random legal actions, after a think time) and
optionally bots played by the server. Each seat has its own WebSocket; it acts when an update shows
that it is its turn, by POSTing the action with ``expected_seq``. When a game ends a new one takes its
place until the time is up. Measured: actions per second, the latency of each action (POST sent to
response received), the delay until the acting seat's WebSocket shows the change, and every error.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import random
import statistics
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson
from websockets.asyncio.client import connect


class HttpError(Exception):
    """The server closed the connection or answered something that is not HTTP/1.1 with a length."""


class Http1:
    """One keep-alive HTTP/1.1 connection per seat, just enough for this server's JSON answers.

    httpx's connection pool looks at every pooled connection on each request: with 600 seats that scan was
    most of the client's CPU (and the client, not the server, limited the figures). A seat sends one
    request at a time, so a plain connection of its own is all it needs."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.hostport = f"{host}:{port}".encode()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        data = b"" if body is None else orjson.dumps(body)
        head = [f"{method} {path} HTTP/1.1".encode(), b"Host: " + self.hostport, b"Content-Length: " + str(len(data)).encode()]
        if body is not None:
            head.append(b"Content-Type: application/json")
        if token:
            head.append(b"Authorization: Bearer " + token.encode())
        raw = b"\r\n".join(head) + b"\r\n\r\n" + data
        for attempt in range(2):
            reused = self.writer is not None
            if self.writer is None or self.reader is None or self.reader.at_eof():
                await self.close()
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
                reused = False
            try:
                self.writer.write(raw)
                assert self.reader is not None
                status_line = await self.reader.readline()
                if not status_line:
                    raise ConnectionResetError("connection closed before the answer")
            except (ConnectionError, OSError):
                await self.close()
                if reused and attempt == 0:  # an idle connection the server had closed: nothing was read, send again
                    continue
                raise
            return await self._answer(status_line)
        raise HttpError("unreachable")

    async def _answer(self, status_line: bytes) -> tuple[int, dict[str, str], bytes]:
        assert self.reader is not None
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith(b"HTTP/1."):
            await self.close()
            raise HttpError(f"not an HTTP answer: {status_line[:80]!r}")
        status = int(parts[1])
        headers: dict[str, str] = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await self.reader.readline()).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            body = b"".join(chunks)
        else:
            body = await self.reader.read()
            await self.close()
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, body


@dataclass
class LoadConfig:
    url: str
    games: int = 100
    duration: float = 60.0
    humans: int = 2
    bots: int = 0
    bot_level: str = "easy"
    edition: str = "usa"
    think: float = 1.0  # mean seconds a seat waits before acting (uniform 0..2*think)
    seed: int = 1
    via: str = "http"  # how actions are sent: "http" (POST) or "ws" (over the seat's WebSocket)
    procs: int = 1  # client processes sharing the games (one event loop each)
    ramp: float = 0.0  # seconds over which the games' first starts are spread (0: within the first 5 s)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, POST -> response
    server_times: list[float] = field(default_factory=list)  # seconds the server spent on it (Server-Timing)
    server_times_at: list[float] = field(default_factory=list)  # when each of them was sent, seconds into the run
    update_delays: list[float] = field(default_factory=list)  # seconds, POST -> own WebSocket shows the new seq
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    games_started: int = 0
    games_finished: int = 0
    ws_messages: int = 0
    ws_bytes: int = 0
    stale_refused: int = 0  # actions sent on an update older than our own last action, refused as state_changed
    loop_lags: list[float] = field(default_factory=list)  # seconds this client's event loop was late (a busy client or machine)
    cpu_s: float = 0.0  # CPU time of the client process(es)

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{kind}: {detail[:200]}")

    def merge(self, other: Stats) -> None:
        for name in ("latencies", "server_times", "server_times_at", "update_delays", "loop_lags"):
            getattr(self, name).extend(getattr(other, name))
        for kind, n in other.errors.items():
            self.errors[kind] = self.errors.get(kind, 0) + n
        self.error_samples.extend(other.error_samples[: max(0, 10 - len(self.error_samples))])
        for name in ("games_started", "games_finished", "ws_messages", "ws_bytes", "stale_refused", "cpu_s"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


class LoadTest:
    """The games of one client process (`games` of them, seeded by `seed`), until `deadline` (time.time())."""

    def __init__(self, cfg: LoadConfig, deadline: float) -> None:
        self.cfg = cfg
        self.stats = Stats()
        self.rng = random.Random(cfg.seed)
        self.wall_deadline = deadline
        self.deadline = 0.0
        self.start = 0.0  # time.perf_counter() at the start of the run (every client process starts together)
        self.ws_base = "ws" + cfg.url.removeprefix("http")
        parts = urlsplit(cfg.url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        if parts.scheme != "http":
            raise ValueError("ttr loadtest speaks plain http:// (put it next to the server, not behind TLS)")

    async def run(self) -> Stats:
        cpu0 = time.process_time()
        self.deadline = time.perf_counter() + (self.wall_deadline - time.time())
        self.start = self.deadline - self.cfg.duration
        monitor = asyncio.create_task(self.watch_loop())
        await asyncio.gather(*(self.slot(i) for i in range(self.cfg.games)))
        monitor.cancel()
        self.stats.cpu_s = time.process_time() - cpu0
        return self.stats

    async def watch_loop(self) -> None:
        """How late a 20 ms sleep wakes up: time the measured latencies spent waiting for this client, not the server."""
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(0.02)
            self.stats.loop_lags.append(time.perf_counter() - t0 - 0.02)

    async def slot(self, i: int) -> None:
        """Keep one game going until the time is up (start a new one when it ends)."""
        duration = max(0.0, self.deadline - time.perf_counter())
        await asyncio.sleep(self.rng.random() * (min(self.cfg.ramp, duration) or min(5.0, duration / 4)))  # stagger
        http = Http1(self.host, self.port)
        try:
            while time.perf_counter() < self.deadline:
                try:
                    await self.play_game(http)
                except Exception as exc:  # a broken connection or an unexpected answer: count it, go on
                    self.stats.error(type(exc).__name__, repr(exc))
                    await http.close()
                    await asyncio.sleep(0.5)
        finally:
            await http.close()

    async def play_game(self, http: Http1) -> None:
        cfg = self.cfg
        seats = [{"type": "human"}] * cfg.humans + [{"type": "bot", "level": cfg.bot_level}] * cfg.bots
        status, _, body = await http.request(
            "POST", "/api/games", {"edition": cfg.edition, "players": len(seats), "seats": seats, "public": False}
        )
        if status != 201:
            self.stats.error(f"create {status}", body.decode(errors="replace"))
            await asyncio.sleep(1)
            return
        created = orjson.loads(body)
        gid = created["game_id"]
        self.stats.games_started += 1
        tokens = [s["token"] for s in created["seats"] if s["type"] == "human"]
        for n, token in enumerate(tokens):
            status, _, body = await http.request("POST", f"/api/games/{gid}/join", {"name": f"load{n}"}, token)
            if status != 200:
                self.stats.error(f"join {status}", body.decode(errors="replace"))
                return
        done = await asyncio.gather(*(self.play_seat(gid, token, http if n == 0 else None) for n, token in enumerate(tokens)))
        if any(done):
            self.stats.games_finished += 1

    async def play_seat(self, gid: str, token: str, http: Http1 | None) -> bool:
        """One human seat: act on every update that shows our turn. True when the game ended."""
        own = http is None
        if http is None:
            http = Http1(self.host, self.port)
        try:
            return await self._play_seat(gid, token, http)
        finally:
            if own:
                await http.close()

    async def _play_seat(self, gid: str, token: str, http: Http1) -> bool:
        rng = random.Random(self.rng.random())
        waiting: tuple[int, float] | None = None  # (seq after our action, when we sent it)
        acted_at = -1
        done_seq = -1
        stats = self.stats
        async with connect(f"{self.ws_base}/ws/games/{gid}?token={token}", max_size=2**22, open_timeout=30) as ws:
            while True:
                remaining = self.deadline - time.perf_counter()
                if remaining <= 0:
                    return False
                try:
                    raw = await asyncio.wait_for(ws.recv(decode=False), timeout=remaining)
                except TimeoutError:
                    return False
                stats.ws_messages += 1
                stats.ws_bytes += len(raw)
                msg = orjson.loads(raw)
                if msg["type"] == "error":
                    if msg["error"]["code"] == "state_changed":
                        # setup: the seats choose at once, so an update of another seat's choice may arrive before
                        # the one showing ours, and acting on it again is refused: the server's guard, not a failure
                        stats.stale_refused += 1
                    else:
                        stats.error(f"ws {msg['error']['code']}", msg["error"]["message"])
                    continue
                st = msg["state"]
                if waiting and msg["seq"] >= waiting[0]:
                    delay = time.perf_counter() - waiting[1]
                    stats.update_delays.append(delay)
                    if self.cfg.via == "ws":
                        stats.latencies.append(delay)
                    waiting = None
                if st["summary"]["status"] == "finished":
                    return True
                if not st["legal"] or st["seq"] == acted_at or st["seq"] < done_seq:  # done_seq: see below
                    continue
                acted_at = st["seq"]
                if self.cfg.think > 0:
                    await asyncio.sleep(rng.uniform(0, 2 * self.cfg.think))
                body = {"action": rng.choice(st["legal"]), "expected_seq": st["seq"], "seat": st["seat"]}
                t0 = time.perf_counter()
                if self.cfg.via == "ws":  # the answer is the update that shows the action (or an error message)
                    await ws.send(orjson.dumps({"type": "action", **body}).decode())
                    waiting = (st["seq"] + 1, t0)
                    continue
                status, headers, answer = await http.request("POST", f"/api/games/{gid}/actions", body, token)
                stats.latencies.append(time.perf_counter() - t0)
                timing = headers.get("server-timing", "")
                if timing.startswith("app;dur="):
                    stats.server_times.append(float(timing[8:]) / 1000)
                    stats.server_times_at.append(t0 - self.start)
                if status != 200:
                    stats.error(f"action {status}", answer.decode(errors="replace"))
                    continue
                seq = orjson.loads(answer)["seq"]
                waiting = (seq, t0)
                done_seq = seq  # setup: an update of another seat's choice may come without ours yet


def _raise_nofile() -> None:
    with contextlib.suppress(AttributeError, ValueError, OSError):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))


def _run_part(cfg: LoadConfig, deadline: float) -> dict[str, Any]:
    """One client process's games (also the whole run when procs == 1): its Stats as a dict (picklable)."""
    _raise_nofile()
    try:
        import uvloop

        runner = uvloop.run
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        runner = asyncio.run
    return asdict(runner(LoadTest(cfg, deadline).run()))


def _worker(cfg: LoadConfig, ready: Any, out: Any) -> None:
    """A client process: once every process has started (the barrier), play cfg.duration seconds, send the stats."""
    try:
        ready.wait(120)
        out.put(_run_part(cfg, time.time() + cfg.duration))
    except BaseException as exc:  # the parent reports it as an error of the run
        out.put({"errors": {f"client process {type(exc).__name__}": 1}, "error_samples": [repr(exc)[:200]]})


def split_games(games: int, procs: int) -> list[int]:
    """`games` shared between `procs` client processes as evenly as possible (none gets 0)."""
    procs = max(1, min(procs, games))
    return [games // procs + (1 if i < games % procs else 0) for i in range(procs)]


def run_load(cfg: LoadConfig) -> dict[str, Any]:
    """Play the load from `cfg.procs` client processes and report (actions, latencies, errors, client CPU)."""
    shares = split_games(cfg.games, cfg.procs)
    if len(shares) == 1:
        start = time.perf_counter()
        parts = [_run_part(cfg, time.time() + cfg.duration)]
    else:
        ctx = multiprocessing.get_context("spawn")  # no fork of a process that may run threads (RSS sampler)
        ready = ctx.Barrier(len(shares) + 1)
        out = ctx.Queue()
        workers = [
            ctx.Process(
                target=_worker,
                args=(LoadConfig(**{**asdict(cfg), "games": n, "seed": cfg.seed * 1000 + i}), ready, out),
                daemon=True,
            )
            for i, n in enumerate(shares)
        ]
        for w in workers:
            w.start()
        ready.wait(120)  # the clock starts when every client process is up (spawning them takes a while)
        start = time.perf_counter()
        parts = [out.get(timeout=cfg.duration + 120) for _ in workers]
        for w in workers:
            w.join(10)
    stats = Stats()
    for part in parts:
        stats.merge(Stats(**part))
    return report(cfg, stats, time.perf_counter() - start, len(shares))


def by_minute(values: list[float], at: list[float]) -> list[dict[str, Any]]:
    """Actions and in-server p95/p99 (ms) for each minute of the run: where the slow stretches are."""
    minutes: dict[int, list[float]] = {}
    for value, t in zip(values, at, strict=True):
        minutes.setdefault(max(0, int(t // 60)), []).append(value)
    return [
        {"minute": m, "actions": len(v), "p95": round(percentile(v, 95) or 0.0, 1), "p99": round(percentile(v, 99) or 0.0, 1)}
        for m, v in sorted(minutes.items())
    ]


def report(cfg: LoadConfig, s: Stats, elapsed: float, procs: int = 1) -> dict[str, Any]:
    ms = [x * 1000 for x in s.latencies]
    upd = [x * 1000 for x in s.update_delays]
    srv = [x * 1000 for x in s.server_times]
    lag = [x * 1000 for x in s.loop_lags]

    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 1)

    return {
        "games": cfg.games,
        "actions_via": cfg.via,
        "duration_s": round(elapsed, 1),
        "think_s": cfg.think,
        "ramp_s": cfg.ramp,
        "humans_per_game": cfg.humans,
        "bots_per_game": cfg.bots,
        "edition": cfg.edition,
        "games_started": s.games_started,
        "games_finished": s.games_finished,
        "actions": len(ms),
        "actions_per_s": round(len(ms) / elapsed, 1) if elapsed else 0.0,
        "latency_ms": {
            "p50": r(percentile(ms, 50)),
            "p95": r(percentile(ms, 95)),
            "p99": r(percentile(ms, 99)),
            "max": r(max(ms) if ms else None),
            "mean": r(statistics.fmean(ms) if ms else None),
        },
        "server_time_ms": {"p50": r(percentile(srv, 50)), "p95": r(percentile(srv, 95)), "p99": r(percentile(srv, 99))},
        "server_time_by_minute": by_minute(srv, s.server_times_at),
        "client_procs": procs,
        "client_cpu_s": round(s.cpu_s, 1),
        "client_cpu_share": round(s.cpu_s / elapsed, 2) if elapsed else 0.0,
        "client_cpu_ms_per_action": round(1000 * s.cpu_s / len(ms), 2) if ms else None,
        "client_loop_lag_ms": {"p50": r(percentile(lag, 50)), "p95": r(percentile(lag, 95)), "p99": r(percentile(lag, 99))},
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "update_delay_ms": {"p50": r(percentile(upd, 50)), "p95": r(percentile(upd, 95)), "p99": r(percentile(upd, 99))},
        "ws_messages": s.ws_messages,
        "ws_kib_per_message": round(s.ws_bytes / 1024 / s.ws_messages, 1) if s.ws_messages else None,
        "stale_refused": s.stale_refused,
        "errors": sum(s.errors.values()),
        "errors_by_kind": s.errors,
        "error_samples": s.error_samples,
    }


def cpu_seconds(pid: int) -> float | None:
    """User+system CPU time of a process (Linux /proc), to report how busy the server was."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def rss_bytes(pid: int) -> int | None:
    """Resident memory of a process (Linux /proc/PID/status VmRSS), None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class RssSampler:
    """Samples a process's RSS every `interval` seconds in a thread: at the start, after the warm-up (the first
    `warmup` seconds: caches filling, the first games created), at the end, the maximum, and the growth after
    the warm-up in % — a server whose memory is flat under steady load shows ~0."""

    def __init__(self, pid: int, warmup: float, interval: float = 1.0) -> None:
        self.pid, self.warmup, self.interval = pid, warmup, interval
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ttr-rss", daemon=True)
        self._t0 = 0.0

    def __enter__(self) -> RssSampler:
        self._t0 = time.monotonic()
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sample()

    def _sample(self) -> None:
        rss = rss_bytes(self.pid)
        if rss is not None:
            self.samples.append((time.monotonic() - self._t0, rss))

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def report(self) -> dict[str, Any] | None:
        if not self.samples:
            return None
        mib = 1024 * 1024
        after = [rss for t, rss in self.samples if t >= self.warmup] or [self.samples[-1][1]]
        warm, end = after[0], self.samples[-1][1]
        return {
            "start_mib": round(self.samples[0][1] / mib, 1),
            "after_warmup_mib": round(warm / mib, 1),
            "end_mib": round(end / mib, 1),
            "max_mib": round(max(rss for _, rss in self.samples) / mib, 1),
            "growth_after_warmup_pct": round(100 * (end - warm) / warm, 1),
            "warmup_s": round(self.warmup, 1),
            "samples": len(self.samples),
        }
