"""ttr bench: engine speed — random-play decisions/s, complete games/s, clone and scoring cost.

Random play = a uniform choice over ``legal_actions()`` applied with ``step()`` (no events), one core.
Rates use this process's CPU time (``time.process_time``), so other load on the machine barely moves them;
wall-clock rates are printed too.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..engine.phases import Phase

HELP = "measure engine speed: random-play decisions/s, games/s, clone and final-scoring cost"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seconds", type=float, default=3.0, help="CPU seconds of random play per row (default 3)")
    p.add_argument("--editions", default="usa,europe,nordic,marklin", help="comma-separated editions")
    p.add_argument("--players", default="", help="comma-separated player counts (default: 2 and 4; 2 and 3 on nordic)")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")


def random_play(edition: str, players: int, seconds: float) -> dict[str, float]:
    from ..engine import Game

    rng = random.Random(1)
    decisions = games = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    seed = 0
    while time.process_time() - cpu0 < seconds:
        g = Game(edition, players, seed)
        seed += 1
        legal, step, choice = g.legal_actions, g.step, rng.choice
        while g.phase != Phase.OVER:
            step(choice(legal()))
            decisions += 1
        games += 1
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {
        "decisions_per_s": decisions / cpu,
        "games_per_s": games / cpu,
        "decisions_per_game": decisions / games,
        "wall_decisions_per_s": decisions / wall,
        "games": games,
    }


def per_call_us(fn: Callable[[Any], Any], items: Sequence[Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        for x in items:
            fn(x)
        best = min(best, (time.process_time() - t) / len(items))
    return best * 1e6


def finished_games(edition: str, players: int, count: int) -> list[Any]:
    from ..engine import Game

    rng = random.Random(2)
    out = []
    for seed in range(count):
        g = Game(edition, players, 10_000 + seed)
        while not g.is_over:
            g.step(rng.choice(g.legal_actions()))
        out.append(g)
    return out


def run(args: argparse.Namespace) -> int:
    from ..engine import ending

    rows = []
    for edition in [e.strip() for e in args.editions.split(",") if e.strip()]:
        counts = [int(x) for x in args.players.split(",") if x] or ([2, 3] if edition == "nordic" else [2, 4])
        for players in counts:
            row: dict[str, Any] = {"edition": edition, "players": players}
            row.update(random_play(edition, players, args.seconds))
            done = finished_games(edition, players, 20)
            row["clone_us"] = per_call_us(lambda g: g.clone(), done)
            row["result_us"] = per_call_us(ending.score, done)  # the scoring work, not the cached result
            row["legal_actions_us"] = per_call_us(lambda g: g.compute_legal_actions(), done)
            rows.append(row)
            if not args.json:
                if len(rows) == 1:
                    print(
                        f"{'edition':8} {'players':>7} {'decisions/s':>12} {'games/s':>9} {'dec/game':>9} "
                        f"{'wall dec/s':>11} {'clone µs':>9} {'result() µs':>11}"
                    )
                print(
                    f"{edition:8} {players:>7} {row['decisions_per_s']:>12,.0f} {row['games_per_s']:>9,.1f} "
                    f"{row['decisions_per_game']:>9.0f} {row['wall_decisions_per_s']:>11,.0f} {row['clone_us']:>9.1f} "
                    f"{row['result_us']:>11.1f}",
                    flush=True,
                )
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0
