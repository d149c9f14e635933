"""Cost of the search bot: CPU time per iteration and per searched decision over one whole game.

    python benchmarks/bench_search.py [--edition usa] [--players 2] [--spec max] [--seed 77] [--games 1]

Every seat is the given search bot (``--spec``, any ``ismcts`` spec or level; ``--iterations N``
is shorthand for ``ismcts:iterations=N``), fed the events its player sees. Only decisions the bot
actually searched are counted (whole turns with a choice and ticket choices; forced moves and
second cards are the planner's and cost about a millisecond). The digest is a hash of every move of
every game: with an iteration budget the games are deterministic, so two versions of the search
that print the same digest made the same decisions.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

from ttr.bots import make_bot
from ttr.bots.ismcts import ISMCTSBot
from ttr.engine import Game


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of `values` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", default="usa")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--spec", default=None, help="search bot spec (default: ismcts:iterations=N)")
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--games", type=int, default=1, help="games on seeds seed, seed+1, ...")
    args = parser.parse_args()
    spec = args.spec or f"ismcts:iterations={args.iterations}"
    n = args.players
    digest = hashlib.sha256()
    times: list[float] = []
    iterations = 0
    for seed in range(args.seed, args.seed + args.games):
        game = Game(args.edition, n, seed)
        bots: list[ISMCTSBot] = []
        for q in range(n):
            bot = make_bot(spec, seed=seed * 10 + q)
            if not isinstance(bot, ISMCTSBot):
                parser.error(f"{spec} is not a search bot")
            bots.append(bot)
        while not game.is_over:
            p = game.current
            bots[p].last_stats = {}
            start = time.process_time()
            action = bots[p].act(game.view(p), game.legal_actions())
            elapsed = time.process_time() - start
            digest.update(repr(action).encode())
            if bots[p].last_stats:
                times.append(elapsed)
                iterations += bots[p].last_stats["iterations"]
            for event in game.apply(action):
                for q, bot in enumerate(bots):
                    bot.observe(event.for_player(q))
    cpu = sum(times)
    print(
        f"{args.edition} {n}p, {spec}, {args.games} game(s) from seed {args.seed}: {len(times)} searched decisions, "
        f"{1000 * cpu / max(1, iterations):.3f} ms CPU an iteration; CPU a searched decision: "
        f"median {statistics.median(times):.3f} s, p99 {percentile(times, 0.99):.3f} s, mean {cpu / max(1, len(times)):.3f} s; "
        f"moves digest {digest.hexdigest()[:16]}"
    )


if __name__ == "__main__":
    main()
