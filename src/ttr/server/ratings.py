"""Ratings: openskill's Plackett-Luce model, one rating per account, edition and player-count class.

A rated game (every seat a different account, no bots, not hot-seat: ``games.rated``, decided when the game
starts) updates its players' ratings in the transaction that ends it, so a rating changes exactly once per
game and never for a game that did not end. The order is the engine's final ranking (``Game.result()``
ranks, ties included); a seat that was dropped for running out of time ranks last. The leaderboard sorts by
the ordinal ``mu - 3 sigma`` (a conservative estimate: a new player starts at 0).

Profiles (``profile``) add the rating history and the per-player statistics of the account's finished games
(``stats.player_stats``, computed from each record by the engine once and kept in ``player_stats``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from openskill.models import PlackettLuce
from sqlalchemy.engine import Connection

from .db import Database, games, player_stats, rating_history, ratings, seats, users
from .stats import STAT_KEYS

CLASSES = ("2p", "3-4p", "5p+")
MODEL = PlackettLuce()


def player_class(players: int) -> str:
    return "2p" if players <= 2 else "3-4p" if players <= 4 else "5p+"


def _insert_ignore(db: Database, table: sa.Table) -> Any:
    if db.is_postgres:
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(table).on_conflict_do_nothing()


def rate_game(
    db: Database, conn: Connection, game_id: str, edition: str, user_ids: Sequence[int], ranks: Sequence[int], now: datetime
) -> list[dict[str, Any]]:
    """Update the ratings of `user_ids` (seat order) after a game with these ranks (1 = first; ties share a rank).
    Runs inside the caller's transaction; rows are locked in user order (PostgreSQL) so that two games ending at
    once for one player are applied one after the other. Returns each seat's change."""
    klass = player_class(len(user_ids))
    fresh = MODEL.rating()
    conn.execute(
        _insert_ignore(db, ratings),
        [
            {
                "user_id": u,
                "edition": edition,
                "klass": klass,
                "mu": fresh.mu,
                "sigma": fresh.sigma,
                "ordinal": fresh.ordinal(),
                "games": 0,
                "wins": 0,
                "updated_at": now,
            }
            for u in user_ids
        ],
    )
    q = (
        sa.select(ratings)
        .where(ratings.c.user_id.in_(list(user_ids)), ratings.c.edition == edition, ratings.c.klass == klass)
        .order_by(ratings.c.user_id)
    )
    if db.is_postgres:
        q = q.with_for_update()
    rows = {r.user_id: r for r in conn.execute(q).all()}
    before = [MODEL.rating(mu=rows[u].mu, sigma=rows[u].sigma) for u in user_ids]
    after = MODEL.rate([[r] for r in before], ranks=list(ranks))
    changes = []
    for u, rank, old, (new,) in zip(user_ids, ranks, before, after, strict=True):
        won = rank == 1
        conn.execute(
            ratings.update()
            .where(ratings.c.user_id == u, ratings.c.edition == edition, ratings.c.klass == klass)
            .values(
                mu=new.mu,
                sigma=new.sigma,
                ordinal=new.ordinal(),
                games=ratings.c.games + 1,
                wins=ratings.c.wins + (1 if won else 0),
                updated_at=now,
            )
        )
        changes.append(
            {"user_id": u, "rank": rank, "before": old.ordinal(), "after": new.ordinal(), "mu": new.mu, "sigma": new.sigma}
        )
    conn.execute(
        rating_history.insert(),
        [
            {
                "user_id": c["user_id"],
                "game_id": game_id,
                "edition": edition,
                "klass": klass,
                "rank": c["rank"],
                "mu": c["mu"],
                "sigma": c["sigma"],
                "ordinal": c["after"],
                "at": now,
            }
            for c in changes
        ],
    )
    return changes


def _rating_row(r: Any) -> dict[str, Any]:
    return {
        "mu": round(r.mu, 4),
        "sigma": round(r.sigma, 4),
        "ordinal": round(r.ordinal, 4),
        "games": r.games,
        "wins": r.wins,
    }


def leaderboard(db: Database, edition: str, klass: str | None, limit: int = 50) -> dict[str, Any]:
    """The best `limit` accounts of each player-count class (or of one) on an edition, by ordinal."""
    out: dict[str, Any] = {"edition": edition, "classes": {}}
    with db.read() as conn:
        for k in [klass] if klass else CLASSES:
            rows = conn.execute(
                sa.select(users.c.name, ratings)
                .select_from(ratings.join(users, users.c.id == ratings.c.user_id))
                .where(ratings.c.edition == edition, ratings.c.klass == k)
                .order_by(ratings.c.ordinal.desc(), users.c.name_key)
                .limit(limit)
            ).all()
            out["classes"][k] = [{"rank": i + 1, "name": r.name, **_rating_row(r)} for i, r in enumerate(rows)]
    return out


def profile(db: Database, user_id: int, name: str, history_limit: int = 500) -> dict[str, Any]:
    """Ratings, rating history, games played and won per edition, statistics summed over finished games."""
    with db.read() as conn:
        rating_rows = conn.execute(sa.select(ratings).where(ratings.c.user_id == user_id).order_by(ratings.c.edition)).all()
        hist = conn.execute(
            sa.select(rating_history)
            .where(rating_history.c.user_id == user_id)
            .order_by(rating_history.c.at.desc(), rating_history.c.id.desc())
            .limit(history_limit)
        ).all()
        played = conn.execute(
            sa.select(
                games.c.id,
                games.c.edition,
                games.c.players,
                games.c.rated,
                games.c.finished_at,
                seats.c.seat,
                player_stats.c.stats,
            )
            .select_from(
                seats.join(games, games.c.id == seats.c.game_id).outerjoin(
                    player_stats, sa.and_(player_stats.c.game_id == seats.c.game_id, player_stats.c.seat == seats.c.seat)
                )
            )
            .where(seats.c.user_id == user_id, games.c.status == "finished")
            .order_by(games.c.finished_at.desc())
        ).all()
    per_edition: dict[str, dict[str, Any]] = {}
    recent = []
    missing = [(r.id, r.seat) for r in played if r.stats is None]
    computed = compute_missing_stats(db, [gid for gid, _ in missing]) if missing else {}
    for r in played:
        st = json.loads(r.stats) if r.stats is not None else computed.get((r.id, r.seat))
        if st is None:
            continue
        e = per_edition.setdefault(r.edition, {"games": 0, "won": 0, "rated_games": 0, "totals": dict.fromkeys(STAT_KEYS, 0)})
        e["games"] += 1
        e["won"] += st.get("won", 0)
        e["rated_games"] += 1 if r.rated else 0
        for k in STAT_KEYS:
            if k in st:
                e["totals"][k] += st[k]
        if len(recent) < 50:
            recent.append(
                {
                    "game_id": r.id,
                    "edition": r.edition,
                    "players": r.players,
                    "rated": bool(r.rated),
                    "seat": r.seat,
                    "rank": st.get("rank"),
                    "score": st.get("total"),
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                }
            )
    for e in per_edition.values():
        totals, n = e["totals"], max(e["games"], 1)
        e["totals"] = {k: v for k, v in totals.items() if v or k in ("won", "total")}
        e["averages"] = {k: round(v / n, 2) for k, v in e["totals"].items()}
        e["average_route_length"] = (
            round(totals["trains_played"] / totals["routes_claimed"], 2) if totals["routes_claimed"] else None
        )
    return {
        "name": name,
        "ratings": [{"edition": r.edition, "class": r.klass, **_rating_row(r)} for r in rating_rows],
        "history": [
            {
                "game_id": h.game_id,
                "edition": h.edition,
                "class": h.klass,
                "rank": h.rank,
                "mu": round(h.mu, 4),
                "sigma": round(h.sigma, 4),
                "ordinal": round(h.ordinal, 4),
                "at": (h.at if h.at.tzinfo else h.at.replace(tzinfo=UTC)).isoformat(),
            }
            for h in reversed(hist)
        ],
        # every line of the chart starts from a new rating's ordinal when no older game was left out
        "history_start": round(MODEL.rating().ordinal(), 4) if len(hist) < history_limit else None,
        "editions": per_edition,
        "recent_games": recent,
    }


def compute_missing_stats(db: Database, game_ids: Sequence[str]) -> dict[tuple[str, int], dict[str, Any]]:
    """Statistics of finished games not computed yet (a game claimed after it ended, or finished before this
    version), from their records by the engine; stored so that each game is replayed once."""
    from ..engine import Game
    from .stats import player_stats as compute

    out: dict[tuple[str, int], dict[str, Any]] = {}
    for gid in dict.fromkeys(game_ids):
        with db.read() as conn:
            pos = conn.execute(sa.select(games.c.position).where(games.c.id == gid)).scalar()
        if pos is None:
            continue
        record = Game.from_dict(json.loads(pos)).record()
        rows = compute(record)
        for seat, st in enumerate(rows):
            out[(gid, seat)] = st
        with db.write() as conn:
            conn.execute(
                _insert_ignore(db, player_stats),
                [{"game_id": gid, "seat": seat, "stats": json.dumps(st, separators=(",", ":"))} for seat, st in enumerate(rows)],
            )
    return out
