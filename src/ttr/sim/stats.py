"""Tournament statistics: win rates with Wilson intervals, scores, tickets, seats, game length, rule gaps.

"Seat" statistics are by turn order (seat 1 moves first), which is what seat advantage means; the
engine draws the first player from the game seed, so seat indices alone would not say it.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (shared wins count fractionally)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _mean(xs: Sequence[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def tournament_summary(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Everything the tournament table and report show, computed from game records alone."""
    if not records:
        return {"games": 0, "bots": {}, "seats": [], "matchups": {}}
    players = max(r["players"] for r in records)
    seat_wins = [0.0] * players
    seat_games = [0] * players
    seat_scores: list[list[int]] = [[] for _ in range(players)]
    bots: dict[str, dict[str, Any]] = {}
    head: dict[tuple[str, str], list[float]] = {}  # (a, b) -> [a beat b, games together]
    turns: list[int] = []
    decisions: list[int] = []
    passes = 0
    games_with_pass = 0
    stalemates = 0
    for rec in records:
        winners = set(rec["result"]["winners"])
        share = 1.0 / len(winners) if winners else 0.0
        stats = rec["stats"]
        turns.append(stats["turns"])
        decisions.append(stats["decisions"])
        passes += stats["passes"]
        games_with_pass += 1 if stats["passes"] else 0
        stalemates += 1 if stats["stalemate"] else 0
        scores = rec["result"]["scores"]
        first = rec.get("first_player", 0)
        n_here = rec["players"]
        for seat, name in enumerate(rec["bots"]):
            pos = (seat - first) % n_here  # turn-order position: 0 moves first
            b = bots.setdefault(
                name,
                {
                    "seats": 0,
                    "wins": 0.0,
                    "scores": [],
                    "completed": 0,
                    "failed": 0,
                    "ticket_points": [],
                    "route_points": [],
                    "seat_wins": [0.0] * players,
                    "seat_games": [0] * players,
                },
            )
            row = rec["breakdown"][seat]
            b["seats"] += 1
            b["scores"].append(row["total"])
            b["completed"] += row["tickets_completed"]
            b["failed"] += len(row["tickets"]) - row["tickets_completed"]
            b["ticket_points"].append(row["ticket_points"])
            b["route_points"].append(row["route_points"])
            b["seat_games"][pos] += 1
            seat_games[pos] += 1
            seat_scores[pos].append(row["total"])
            if seat in winners:
                b["wins"] += share
                b["seat_wins"][pos] += share
                seat_wins[pos] += share
        names = rec["bots"]
        for i, a in enumerate(names):
            for j, c in enumerate(names):
                if a != c:
                    h = head.setdefault((a, c), [0.0, 0.0])
                    h[1] += 1
                    h[0] += 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
    out_bots = {}
    for name, b in sorted(bots.items()):
        lo, hi = wilson(b["wins"], b["seats"])
        out_bots[name] = {
            "seats": b["seats"],
            "wins": b["wins"],
            "win_rate": b["wins"] / b["seats"],
            "win_rate_ci95": [lo, hi],
            "mean_score": _mean(b["scores"]),
            "score_sd": statistics.pstdev(b["scores"]) if len(b["scores"]) > 1 else 0.0,
            "median_score": statistics.median(b["scores"]),
            "mean_route_points": _mean(b["route_points"]),
            "mean_ticket_points": _mean(b["ticket_points"]),
            "tickets_completed": b["completed"] / b["seats"],
            "tickets_failed": b["failed"] / b["seats"],
            "win_rate_by_seat": [w / g if g else None for w, g in zip(b["seat_wins"], b["seat_games"], strict=True)],
        }
    seats = []
    for s in range(players):
        lo, hi = wilson(seat_wins[s], seat_games[s])
        seats.append(
            {
                "seat": s,
                "games": seat_games[s],
                "win_rate": seat_wins[s] / seat_games[s] if seat_games[s] else 0.0,
                "win_rate_ci95": [lo, hi],
                "mean_score": _mean(seat_scores[s]),
            }
        )
    matchups = {f"{a} vs {c}": {"games": int(g), "score_wins": w / g} for (a, c), (w, g) in sorted(head.items())}
    n = len(records)
    return {
        "games": n,
        "players": players,
        "bots": out_bots,
        "seats": seats,
        "matchups": matchups,
        "turns": {"mean": _mean(turns), "median": statistics.median(turns), "min": min(turns), "max": max(turns)},
        "decisions_mean": _mean(decisions),
        "passes": passes,
        "games_with_pass": games_with_pass,
        "pass_rate": games_with_pass / n,
        "stalemates": stalemates,
        "stalemate_rate": stalemates / n,
    }
