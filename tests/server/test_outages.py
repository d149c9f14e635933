"""Outages answer 503 unavailable, in JSON, with Retry-After, and lose nothing acknowledged (issue 14, item 5).

Two real outages under a really started `ttr serve`: a small filesystem that fills up under the SQLite
file (a 4 MiB tmpfs mounted by the test, as root), and a PostgreSQL server stopped and started again
under the server (a throw-away cluster of the test's own, on a free port: never the shared one). Before
the fix the first answered plain-text ``500 Internal Server Error``, the second 500s and tracebacks.
"""

from __future__ import annotations

import contextlib
import glob
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from serverkit import ServerProcess, bearer, create, free_port, join_all, running, wait_for

from needs import missing


def log_of(http: httpx.Client, gid: str) -> dict[int, dict]:
    res = http.get(f"/api/games/{gid}/log")
    assert res.status_code == 200, res.text
    return {e["seq"]: e["event"] for e in res.json()["events"]}


def assert_unavailable(res: httpx.Response) -> None:
    assert res.status_code == 503, res.text
    assert res.headers["content-type"].startswith("application/json")
    assert res.json()["error"]["code"] == "unavailable"
    assert int(res.headers["Retry-After"]) >= 1


class Player:
    """Plays the human seat of a game with random legal actions; remembers every acknowledged action's events."""

    def __init__(self, http: httpx.Client, gid: str, token: str, seed: int) -> None:
        self.http, self.gid, self.token = http, gid, token
        self.rng = random.Random(seed)
        self.acknowledged: dict[int, dict] = {}
        self.statuses: list[int] = []

    def step(self) -> httpx.Response | None:
        """One GET /state and, on our turn, one action; returns the first non-2xx answer (None if all went well)."""
        try:
            st = self.http.get(f"/api/games/{self.gid}/state", headers=bearer(self.token))
        except httpx.TransportError:
            return None
        self.statuses.append(st.status_code)
        if st.status_code != 200:
            return st
        data = st.json()
        if not data["legal"]:
            return None
        res = self.http.post(
            f"/api/games/{self.gid}/actions",
            headers=bearer(self.token),
            json={"action": self.rng.choice(data["legal"]), "expected_seq": data["seq"]},
        )
        self.statuses.append(res.status_code)
        if res.status_code == 200:
            self.acknowledged.update({e["seq"]: e["event"]["type"] for e in res.json()["events"]})
            return None
        return res

    def check_nothing_lost(self) -> None:
        after = log_of(self.http, self.gid)
        for seq, kind in self.acknowledged.items():
            assert after[seq]["type"] == kind, f"acknowledged event {seq} ({kind}) lost"


def refusals_are_clean(statuses: list[int]) -> None:
    assert 500 not in statuses
    assert set(statuses) <= {200, 201, 409, 503}, sorted(set(statuses))


def no_tracebacks(log: Path) -> None:
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]


# ---------------------------------------------------------------------- a full disk
@contextlib.contextmanager
def small_filesystem(size: str) -> Iterator[Path]:
    where = Path(tempfile.mkdtemp(prefix="ttr-full-"))
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True)
    if res.returncode != 0:
        where.rmdir()
        missing(f"cannot mount a small tmpfs here (needs root): {res.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        with contextlib.suppress(OSError):
            where.rmdir()


def test_a_full_disk_answers_503_and_loses_nothing(tmp_path):
    with small_filesystem("4m") as disk:
        server = ServerProcess(str(disk / "ttr.sqlite3"), log=tmp_path / "serve.log", extra=["--no-limits"])
        with running(server):
            http = httpx.Client(base_url=server.url, timeout=30)
            created = create(http, seats=[{"type": "human"}, {"type": "bot", "level": "easy"}])
            gid = created["game_id"]
            token = join_all(http, created)[0]
            player = Player(http, gid, token, seed=5)
            for _ in range(5):
                assert player.step() is None
            # fill the disk to the last byte
            ballast = disk / "ballast"
            with open(ballast, "wb", buffering=0) as f, contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * 4096)
            # play and create games until the database needs room it cannot have (the log reuses its own pages for
            # a while): every answer meanwhile is a success or a clean 503
            refusal = None
            deadline = time.monotonic() + 60
            while refusal is None and time.monotonic() < deadline:
                refusal = player.step()
                res = http.post("/api/games", json={"seats": [{"type": "human"}, {"type": "human"}]})
                player.statuses.append(res.status_code)
                if res.status_code != 201:
                    refusal = refusal or res
            assert refusal is not None, "the disk never filled up"
            assert_unavailable(refusal)
            assert_unavailable(http.post("/api/games", json={}))
            # room again: the server goes on by itself
            ballast.unlink()
            wait_for(lambda: http.post("/api/games", json={}).status_code == 201, timeout=20)
            for _ in range(20):
                player.step()
            refusals_are_clean(player.statuses)
            player.check_nothing_lost()
            assert player.statuses[-1] == 200
        no_tracebacks(tmp_path / "serve.log")


# ---------------------------------------------------------------------- a PostgreSQL restart
class Cluster:
    """A throw-away PostgreSQL cluster of this test's own (initdb + pg_ctl as the postgres user)."""

    def __init__(self) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
        if not bins or shutil.which("su") is None:
            missing("no PostgreSQL binaries in /usr/lib/postgresql/*/bin (CI installs them)")
        if os.geteuid() != 0:
            missing("starting a PostgreSQL cluster as the postgres user needs root")
        self.bin = Path(bins[-1]).parent
        self.port = free_port()
        self.data = Path(tempfile.mkdtemp(prefix="ttr-pg-outage-"))
        shutil.chown(self.data, "postgres")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _pg(self, *args: str) -> None:
        cmd = " ".join([str(self.bin / args[0]), *args[1:]])
        subprocess.run(["su", "postgres", "-c", cmd], check=True, capture_output=True, timeout=120)

    def init(self) -> None:
        self._pg("initdb", "-D", str(self.data / "db"), "-A", "trust", "-U", "postgres")

    def start(self) -> None:
        opts = f"'-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1'"
        self._pg("pg_ctl", "-D", str(self.data / "db"), "-o", opts, "-l", str(self.data / "log"), "-w", "start")

    def stop(self) -> None:
        self._pg("pg_ctl", "-D", str(self.data / "db"), "-m", "fast", "-w", "stop")

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()
        shutil.rmtree(self.data, ignore_errors=True)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    c = Cluster()
    try:
        c.init()
        c.start()
        yield c
    finally:
        c.destroy()


def test_a_postgresql_restart_answers_503_then_reconnects_without_tracebacks(tmp_path, cluster):
    server = ServerProcess(cluster.url, log=tmp_path / "serve.log", bot_delay=0.05, extra=["--no-limits"])
    with running(server):
        http = httpx.Client(base_url=server.url, timeout=30)
        created = create(http, seats=[{"type": "human"}, {"type": "bot", "level": "easy"}])
        gid = created["game_id"]
        player = Player(http, gid, join_all(http, created)[0], seed=7)
        bots = create(http, seats=[{"type": "bot", "level": "easy"}] * 3)["game_id"]
        for _ in range(5):
            assert player.step() is None
        bot_events = log_of(http, bots)
        cluster.stop()
        refusals = [player.step() for _ in range(5)]
        assert any(r is not None for r in refusals)
        for r in refusals:
            if r is not None:
                assert_unavailable(r)
        assert_unavailable(http.post("/api/games", json={}))
        assert_unavailable(http.get("/api/games"))
        time.sleep(1.5)  # the bots, the sweeper and the LISTEN thread meet the outage too
        cluster.start()
        wait_for(lambda: http.get(f"/api/games/{gid}").status_code == 200, timeout=30)
        for _ in range(20):
            player.step()
        refusals_are_clean(player.statuses)
        assert player.statuses[-1] == 200
        player.check_nothing_lost()
        after = log_of(http, bots)
        assert all(after[seq] == ev for seq, ev in bot_events.items())
        wait_for(lambda: http.get(f"/api/games/{bots}").json()["seq"] > max(bot_events), timeout=30)  # bots resumed
        assert http.post("/api/games", json={}).status_code == 201
    no_tracebacks(tmp_path / "serve.log")
