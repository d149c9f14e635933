"""ttr rl-eval: a trained policy against a gauntlet of bots, win rates with Wilson 95% intervals.

POLICY is ``module:callable``, ``file.py:callable`` (``:factory()`` to call a factory first) or an SB3
``model.zip``; see docs/rl.md ("Evaluating a policy"). Every game seats the policy in turn in each seat
(seat = game number mod players), the other seats all played by the opponent being measured. A shared
first place counts half a win (as in ``ttr tournament``).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

HELP = "evaluate a trained RL policy (module:callable or SB3 .zip) against bots, with Wilson intervals"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("policy", metavar="POLICY", help="module:callable, file.py:callable, file.py:factory() or model.zip")
    p.add_argument("--against", default="random,easy,medium,hard,racer", help="comma-separated bots (names, levels, specs)")
    p.add_argument("--games", type=int, default=400, help="games per opponent (default 400)")
    p.add_argument("--edition", default="usa", help="edition (default usa)")
    p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    p.add_argument(
        "--observation", choices=("dict", "flat"), default="dict", help="observation format of a callable (default dict)"
    )
    p.add_argument("--algo", default="maskable_ppo", help="SB3 class for a .zip: maskable_ppo (default), ppo, a2c, dqn")
    p.add_argument("--options", default="", help="rule options as JSON (house rules)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")


def evaluate(
    policy: Any,
    against: list[str],
    games: int,
    edition: str = "usa",
    players: int = 2,
    seed: int = 0,
    observation: str = "dict",
    options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    from ..rl.gym_env import TicketToRideEnv
    from ..sim.stats import wilson

    rows = []
    for opponent in against:
        wins = 0.0
        margins = []
        t0 = time.perf_counter()
        envs = [
            TicketToRideEnv(edition, opponents=opponent, players=players, seat=s, observation=observation, options=options)
            for s in range(players)
        ]
        for g in range(games):
            env = envs[g % players]
            obs, info = env.reset(seed=seed + g)
            done = False
            while not done:
                obs, _, term, trunc, info = env.step(policy(obs, info["action_mask"]))
                done = term or trunc
            res = info["result"]
            me = env.seat
            if me in res["winners"]:
                wins += 1.0 / len(res["winners"])
            margins.append(res["scores"][me] - max(s for p, s in enumerate(res["scores"]) if p != me))
        lo, hi = wilson(wins, games)
        rows.append(
            {
                "opponent": opponent,
                "games": games,
                "wins": wins,
                "win_rate": wins / games if games else 0.0,
                "wilson_low": lo,
                "wilson_high": hi,
                "mean_margin": sum(margins) / len(margins) if margins else 0.0,
                "seconds": time.perf_counter() - t0,
            }
        )
    return rows


def run(args: argparse.Namespace) -> int:
    from ..rl.policies import PolicyLoadError, load_policy

    if args.games < 1:
        raise PolicyLoadError("--games must be at least 1")
    policy, observation = load_policy(args.policy, args.observation, args.algo)
    options = json.loads(args.options) if args.options else None
    against = [a.strip() for a in args.against.split(",") if a.strip()]
    rows = evaluate(policy, against, args.games, args.edition, args.players, args.seed, observation, options)
    if args.json:
        print(json.dumps({"policy": args.policy, "edition": args.edition, "players": args.players, "results": rows}, indent=2))
        return 0
    print(f"{args.policy} on {args.edition}, {args.players} players, {args.games} games per opponent (seats rotated)")
    print(f"{'opponent':<24} {'win rate':>9} {'95% Wilson':>16} {'mean margin':>12}")
    for r in rows:
        interval = f"[{r['wilson_low']:.3f}, {r['wilson_high']:.3f}]"
        print(f"{r['opponent']:<24} {r['win_rate']:>9.3f} {interval:>16} {r['mean_margin']:>+12.1f}")
    return 0
