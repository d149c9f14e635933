"""Strength and speed of the search bot's playout policy (``ttr.bots.rollout``) against a bot.

    python benchmarks/bench_playout.py [--edition usa] [--players 2] [--games 200] [--against planner]

The policy plays one seat on the real game (it reads only its own hand and tickets, as in a
playout), the other seats are played by ``--against`` from their views. Seats rotate; deal seeds
are 9000, 9001, ... Prints the policy's win share, its mean margin over the best other player,
ticket and route points of both sides, and the CPU time per game. The search can only tell apart
moves whose consequences its playouts play out sensibly, so this is the number to watch when
changing the policy (docs/bots.md, "ISMCTS").
"""

from __future__ import annotations

import argparse
import time

from ttr.bots import make_bot
from ttr.bots.rollout import RolloutPolicy
from ttr.engine import Game, IllegalAction


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="usa")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--against", default="planner")
    args = parser.parse_args()
    n = args.players
    wins = margin = 0.0
    points = {"policy": [0, 0], "others": [0, 0]}  # ticket points, route points
    fallbacks = 0
    start = time.process_time()
    for i in range(args.games):
        seed, seat = 9000 + i // n, i % n
        game = Game(args.edition, n, seed)
        bots = [make_bot(args.against, seed=seed * 10 + q) for q in range(n)]
        policy = RolloutPolicy(game)
        while not game.is_over:
            p = game.current
            if p != seat:
                game.step(bots[p].act(game.view(p), game.legal_actions()))
                continue
            try:
                game.step(policy.act(game))
            except IllegalAction:
                fallbacks += 1
                game.step(game.legal_actions()[0])
        result = game.result()
        if seat in result["winners"]:
            wins += 1 / len(result["winners"])
        totals = [x["total"] for x in result["players"]]
        margin += totals[seat] - max(t for q, t in enumerate(totals) if q != seat)
        for q, row in enumerate(result["players"]):
            side = points["policy" if q == seat else "others"]
            share = 1 if q == seat else 1 / (n - 1)
            side[0] += row["ticket_points"] * share
            side[1] += row["route_points"] * share
    games = args.games
    elapsed = time.process_time() - start
    print(
        f"{args.edition} {n}p, policy vs {args.against}, {games} games: win share {wins / games:.3f} "
        f"(par {1 / n:.3f}), mean margin {margin / games:+.1f}"
    )
    for side, (tickets, routes) in points.items():
        print(f"  {side:7s} ticket points {tickets / games:6.1f}  route points {routes / games:6.1f}")
    print(f"  {1000 * elapsed / games:.1f} ms CPU a game (both sides), {fallbacks} policy moves fell back")


if __name__ == "__main__":
    main()
