"""Bots under load: does a person's medium bot still answer at once while many games of max bots run?

    python benchmarks/bench_server_bots.py [--max-games 30] [--duration 90] [--url http://127.0.0.1:8000]

Starts its own `ttr serve` (a fresh SQLite file, `--bot-delay 0 --undo-window 0` so that the figures are the
server's, not the politeness delays, and `--no-limits`: one client creates every game) unless --url is given.
Then:

* creates `--max-games` bot-only games of four `max` bots (they think as hard as their budget allows);
* plays human games (one person + three `medium` bots, USA) one after another over HTTP and a WebSocket,
  the person acting at once with a random legal action; a *reply* is the time from sending the person's
  action to the WebSocket update that shows the next seat's (a medium bot's) move;
* samples `GET /api/editions` every 0.2 s.

Prints a JSON report: reply and editions percentiles, the max games' bot moves per second, the machine's load
average at the start and the end, the server's CPU time and memory. Targets (issue 14): reply p95 < 1 s and
editions p95 < 100 ms with 30 max games.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import httpx
from websockets.asyncio.client import connect


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def summary(values: list[float], scale: float = 1000.0) -> dict[str, Any]:
    def r(x: float | None) -> float | None:
        return None if x is None else round(x * scale, 1)

    return {
        "n": len(values),
        "p50": r(percentile(values, 50)),
        "p95": r(percentile(values, 95)),
        "p99": r(percentile(values, 99)),
        "max": r(max(values) if values else None),
        "mean": r(statistics.fmean(values) if values else None),
    }


def proc_stats(pid: int) -> dict[str, Any]:
    """CPU seconds and resident memory of the server process (not its bot workers), Linux /proc."""
    out: dict[str, Any] = {}
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        tck = os.sysconf("SC_CLK_TCK")
        out["cpu_s"] = round((int(f[11]) + int(f[12])) / tck, 1)
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    out["rss_mb"] = round(int(line.split()[1]) / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return out


class Bench:
    def __init__(self, args: argparse.Namespace, url: str) -> None:
        self.args = args
        self.url = url
        self.ws_url = "ws" + url.removeprefix("http")
        self.replies: list[float] = []
        self.editions: list[float] = []
        self.editions_in_server: list[float] = []  # Server-Timing: the part spent inside the server
        self.errors: list[str] = []
        self.human_games = 0
        self.rng = random.Random(args.seed)
        self.stop_at = 0.0

    async def run(self) -> dict[str, Any]:
        a = self.args
        async with httpx.AsyncClient(base_url=self.url, timeout=60) as http:
            self.http = http
            max_ids = []
            for _ in range(a.max_games):
                res = await http.post(
                    "/api/games",
                    json={"edition": a.edition, "players": 4, "seats": [{"type": "bot", "level": "max"}] * 4, "public": False},
                )
                if res.status_code != 201:
                    self.errors.append(f"create max game: {res.status_code} {res.text[:200]}")
                    break
                max_ids.append(res.json()["game_id"])
            await asyncio.sleep(a.warmup)
            seq0 = await self.seqs(max_ids)
            load0 = os.getloadavg()
            t0 = time.perf_counter()
            self.stop_at = t0 + a.duration
            await asyncio.gather(self.sample_editions(), self.human_loop())
            elapsed = time.perf_counter() - t0
            seq1 = await self.seqs(max_ids)
        moves = sum(seq1.get(g, 0) - seq0.get(g, 0) for g in seq0)
        return {
            "max_games": len(max_ids),
            "duration_s": round(elapsed, 1),
            "reply_ms": summary(self.replies),
            "editions_ms": summary(self.editions),
            "editions_in_server_ms": summary(self.editions_in_server),
            "human_games_played": self.human_games,
            "max_games_events_per_s": round(moves / elapsed, 1),
            "load_average_start": [round(x, 2) for x in load0],
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
            "cpus": os.cpu_count(),
            "errors": self.errors[:10],
        }

    async def seqs(self, ids: list[str]) -> dict[str, int]:
        out = {}
        for gid in ids:
            res = await self.http.get(f"/api/games/{gid}")
            if res.status_code == 200:
                out[gid] = res.json()["seq"]
        return out

    async def sample_editions(self) -> None:
        while time.perf_counter() < self.stop_at:
            t0 = time.perf_counter()
            try:
                res = await self.http.get("/api/editions")
                if res.status_code != 200:
                    self.errors.append(f"editions {res.status_code}")
                timing = res.headers.get("server-timing", "")
                if timing.startswith("app;dur="):
                    self.editions_in_server.append(float(timing[8:]) / 1000)
            except httpx.HTTPError as exc:
                self.errors.append(f"editions {exc!r}")
            self.editions.append(time.perf_counter() - t0)
            await asyncio.sleep(max(0.0, 0.2 - (time.perf_counter() - t0)))

    async def human_loop(self) -> None:
        while time.perf_counter() < self.stop_at:
            try:
                await self.human_game()
            except Exception as exc:
                self.errors.append(f"human game: {exc!r}")
                await asyncio.sleep(0.5)

    async def human_game(self) -> None:
        a = self.args
        seats = [{"type": "human"}] + [{"type": "bot", "level": "medium"}] * 3
        res = await self.http.post("/api/games", json={"edition": a.edition, "players": 4, "seats": seats, "public": False})
        if res.status_code != 201:
            self.errors.append(f"create human game: {res.status_code} {res.text[:200]}")
            await asyncio.sleep(1)
            return
        created = res.json()
        gid, token = created["game_id"], created["seats"][0]["token"]
        headers = {"Authorization": f"Bearer {token}"}
        await self.http.post(f"/api/games/{gid}/join", json={"name": "bench"}, headers=headers)
        self.human_games += 1
        sent: tuple[int, float] | None = None  # (seq of our last action, when we sent it): the next bot move answers it
        acted_at = -1
        async with connect(f"{self.ws_url}/ws/games/{gid}?token={token}", max_size=2**22, open_timeout=30) as ws:
            while time.perf_counter() < self.stop_at:
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, self.stop_at - time.perf_counter()))
                except TimeoutError:
                    return
                msg = json.loads(raw)
                if msg.get("type") != "update":
                    continue
                if sent is not None and any(
                    e["seq"] > sent[0] and e["event"].get("player") not in (None, 0) for e in msg["events"]
                ):
                    self.replies.append(time.perf_counter() - sent[1])
                    sent = None
                st = msg["state"]
                if st["summary"]["status"] == "finished":
                    return
                if not st["legal"] or st["seq"] == acted_at:
                    continue
                acted_at = st["seq"]
                if a.think:
                    await asyncio.sleep(self.rng.uniform(0, 2 * a.think))
                body = {"action": self.rng.choice(st["legal"]), "expected_seq": st["seq"]}
                t0 = time.perf_counter()
                res = await self.http.post(f"/api/games/{gid}/actions", json=body, headers=headers)
                if res.status_code != 200:
                    self.errors.append(f"action {res.status_code} {res.text[:200]}")
                    continue
                # the first bot move after the action that ends our turn answers it (a first card does not end it)
                sent = (res.json()["seq"], t0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", help="a running server (default: start `ttr serve` with a fresh SQLite file)")
    p.add_argument("--max-games", type=int, default=30, help="bot-only games of four max bots (default 30)")
    p.add_argument("--duration", type=float, default=90.0, help="seconds measured (default 90)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds after creating the max games (default 5)")
    p.add_argument("--edition", default="usa")
    p.add_argument("--think", type=float, default=0.0, help="mean seconds the person waits before acting (default 0)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--serve-arg", action="append", default=[], help="an extra `ttr serve` argument (repeatable)")
    args = p.parse_args()
    proc = None
    tmp = tempfile.TemporaryDirectory(prefix="ttr-bench-bots-")
    url = args.url
    if not url:
        port = free_port()
        cmd = [sys.executable, "-m", "ttr", "serve", "--port", str(port), "--db", os.path.join(tmp.name, "bench.sqlite3")]
        cmd += ["--bot-delay", "0", "--no-access-log", "--log-level", "warning", *args.serve_arg]
        helptext = subprocess.run([*cmd[:4], "--help"], capture_output=True, text=True).stdout
        if "--undo-window" in helptext:  # (not in servers before the bot pool: lets this measure them too)
            cmd += ["--undo-window", "0"]
        if "--no-limits" in helptext:  # one client creates 30 games at once
            cmd += ["--no-limits"]
        proc = subprocess.Popen(cmd)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/api/editions", timeout=1).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                print("the server did not start", file=sys.stderr)
                return 2
            time.sleep(0.2)
    try:
        report = asyncio.run(Bench(args, url).run())
        if proc is not None:
            report["server"] = {"command": " ".join(cmd[2:]), **proc_stats(proc.pid)}
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        tmp.cleanup()
    print(json.dumps(report, indent=2))
    ok = (report["reply_ms"]["p95"] or 1e9) < 1000 and (report["editions_ms"]["p95"] or 1e9) < 100
    print("targets (reply p95 < 1000 ms, editions p95 < 100 ms):", "met" if ok else "NOT met", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
