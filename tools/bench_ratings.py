"""Benchmark: rating update latency at game end, and leaderboard/profile query time with many rated games.

    PYTHONPATH=src python tools/bench_ratings.py --games 10000 --users 2000            # SQLite in a temp dir
    PYTHONPATH=src python tools/bench_ratings.py --db postgresql://postgres@127.0.0.1:55433/bench

Fills the database with `--users` accounts and `--games` finished rated games (2-5 players, random ranks,
ratings updated by ``ratings.rate_game`` exactly as at a real game's end, each in its own write transaction),
timing each update; then times ``leaderboard`` (one edition, every class) and one ``profile``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from ttr.server.config import database_url
from ttr.server.db import Database, games, migrate, users
from ttr.server.ratings import leaderboard, profile, rate_game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=2_000)
    ap.add_argument("--db", default=None, help="database URL or SQLite file (default: a new temporary SQLite file)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    tmp = None
    if args.db is None:
        tmp = tempfile.TemporaryDirectory()
        args.db = str(Path(tmp.name) / "bench.sqlite3")
    db = Database(database_url(args.db))
    migrate(db)
    rng = random.Random(args.seed)
    now = datetime.now(UTC)
    with db.write() as conn:
        conn.execute(
            users.insert(),
            [
                {"name": f"u{i}", "name_key": f"bench{args.seed}_u{i}", "password_hash": "x", "created_at": now}
                for i in range(args.users)
            ],
        )
        ids = [r.id for r in conn.execute(users.select().where(users.c.name_key.like(f"bench{args.seed}_%")))]
    latencies = []
    start_all = time.perf_counter()
    for g in range(args.games):
        n = rng.choice((2, 2, 3, 4, 5))
        players = rng.sample(ids, n)
        ranks = [rng.randint(1, n) for _ in range(n)]
        gid = f"b{args.seed}-{g}"
        with db.write() as conn:
            conn.execute(
                games.insert().values(
                    id=gid,
                    edition="usa",
                    players=n,
                    options="{}",
                    name=None,
                    public=False,
                    hotseat=False,
                    seed=0,
                    status="finished",
                    seq=0,
                    action_count=0,
                    position="{}",
                    to_move=None,
                    bot_to_move=False,
                    created_at=now,
                    updated_at=now,
                    finished_at=now,
                    rated=True,
                )
            )
            t = time.perf_counter()
            rate_game(db, conn, gid, "usa", players, ranks, now)
            latencies.append(time.perf_counter() - t)
    fill = time.perf_counter() - start_all
    latencies.sort()
    board_times = []
    for _ in range(20):
        t = time.perf_counter()
        board = leaderboard(db, "usa", None, 50)
        board_times.append(time.perf_counter() - t)
    t = time.perf_counter()
    prof = profile(db, ids[0], "u0")
    prof_time = time.perf_counter() - t
    print(f"database: {db.url.split('@')[-1]}")
    print(f"{args.games} rated games, {args.users} accounts, filled in {fill:.1f} s")
    print(
        f"rating update at game end (inside the game's transaction): median {statistics.median(latencies) * 1000:.2f} ms, "
        f"p95 {latencies[int(0.95 * len(latencies))] * 1000:.2f} ms, max {latencies[-1] * 1000:.2f} ms"
    )
    print(
        f"leaderboard (usa, 3 classes x top 50): median {statistics.median(board_times) * 1000:.2f} ms, "
        f"max {max(board_times) * 1000:.2f} ms; rows {[len(v) for v in board['classes'].values()]}"
    )
    print(f"profile of one account ({len(prof['history'])} rated games in its history): {prof_time * 1000:.2f} ms")
    db.dispose()
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
