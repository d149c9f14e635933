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
    head: dict[tuple[str, str], list[float]] = {}  # (a, b) with a < b -> [a ahead, b ahead, level]
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
            for j in range(i + 1, len(names)):
                c = names[j]
                if a == c:
                    continue
                si, sj = (scores[i], scores[j]) if a < c else (scores[j], scores[i])
                h = head.setdefault((min(a, c), max(a, c)), [0.0, 0.0, 0.0])  # first ahead, second ahead, level
                h[0 if si > sj else 1 if sj > si else 2] += 1
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
    matchups = {}
    for (a, c), (first, second, level) in sorted(head.items()):
        games = int(first + second + level)
        matchups[f"{a} vs {c}"] = {
            "games": games,
            "first_ahead": int(first),
            "second_ahead": int(second),
            "level": int(level),
            "score_wins": (first + 0.5 * level) / games,  # the first bot's share, level scores count half
        }
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


def two_proportions(w1: float, n1: int, w2: float, n2: int) -> dict[str, Any]:
    """Difference of two proportions (w1/n1 - w2/n2) with a 95% (Wald) interval and the two-sided
    p-value of the pooled two-proportion z test; shared wins count fractionally."""
    if n1 <= 0 or n2 <= 0:
        return {"diff": None, "ci95": None, "z": None, "p": None}
    p1, p2 = w1 / n1, w2 / n2
    diff = p1 - p2
    half = Z95 * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    pooled = (w1 + w2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return {"diff": diff, "ci95": [diff - half, diff + half], "z": 0.0 if diff == 0 else None, "p": 1.0 if diff == 0 else 0.0}
    z = diff / se
    return {"diff": diff, "ci95": [diff - half, diff + half], "z": z, "p": math.erfc(abs(z) / math.sqrt(2))}


def mean_difference(xs: Sequence[float], ys: Sequence[float]) -> dict[str, Any]:
    """Difference of two means with a 95% normal (Welch) interval and its two-sided p-value."""
    if len(xs) < 2 or len(ys) < 2:
        return {"diff": None, "ci95": None, "p": None}
    diff = statistics.fmean(xs) - statistics.fmean(ys)
    se = math.sqrt(statistics.variance(xs) / len(xs) + statistics.variance(ys) / len(ys))
    if se == 0:
        return {"diff": diff, "ci95": [diff, diff], "p": 1.0 if diff == 0 else 0.0}
    return {"diff": diff, "ci95": [diff - Z95 * se, diff + Z95 * se], "p": math.erfc(abs(diff / se) / math.sqrt(2))}


def sign_test(better: int, worse: int) -> float:
    """Two-sided exact sign test: the probability, if neither side were better, of a split of the discordant
    pairs at least as uneven as `better` against `worse` (binomial with p = 1/2; 1.0 without discordant pairs)."""
    n = better + worse
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(better, worse) + 1))
    return min(1.0, 2 * tail / 2**n)


def paired_comparison(a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """A against B on the same games: a[i] and b[i] are (win share, a score) of A and of B in game i of one
    schedule (the same deal and seats; ``ttr gauntlet`` uses the margin over the best other score, ``ttr
    compare`` the mean score). Gives both win rates with Wilson intervals, the discordant games (``a_only``:
    A's share was larger, ``b_only``: B's was), the exact sign test's p over them (it ignores the games where
    both did the same, which the deal decided), and the mean paired score difference (A − B) with a 95%
    normal interval and p (``score``)."""
    if len(a) != len(b):
        raise ValueError(f"paired samples differ in length: {len(a)} and {len(b)}")
    n = len(a)
    wins_a = sum(x for x, _ in a)
    wins_b = sum(x for x, _ in b)
    a_only = sum(1 for (x, _), (y, _) in zip(a, b, strict=True) if x > y)
    b_only = sum(1 for (x, _), (y, _) in zip(a, b, strict=True) if y > x)
    diffs = [x - y for (_, x), (_, y) in zip(a, b, strict=True)]
    score: dict[str, Any] = {"diff": None, "ci95": None, "p": None}
    if n >= 2:
        mean = statistics.fmean(diffs)
        se = statistics.stdev(diffs) / math.sqrt(n)
        if se == 0:
            score = {"diff": mean, "ci95": [mean, mean], "p": 1.0 if mean == 0 else 0.0}
        else:
            score = {"diff": mean, "ci95": [mean - Z95 * se, mean + Z95 * se], "p": math.erfc(abs(mean / se) / math.sqrt(2))}
    return {
        "games": n,
        "a_win_rate": wins_a / n if n else 0.0,
        "a_win_rate_ci95": list(wilson(wins_a, n)),
        "b_win_rate": wins_b / n if n else 0.0,
        "b_win_rate_ci95": list(wilson(wins_b, n)),
        "a_only": a_only,
        "b_only": b_only,
        "p_sign": sign_test(a_only, b_only),
        "score": score,
    }
