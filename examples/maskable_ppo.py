"""Train sb3-contrib's MaskablePPO on Ticket to Ride with no glue, then measure it against `random` and `easy`.

    pip install -e '.[rl-train]'          # CPU-only torch first: docs/rl.md
    python examples/maskable_ppo.py [--timesteps 200000] [--envs 4] [--opponents random] [--eval-games 200]
                                    [--selfplay] [--save model.zip] [--seed 0]

The env is ``ttr/TicketToRide-usa-v0`` with ``observation="flat"`` (a [0, 1] vector: ``MlpPolicy``
works as it is) and the learner in a random seat; sb3-contrib reads the mask through the env's
``action_masks()``. ``--selfplay`` draws the opponents from an ``OpponentPool`` (random, easy,
medium) and adds a frozen snapshot of the learner to it every ``--snapshot-every`` steps. At the
end the model plays ``--eval-games`` games against ``random`` and ``easy`` (seats rotated,
``ttr.cli.rl_eval.evaluate``) and prints win rates with Wilson 95% intervals. The saved zip is a
POLICY for ``ttr rl-eval``.
"""

from __future__ import annotations

import argparse
import time

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env

import ttr.rl
from ttr.cli.rl_eval import evaluate
from ttr.rl.opponents import OpponentPool
from ttr.rl.selfplay import sb3_policy_callable, sb3_snapshot


class Snapshots(BaseCallback):
    """Adds a frozen copy of the learner to the pool every `every` steps (self-play league)."""

    def __init__(self, pool: OpponentPool, every: int) -> None:
        super().__init__()
        self.pool, self.every, self.next = pool, every, every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.pool.add(sb3_snapshot(self.model), name=f"snapshot-{self.num_timesteps}")
            self.next += self.every
        return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edition", default="usa")
    ap.add_argument("--timesteps", type=int, default=200_000)
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--opponents", default="random", help="bot of the other seat (without --selfplay)")
    ap.add_argument("--selfplay", action="store_true", help="opponents from a pool that gains snapshots of the learner")
    ap.add_argument("--snapshot-every", type=int, default=50_000)
    ap.add_argument("--n-steps", type=int, default=256, help="rollout length per env")
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--save", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)

    pool = OpponentPool(["random", "easy", "medium"]) if args.selfplay else None
    env_kwargs = {"observation": "flat", "seat": "random", "opponents": pool if pool is not None else args.opponents}
    venv = make_vec_env(ttr.rl.GYM_IDS[args.edition], n_envs=args.envs, seed=args.seed, env_kwargs=env_kwargs)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=min(256, args.n_steps * args.envs),
        n_epochs=4,
        gamma=0.999,
        ent_coef=0.01,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    t0 = time.perf_counter()
    callback = Snapshots(pool, args.snapshot_every) if pool is not None else None
    model.learn(args.timesteps, callback=callback)
    train_s = time.perf_counter() - t0
    print(f"trained {args.timesteps} steps in {train_s:.0f} s ({args.timesteps / train_s:.0f} steps/s)")
    if pool is not None:
        print(f"pool at the end: {', '.join(pool.names)}")
    if args.save:
        model.save(args.save)
        print(f"saved {args.save} (evaluate it with: ttr rl-eval {args.save} --against hard,racer --games 400)")
    policy = sb3_policy_callable(model.policy)
    for row in evaluate(policy, ["random", "easy"], args.eval_games, edition=args.edition, observation="flat", seed=10_000):
        print(
            f"vs {row['opponent']:<7} win rate {row['win_rate']:.3f}  "
            f"95% [{row['wilson_low']:.3f}, {row['wilson_high']:.3f}]  mean margin {row['mean_margin']:+.1f}"
        )


if __name__ == "__main__":
    main()
