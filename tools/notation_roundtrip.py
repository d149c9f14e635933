"""Round-trip every legal action of many random games through the move notation (issue 13 §3).

For each game (uniform random play, seeded), at every step every legal action is written with
``format_move``, read back with ``parse_move`` and must give the same action, and the text written again
must be the same text (``ttr.sim.notation_check``). The first mismatch stops the run with the game, step and
text. CI runs the same check on a few games a run (tests/engine/test_notation.py); this is the long run.

    python tools/notation_roundtrip.py --games 1000                  # every edition, every player count
    python tools/notation_roundtrip.py --games 200 --editions nordic --players 2,3 --seed 7
"""

from __future__ import annotations

import argparse
import sys
import time

from ttr.editions import get_edition
from ttr.sim.notation_check import round_trip_game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=1000, help="games per edition and player count (default 1000)")
    p.add_argument("--editions", default="usa,europe,nordic,marklin")
    p.add_argument("--players", default="", help="player counts (default: every count the edition allows)")
    p.add_argument("--seed", type=int, default=0, help="the first game's seed (then seed+1, ...)")
    args = p.parse_args(argv)
    total_games = total_actions = 0
    for edition in [e.strip() for e in args.editions.split(",") if e.strip()]:
        low, high = get_edition(edition).rules.players
        counts = [int(x) for x in args.players.split(",") if x] or list(range(low, high + 1))
        for players in counts:
            t0 = time.process_time()
            steps = actions = 0
            for seed in range(args.seed, args.seed + args.games):
                s, a = round_trip_game(edition, players, seed)
                steps += s
                actions += a
            total_games += args.games
            total_actions += actions
            print(
                f"{edition:8} {players}p: {args.games} games, {steps:,} steps, {actions:,} legal actions round-tripped "
                f"({time.process_time() - t0:.0f} s CPU)",
                flush=True,
            )
    print(f"all: {total_games:,} games, {total_actions:,} legal actions, every one round-tripped exactly")
    return 0


if __name__ == "__main__":
    sys.exit(main())
