"""The SQLite write-ahead log stays bounded under sustained play (issue 14, item 4).

A real `ttr serve` plays 100 four-bot games at once at full speed, with two spectators reading all the
while, until 3,000 actions are stored (about 15 s on an idle 2-core machine); the WAL file, sampled
throughout, never reaches 64 MB. Before the checkpoint
policy (``wal_autocheckpoint=0`` plus passive checkpoints that never let the log start over while
readers and writers overlap) it passed 64 MB within a few seconds of such play and kept growing.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time

import httpx
from serverkit import ServerProcess, create, running

WAL_BOUND = 64 * 1024 * 1024
GAMES = 100
ACTIONS = 3000  # about 40 KB of log each (the position is rewritten): 120 MB if the log never started over
MAX_SECONDS = 120.0
EXTRA = os.environ.get("TTR_TEST_WAL_EXTRA", "").split()  # e.g. "--wal-limit-bytes 100000000000": passive checkpoints only


def test_wal_stays_bounded_under_sustained_play(tmp_path):
    db = tmp_path / "ttr.sqlite3"
    wal = tmp_path / "ttr.sqlite3-wal"
    log = tmp_path / "serve.log"
    seats = [{"type": "bot", "level": "easy"}] * 4
    # create the games on a server whose bots wait (so that creating them is quick), then play them on one whose
    # bots move at once: it picks every waiting bot turn up at start-up
    with (
        running(ServerProcess(str(db), bot_delay=3600, log=log, extra=["--no-limits"])) as (server,),
        httpx.Client(base_url=server.url, timeout=30) as http,
    ):
        game_ids = [create(http, edition="europe", players=4, seats=seats)["game_id"] for _ in range(GAMES)]
    largest = 0
    # --position-every 1: the whole position is rewritten after every action (the default writes it every 20), the
    # heaviest log a server can be told to write
    extra = ["--no-limits", "--position-every", "1", *EXTRA]
    with running(ServerProcess(str(db), bot_delay=0.0, log=log, extra=extra)) as (server,):
        stop = threading.Event()

        def spectate() -> None:  # readers overlapping the writers: what kept a passive checkpoint from ever finishing
            with httpx.Client(base_url=server.url, timeout=30) as reader:
                i = 0
                while not stop.is_set():
                    reader.get(f"/api/games/{game_ids[i % GAMES]}/spectate")
                    reader.get("/api/games", params={"status": "active"})
                    i += 1

        readers = [threading.Thread(target=spectate, daemon=True) for _ in range(2)]
        for t in readers:
            t.start()
        start = time.monotonic()
        actions = 0
        probe = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        try:
            while actions < ACTIONS and time.monotonic() < start + MAX_SECONDS:
                for _ in range(20):
                    if wal.exists():
                        largest = max(largest, os.path.getsize(wal))
                    assert largest < WAL_BOUND, f"WAL reached {largest / 1e6:.1f} MB after about {actions} actions"
                    time.sleep(0.05)
                actions = probe.execute("SELECT count(*) FROM actions").fetchone()[0]
        finally:
            probe.close()
            stop.set()
            for t in readers:
                t.join(30)
        elapsed = time.monotonic() - start
    print(f"largest WAL {largest / 1e6:.1f} MB after {actions} actions in {elapsed:.0f} s")
    assert actions >= ACTIONS, "too little play to say anything about the WAL"
    assert largest < WAL_BOUND
