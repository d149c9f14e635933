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
import json
import os
import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.asyncio.client import connect


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


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # seconds, POST -> response
    server_times: list[float] = field(default_factory=list)  # seconds the server spent on it (Server-Timing)
    update_delays: list[float] = field(default_factory=list)  # seconds, POST -> own WebSocket shows the new seq
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)
    games_started: int = 0
    games_finished: int = 0
    ws_messages: int = 0
    stale_refused: int = 0  # actions sent on an update older than our own last action, refused as state_changed
    loop_lags: list[float] = field(default_factory=list)  # seconds this client's event loop was late (a busy client or machine)

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.error_samples) < 10:
            self.error_samples.append(f"{kind}: {detail[:200]}")


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


class LoadTest:
    def __init__(self, cfg: LoadConfig) -> None:
        self.cfg = cfg
        self.stats = Stats()
        self.rng = random.Random(cfg.seed)
        self.deadline = 0.0
        self.ws_base = "ws" + cfg.url.removeprefix("http")

    async def run(self) -> dict[str, Any]:
        limits = httpx.Limits(
            max_connections=self.cfg.games * self.cfg.humans + 10, max_keepalive_connections=self.cfg.games * self.cfg.humans + 10
        )
        async with httpx.AsyncClient(base_url=self.cfg.url, timeout=30, limits=limits) as http:
            self.http = http
            start = time.perf_counter()
            self.cpu0 = time.process_time()
            self.deadline = start + self.cfg.duration
            monitor = asyncio.create_task(self.watch_loop())
            await asyncio.gather(*(self.slot(i) for i in range(self.cfg.games)))
            monitor.cancel()
            elapsed = time.perf_counter() - start
        return self.report(elapsed)

    async def watch_loop(self) -> None:
        """How late a 20 ms sleep wakes up: time the measured latencies spent waiting for this client, not the server."""
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(0.02)
            self.stats.loop_lags.append(time.perf_counter() - t0 - 0.02)

    async def slot(self, i: int) -> None:
        """Keep one game going until the time is up (start a new one when it ends)."""
        await asyncio.sleep(self.rng.random() * min(5.0, self.cfg.duration / 4))  # stagger the starts
        while time.perf_counter() < self.deadline:
            try:
                await self.play_game()
            except Exception as exc:  # a broken connection or an unexpected answer: count it, go on
                self.stats.error(type(exc).__name__, repr(exc))
                await asyncio.sleep(0.5)

    async def play_game(self) -> None:
        cfg = self.cfg
        seats = [{"type": "human"}] * cfg.humans + [{"type": "bot", "level": cfg.bot_level}] * cfg.bots
        res = await self.http.post(
            "/api/games", json={"edition": cfg.edition, "players": len(seats), "seats": seats, "public": False}
        )
        if res.status_code != 201:
            self.stats.error(f"create {res.status_code}", res.text)
            await asyncio.sleep(1)
            return
        created = res.json()
        gid = created["game_id"]
        self.stats.games_started += 1
        tokens = [s["token"] for s in created["seats"] if s["type"] == "human"]
        for n, token in enumerate(tokens):
            res = await self.http.post(
                f"/api/games/{gid}/join", json={"name": f"load{n}"}, headers={"Authorization": f"Bearer {token}"}
            )
            if res.status_code != 200:
                self.stats.error(f"join {res.status_code}", res.text)
                return
        done = await asyncio.gather(*(self.play_seat(gid, token) for token in tokens))
        if any(done):
            self.stats.games_finished += 1

    async def play_seat(self, gid: str, token: str) -> bool:
        """One human seat: act on every update that shows our turn. True when the game ended."""
        headers = {"Authorization": f"Bearer {token}"}
        rng = random.Random(self.rng.random())
        waiting: tuple[int, float] | None = None  # (seq after our action, when we sent it)
        acted_at = -1
        done_seq = -1
        async with connect(f"{self.ws_base}/ws/games/{gid}?token={token}", max_size=2**22, open_timeout=30) as ws:
            while True:
                remaining = self.deadline - time.perf_counter()
                if remaining <= 0:
                    return False
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=remaining)
                except TimeoutError:
                    return False
                self.stats.ws_messages += 1
                msg = json.loads(raw)
                if msg["type"] == "error":
                    if msg["error"]["code"] == "state_changed":
                        # setup: the seats choose at once, so an update of another seat's choice may arrive before
                        # the one showing ours, and acting on it again is refused: the server's guard, not a failure
                        self.stats.stale_refused += 1
                    else:
                        self.stats.error(f"ws {msg['error']['code']}", msg["error"]["message"])
                    continue
                st = msg["state"]
                if waiting and msg["seq"] >= waiting[0]:
                    delay = time.perf_counter() - waiting[1]
                    self.stats.update_delays.append(delay)
                    if self.cfg.via == "ws":
                        self.stats.latencies.append(delay)
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
                    await ws.send(json.dumps({"type": "action", **body}))
                    waiting = (st["seq"] + 1, t0)
                    continue
                res = await self.http.post(f"/api/games/{gid}/actions", json=body, headers=headers)
                self.stats.latencies.append(time.perf_counter() - t0)
                timing = res.headers.get("server-timing", "")
                if timing.startswith("app;dur="):
                    self.stats.server_times.append(float(timing[8:]) / 1000)
                if res.status_code != 200:
                    self.stats.error(f"action {res.status_code}", res.text)
                    continue
                waiting = (res.json()["seq"], t0)
                done_seq = res.json()["seq"]  # setup: an update of another seat's choice may come without ours yet

    def report(self, elapsed: float) -> dict[str, Any]:
        s = self.stats
        ms = [x * 1000 for x in s.latencies]
        upd = [x * 1000 for x in s.update_delays]
        srv = [x * 1000 for x in s.server_times]
        lag = [x * 1000 for x in s.loop_lags]

        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 1)

        return {
            "games": self.cfg.games,
            "actions_via": self.cfg.via,
            "duration_s": round(elapsed, 1),
            "think_s": self.cfg.think,
            "humans_per_game": self.cfg.humans,
            "bots_per_game": self.cfg.bots,
            "edition": self.cfg.edition,
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
            "client_cpu_s": round(time.process_time() - self.cpu0, 1),
            "client_loop_lag_ms": {"p50": r(percentile(lag, 50)), "p95": r(percentile(lag, 95)), "p99": r(percentile(lag, 99))},
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "update_delay_ms": {"p50": r(percentile(upd, 50)), "p95": r(percentile(upd, 95)), "p99": r(percentile(upd, 99))},
            "ws_messages": s.ws_messages,
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


def run_load(cfg: LoadConfig) -> dict[str, Any]:
    with contextlib.suppress(AttributeError):
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    return asyncio.run(LoadTest(cfg).run())
