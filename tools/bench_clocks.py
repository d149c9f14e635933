"""Measure how late timeouts fire: games with a realtime clock, nobody moving; lateness = the `timeout` event's time
minus the deadline it fired for.

    PYTHONPATH=src python tools/bench_clocks.py --games 20 --seconds 2                  # SQLite, one process
    PYTHONPATH=src python tools/bench_clocks.py --db postgresql://postgres@127.0.0.1:55433/bench --games 20

Deadlines armed by this process wake its clock loop at once; those armed by another process are seen within
``--clock-poll`` seconds (default 1), which bounds their lateness.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from fastapi.testclient import TestClient

from ttr.server import Settings, create_app
from ttr.server.config import database_url


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seconds", type=int, default=2)
    ap.add_argument("--clock-poll", type=float, default=1.0)
    ap.add_argument("--db", default=None)
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    url = database_url(args.db or str(Path(tmp.name) / "clocks.sqlite3"))
    settings = Settings(database_url=url, limits_enabled=False, clock_poll_seconds=args.clock_poll, bot_delay=60.0)
    with TestClient(create_app(settings)) as c:
        gids = []
        for i in range(args.games):
            g = c.post(
                "/api/games",
                json={"seats": [{"type": "human"}, {"type": "human"}], "clock": {"kind": "realtime", "seconds": args.seconds}},
            ).json()
            for s in g["seats"]:
                c.post(
                    f"/api/games/{g['game_id']}/join",
                    json={"name": f"P{s['seat']}"},
                    headers={"Authorization": f"Bearer {s['token']}"},
                )
            gids.append(g["game_id"])
            time.sleep(0.1 * (i % 3))  # deadlines spread out
        late: dict[str, float] = {}
        deadline = time.monotonic() + args.seconds + 30
        while len(late) < len(gids) and time.monotonic() < deadline:
            for gid in gids:
                if gid in late:
                    continue
                for e in c.get(f"/api/games/{gid}/log").json()["events"]:
                    ev = e["event"]
                    if ev["type"] == "timeout":
                        late[gid] = (datetime.fromisoformat(e["at"]) - datetime.fromisoformat(ev["deadline"])).total_seconds()
            time.sleep(0.2)
    values = sorted(late.values())
    print(f"database: {url.split('@')[-1]}; {len(values)}/{len(gids)} timeouts fired")
    print(
        f"lateness: median {statistics.median(values) * 1000:.1f} ms, p95 {values[int(0.95 * (len(values) - 1))] * 1000:.1f} ms, "
        f"max {values[-1] * 1000:.1f} ms, min {values[0] * 1000:.1f} ms"
    )
    tmp.cleanup()


if __name__ == "__main__":
    main()
