"""The bot calibration ladder: bots of every level play rated games among themselves, offline, through the
tournament runner, and are rated in the very model the server rates accounts with (openskill's Plackett-Luce,
``ttr.server.ratings.MODEL``), so that a bot level and a player's rating can be read on one scale.

Scale. openskill ratings have no absolute zero: a new account starts at mu 25, sigma 25/3 (ordinal 0), which
says only "nothing known yet". The ladder is **anchored** so that the ``medium`` bot's mu is that starting mu:
a new player is assumed to be as strong as the medium bot, and the other levels sit where their games against
medium and each other put them. The figure shown (lobby, leaderboard) is the same ``ordinal`` = mu - 3 sigma for
bots and players. Caveat: rated games are between accounts only (games with bots are unrated), so a player's
rating moves against other players; the anchor is what ties the two ladders together.

Schedule. Every pair of levels (2 players) plays ``games`` games in seat rotations on shared deals (the
tournament's schedule); a pair that includes a slow level (``max``: an ISMCTS search of about 0.35 s a move,
some 50 CPU seconds a game) plays ``slow_games`` instead. Games are rated one after the other in schedule
order. The result is a small JSON shipped in the package (``ttr/server/bot_ratings.json``), regenerated with
``ttr calibrate``.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .runner import GameSpec
from .tournament import run as run_specs
from .tournament import schedule

LEVEL_ORDER = ("easy", "medium", "hard", "max")
SLOW_LEVELS = frozenset({"max"})
ANCHOR = "medium"
SHIPPED = Path(__file__).resolve().parent.parent / "server" / "bot_ratings.json"


def ladder_schedule(
    edition: str,
    players: int,
    levels: Sequence[str],
    games: int,
    slow_games: int,
    seed: int = 1,
    slow_vs: Sequence[str] | None = None,
) -> list[GameSpec]:
    """The games of the ladder: for every combination of `players` levels, `games` games (`slow_games` when a
    slow level plays), seat-rotated on shared deals; each combination has its own seeds. `slow_vs`, if given,
    limits a slow level's opponents to those levels (e.g. max against hard only: a reduced schedule)."""
    if len(set(levels)) < 2:
        raise ValueError("calibrate at least two levels")
    if players > len(levels):
        raise ValueError(f"{players} players need at least {players} levels")
    specs: list[GameSpec] = []
    for i, combo in enumerate(itertools.combinations(levels, players)):
        slow = SLOW_LEVELS & set(combo)
        n = slow_games if slow else games
        if slow and slow_vs is not None and not set(combo) - slow <= set(slow_vs):
            n = 0
        if n > 0:
            specs += schedule(edition, players, list(combo), n, seed=seed + 1000 * i)
    return specs


def ranks_of(record: dict[str, Any]) -> list[int]:
    """1 = first; seats with equal final scores share a rank (the engine's winners share rank 1)."""
    scores = record["result"]["scores"]
    winners = set(record["result"]["winners"])
    out = []
    for seat, s in enumerate(scores):
        if seat in winners:
            out.append(1)
        else:
            out.append(1 + sum(1 for t, o in enumerate(scores) if (o > s or t in winners) and t != seat))
    return out


def interleaved(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records in round-robin order over the pairings (1st game of each pairing, then the 2nd...): a
    sequential rating update weighs late games more, so no pairing may come all at the end."""
    by_combo: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for rec in records:
        by_combo.setdefault(tuple(sorted(rec["bots"])), []).append(rec)
    out: list[dict[str, Any]] = []
    for i in range(max((len(v) for v in by_combo.values()), default=0)):
        out += [v[i] for v in by_combo.values() if i < len(v)]
    return out


def rate_records(records: Sequence[dict[str, Any]], levels: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Rate the levels from the games' final rankings (interleaved over the pairings), then shift every mu so that
    the anchor level's mu is the model's starting mu. Returns {level: {mu, sigma, ordinal, games, wins}}."""
    from ..server.ratings import MODEL

    records = interleaved(records)
    state = {lv: MODEL.rating() for lv in levels}
    games = dict.fromkeys(levels, 0)
    wins = dict.fromkeys(levels, 0)
    for rec in records:
        bots = rec["bots"]
        ranks = ranks_of(rec)
        after = MODEL.rate([[state[b]] for b in bots], ranks=ranks)
        for b, (new,), r in zip(bots, after, ranks, strict=True):
            state[b] = new
            games[b] += 1
            wins[b] += 1 if r == 1 else 0
    start = MODEL.rating().mu
    shift = start - state[ANCHOR].mu if ANCHOR in state else 0.0
    out = {}
    for lv in levels:
        mu, sigma = state[lv].mu + shift, state[lv].sigma
        out[lv] = {
            "mu": round(mu, 3),
            "sigma": round(sigma, 3),
            "ordinal": round(mu - 3 * sigma, 2),
            "games": games[lv],
            "wins": wins[lv],
        }
    return out


def calibrate(
    edition: str = "usa",
    players: int = 2,
    levels: Sequence[str] = LEVEL_ORDER,
    games: int = 8,
    slow_games: int = 2,
    seed: int = 1,
    jobs: int = 1,
    on_record: Callable[[dict[str, Any]], None] | None = None,
    slow_vs: Sequence[str] | None = None,
    records: Sequence[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Play the ladder (or take the `records` of one played before) and rate it: the JSON `ttr calibrate` writes."""
    wall, cpu = time.perf_counter(), time.process_time()
    if records is None:
        specs = ladder_schedule(edition, players, levels, games, slow_games, seed, slow_vs)
        records = run_specs(specs, "local", jobs, None, on_record)
    from ..server.ratings import player_class

    return {
        "model": "openskill PlackettLuce (the server's ttr.server.ratings.MODEL)",
        "anchor": f"{ANCHOR} mu = a new account's mu (25): a new player is assumed as strong as the medium bot",
        "figure": "mu (the expected strength; a player's mu is the comparable figure, the leaderboard's ordinal is mu - 3 sigma)",
        "edition": edition,
        "class": player_class(players),
        "schedule": {
            "players": players,
            "levels": list(levels),
            "games_per_pair": games,
            "slow_games_per_pair": slow_games,
            "slow_levels": sorted(SLOW_LEVELS & set(levels)),
            "slow_vs": list(slow_vs) if slow_vs is not None else "every level",
            "seed": seed,
            "games": len(records),
        },
        "generated": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "seconds": round(time.perf_counter() - wall, 1),
        "cpu_seconds_main": round(time.process_time() - cpu, 1),
        "levels": rate_records(records, levels),
    }


def load_shipped(path: Path = SHIPPED) -> dict[str, Any]:
    """The shipped ladder ({} if the file is missing)."""
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return {}
