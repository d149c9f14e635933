"""Cost of the search bot: CPU time per iteration and per searched decision over one whole game.

    python benchmarks/bench_search.py [--edition usa] [--players 2] [--iterations 200] [--seed 77]

Every seat is an ``ismcts`` bot with the given iteration budget, fed the events its player sees.
Only decisions the bot actually searched are counted (whole turns with a choice and ticket
choices; forced moves and second cards are the planner's and cost about a millisecond).
"""

from __future__ import annotations

import argparse
import time

from ttr.bots import make_bot
from ttr.engine import Game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="usa")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=77)
    args = parser.parse_args()
    n = args.players
    game = Game(args.edition, n, args.seed)
    bots = [make_bot(f"ismcts:iterations={args.iterations}", seed=args.seed * 10 + q) for q in range(n)]
    searched = iterations = 0
    cpu = 0.0
    while not game.is_over:
        p = game.current
        bots[p].last_stats = {}
        start = time.process_time()
        action = bots[p].act(game.view(p), game.legal_actions())
        elapsed = time.process_time() - start
        if bots[p].last_stats:
            searched += 1
            iterations += bots[p].last_stats["iterations"]
            cpu += elapsed
        for event in game.apply(action):
            for q, bot in enumerate(bots):
                bot.observe(event.for_player(q))
    print(
        f"{args.edition} {n}p, {args.iterations} iterations: {searched} searched decisions "
        f"({searched / n:.0f} a player), {1000 * cpu / max(1, iterations):.2f} ms CPU an iteration, "
        f"{cpu / max(1, searched):.3f} s CPU a searched decision"
    )


if __name__ == "__main__":
    main()
