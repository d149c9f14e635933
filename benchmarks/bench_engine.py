"""Engine speed: random-play decisions/s, complete games/s, clone cost, end-of-game scoring cost.

    python benchmarks/bench_engine.py [--seconds 5] [--editions usa,europe,nordic,marklin]

Random play = uniform choice over ``legal_actions()`` applied with ``step()`` (no events), one core.
"""

from __future__ import annotations

import argparse
import random
import time

from ttr.engine import Game


def random_games(edition: str, players: int, seconds: float) -> tuple[float, float, int]:
    """(decisions/s, games/s, games) over at least `seconds` of random play."""
    rng = random.Random(1)
    decisions = games = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        g = Game(edition, players, seed)
        seed += 1
        legal = g.legal_actions
        step = g.step
        choice = rng.choice
        while g.phase != "over":
            step(choice(legal()))
            decisions += 1
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed, games


def finished_games(edition: str, players: int, count: int) -> list[Game]:
    rng = random.Random(2)
    out = []
    for seed in range(count):
        g = Game(edition, players, 10_000 + seed)
        while not g.is_over:
            g.step(rng.choice(g.legal_actions()))
        out.append(g)
    return out


def per_call(fn, items, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for x in items:
            fn(x)
        best = min(best, (time.perf_counter() - t) / len(items))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds of random play per table row")
    ap.add_argument("--editions", default="usa,europe,nordic,marklin")
    args = ap.parse_args()
    print(f"{'edition':8} {'players':>7} {'decisions/s':>12} {'games/s':>9} {'dec/game':>9} {'clone µs':>9} "
          f"{'result() µs':>11}")
    for edition in args.editions.split(","):
        counts = [2, 3] if edition == "nordic" else [2, 4]
        for players in counts:
            dps, gps, games = random_games(edition, players, args.seconds)
            done = finished_games(edition, players, 20)
            clone_us = per_call(lambda g: g.clone(), done) * 1e6
            result_us = per_call(lambda g: g.result(), done) * 1e6
            print(f"{edition:8} {players:>7} {dps:>12,.0f} {gps:>9,.1f} {dps / gps:>9.0f} {clone_us:>9.1f} "
                  f"{result_us:>11.1f}")


if __name__ == "__main__":
    main()
