"""Train a linear softmax policy with REINFORCE (numpy, one CPU core) and measure it against `random`.

    python examples/train_linear.py [--edition usa] [--minutes 3] [--eval-games 200] [--seed 0]

The learner plays one seat of the Gymnasium env (``ttr/TicketToRide-<edition>-v0``) against one
random bot, in a random seat each game. Its policy scores only the legal actions (the mask):

    logit(a) = theta . F[a] + b[a] + W[a] . (observation / observation_space.high)

where F[a] are a few fixed features of index a read from the documented action layout (which block
it is in; for a claim the route's length and points and the locomotives spent; for keeping tickets
how many are kept). The reward is the final score margin / 50. After training, the learned
(stochastic) policy and an untrained uniform policy each play ``--eval-games`` evaluation games on
the same seeds; the script prints both win rates (a shared first place counts half). The greedy
argmax of such a policy is not used: it collapses onto its favourite card draw and never claims.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ttr.rl import TicketToRideEnv
from ttr.rl.actions import ActionCodec


def action_features(codec: ActionCodec) -> np.ndarray:
    """Fixed features per action index: block one-hot, then claim length/points/locomotives, tickets kept."""
    names = list(codec.blocks)
    extra = ["claim_length", "claim_points", "claim_wilds", "tickets_kept"]
    feats = np.zeros((codec.size, len(names) + len(extra)), dtype=np.float64)
    for j, b in enumerate(codec.blocks.values()):
        feats[b.start : b.stop, j] = 1.0
    col = len(names)
    ed = codec.edition
    for rc in codec.route_codes:
        route = ed.routes[rc.route]
        feats[rc.start : rc.start + rc.size, col] = route.length / 6
        feats[rc.start : rc.start + rc.size, col + 1] = route.points / 15
        if rc.kind == "plain":
            width = rc.hi - rc.lo + 1
            for code in range(rc.size):
                wild = route.length if rc.all_wild and code == rc.size - 1 else rc.lo + code % max(width, 1)
                feats[rc.start + code, col + 2] = wild / 6
    keep = codec.blocks["keep_tickets"]
    for bits in range(1, keep.size + 1):
        feats[keep.start + bits - 1, col + 3] = bin(bits).count("1") / 3
    return feats


class LinearPolicy:
    def __init__(self, codec: ActionCodec, obs_high: np.ndarray, rng: np.random.Generator) -> None:
        self.feats = action_features(codec)
        self.theta = np.zeros(self.feats.shape[1])
        self.bias = np.zeros(codec.size)
        self.weights = np.zeros((codec.size, len(obs_high)), dtype=np.float32)
        self.scale = 1.0 / np.maximum(obs_high, 1.0)
        self.rng = rng

    def decide(self, obs: dict[str, np.ndarray]) -> tuple[int, tuple]:
        legal = np.flatnonzero(obs["action_mask"])
        x = obs["observation"] * self.scale
        logits = self.feats[legal] @ self.theta + self.bias[legal] + self.weights[legal] @ x
        logits -= logits.max()
        probs = np.exp(logits)
        probs /= probs.sum()
        pos = int(self.rng.choice(len(legal), p=probs))
        return int(legal[pos]), (legal, probs, pos, x)

    def update(self, steps: list[tuple], advantage: float, lr: float, lr_obs: float) -> None:
        for legal, probs, pos, x in steps:
            g = -probs
            g[pos] += 1.0
            g *= advantage
            self.theta += lr * (self.feats[legal].T @ g)
            self.bias[legal] += lr * g
            self.weights[legal] += (lr_obs * g)[:, None].astype(np.float32) * x[None, :]


def play(
    env: TicketToRideEnv, policy: LinearPolicy | None, seed: int, rng: np.random.Generator
) -> tuple[float, list[tuple], dict]:
    obs, _ = env.reset(seed=seed)
    steps: list[tuple] = []
    while True:
        if policy is None:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        else:
            action, trace = policy.decide(obs)
            steps.append(trace)
        obs, reward, terminated, _, info = env.step(action)
        if terminated:
            return reward, steps, info


def win_share(env: TicketToRideEnv, info: dict) -> float:
    winners = info["result"]["winners"]
    return 1.0 / len(winners) if env.seat in winners else 0.0


def evaluate(env: TicketToRideEnv, policy: LinearPolicy | None, games: int, rng: np.random.Generator) -> tuple[float, float]:
    wins, margins = [], []
    for g in range(games):
        margin, _, info = play(env, policy, 10_000_000 + g, rng)
        wins.append(win_share(env, info))
        margins.append(margin)
    return float(np.mean(wins)), float(np.mean(margins))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edition", default="usa")
    ap.add_argument("--minutes", type=float, default=3.0, help="training time budget")
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--lr-obs", type=float, default=0.002)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    env = TicketToRideEnv(args.edition, opponents=("random",), seat="random", reward="margin")
    policy = LinearPolicy(env.codec, env.observation_space["observation"].high, rng)
    baseline = 0.0
    start = time.perf_counter()
    episode = 0
    recent: list[float] = []
    print(f"training on {args.edition} against one random bot for {args.minutes:g} min")
    while time.perf_counter() - start < args.minutes * 60:
        margin, steps, info = play(env, policy, args.seed * 1_000_000 + episode, rng)
        ret = margin / 50.0
        policy.update(steps, ret - baseline, args.lr / max(len(steps), 1) ** 0.5, args.lr_obs / max(len(steps), 1) ** 0.5)
        baseline += 0.02 * (ret - baseline)
        recent.append(win_share(env, info))
        episode += 1
        if episode % 500 == 0:
            print(
                f"  episode {episode:6d}  {time.perf_counter() - start:6.0f}s  win rate (last 500, sampling) "
                f"{np.mean(recent[-500:]):.3f}  mean margin baseline {baseline * 50:+.1f}"
            )
    trained_s = time.perf_counter() - start
    print(f"trained {episode} episodes in {trained_s:.0f}s")
    n = args.eval_games
    trained = evaluate(env, policy, n, rng)
    untrained = evaluate(env, None, n, rng)
    se = lambda p: (p * (1 - p) / n) ** 0.5  # noqa: E731
    print(f"evaluation: {n} games vs random on {args.edition}, seats random, same seeds for both rows")
    print(f"  trained linear policy:      win rate {trained[0]:.3f} ± {se(trained[0]):.3f}, mean margin {trained[1]:+.1f}")
    print(f"  untrained (uniform random): win rate {untrained[0]:.3f} ± {se(untrained[0]):.3f}, mean margin {untrained[1]:+.1f}")


if __name__ == "__main__":
    main()
