"""Single-file PPO with invalid-action masking, in the style of CleanRL (PyTorch, CPU).

    pip install -e '.[rl-train]'          # CPU-only torch first: docs/rl.md
    python examples/cleanrl_ppo_masked.py [--total-timesteps 200000] [--num-envs 4] [--opponent random]
                                          [--eval-games 200] [--seed 0]

Everything is in this file: a Gymnasium vector env (``gym.make_vec``, sync, ``AutoresetMode.SAME_STEP``
so the step that ends a game already returns the next game's first observation and mask), flat [0, 1]
observations with the mask in ``info["action_mask"]``, an MLP actor-critic whose logits are set to
-1e8 where the mask is 0 (the masked categorical of Huang & Ontañón, "A Closer Look at Invalid Action
Masking in Policy Gradient Algorithms"), GAE and the clipped PPO objective. At the end the policy
plays ``--eval-games`` games against ``random`` and ``easy`` (seats rotated) with Wilson intervals.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import ttr.rl
from ttr.cli.rl_eval import evaluate


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edition", default="usa")
    ap.add_argument("--opponent", default="random")
    ap.add_argument("--total-timesteps", type=int, default=200_000)
    ap.add_argument("--num-envs", type=int, default=4)
    ap.add_argument("--num-steps", type=int, default=256, help="rollout length per env")
    ap.add_argument("--learning-rate", type=float, default=2.5e-4)
    ap.add_argument("--gamma", type=float, default=0.999)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--num-minibatches", type=int, default=4)
    ap.add_argument("--update-epochs", type=int, default=4)
    ap.add_argument("--clip-coef", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--max-grad-norm", type=float, default=0.5)
    ap.add_argument("--reward-scale", type=float, default=0.02, help="margin reward x this")
    ap.add_argument("--eval-games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    return ap.parse_args()


def layer(n_in: int, n_out: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, n_obs: int, n_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, 256), nn.Tanh(), layer(256, 256), nn.Tanh(), layer(256, 1, 1.0))
        self.actor = nn.Sequential(layer(n_obs, 256), nn.Tanh(), layer(256, 256), nn.Tanh(), layer(256, n_actions, 0.01))

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def act(
        self, x: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        # entropy over the legal actions only (masked entries have probability 0)
        p = dist.probs
        entropy = -(p * torch.where(mask, dist.logits, torch.zeros_like(p))).sum(-1)
        return action, dist.log_prob(action), entropy, self.critic(x)


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    envs = gym.make_vec(
        ttr.rl.GYM_IDS[args.edition],
        num_envs=args.num_envs,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
        observation="flat",
        seat="random",
        opponents=args.opponent,
    )
    n_obs, n_act = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(n_obs, n_act)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, n_obs))
    mask_buf = torch.zeros((T, N, n_act), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf = torch.zeros((T, N))
    rew_buf = torch.zeros((T, N))
    done_buf = torch.zeros((T, N))
    val_buf = torch.zeros((T, N))

    obs, info = envs.reset(seed=args.seed)
    next_obs = torch.tensor(obs)
    next_mask = torch.tensor(info["action_mask"].astype(bool))
    next_done = torch.zeros(N)
    batch = T * N
    minibatch = batch // args.num_minibatches
    iterations = max(1, args.total_timesteps // batch)
    episodes, wins, t0 = 0, 0.0, time.perf_counter()
    for it in range(1, iterations + 1):
        for g in optimizer.param_groups:  # linear learning-rate annealing
            g["lr"] = (1.0 - (it - 1.0) / iterations) * args.learning_rate
        for step in range(T):
            obs_buf[step], mask_buf[step], done_buf[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logp, _, value = agent.act(next_obs, next_mask)
            val_buf[step], act_buf[step], logp_buf[step] = value.flatten(), action, logp
            obs, reward, term, trunc, info = envs.step(action.numpy())
            rew_buf[step] = torch.tensor(reward * args.reward_scale, dtype=torch.float32)
            next_obs = torch.tensor(obs)
            next_mask = torch.tensor(info["action_mask"].astype(bool))
            next_done = torch.tensor((term | trunc).astype(np.float32))
            for i in np.flatnonzero(term):
                episodes += 1
                wins += float(reward[i] > 0)
        with torch.no_grad():  # GAE
            next_value = agent.value(next_obs).flatten()
            adv = torch.zeros_like(rew_buf)
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nonterminal = 1.0 - (next_done if t == T - 1 else done_buf[t + 1])
                nv = next_value if t == T - 1 else val_buf[t + 1]
                delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
                adv[t] = last = delta + args.gamma * args.gae_lambda * nonterminal * last
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(batch, n_obs), mask_buf.reshape(batch, n_act)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        for _ in range(args.update_epochs):
            order = rng.permutation(batch)
            for start in range(0, batch, minibatch):
                idx = torch.as_tensor(order[start : start + minibatch])
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((value.flatten() - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        steps = it * batch
        rate = wins / episodes if episodes else float("nan")
        print(
            f"iter {it}/{iterations} steps {steps} episodes {episodes} train win rate {rate:.3f} "
            f"({steps / (time.perf_counter() - t0):.0f} steps/s)"
        )
    envs.close()

    def policy(obs: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            action, *_ = agent.act(torch.tensor(obs)[None], torch.tensor(mask.astype(bool))[None])
        return int(action[0])

    for row in evaluate(policy, ["random", "easy"], args.eval_games, edition=args.edition, observation="flat", seed=10_000):
        print(
            f"vs {row['opponent']:<7} win rate {row['win_rate']:.3f}  "
            f"95% [{row['wilson_low']:.3f}, {row['wilson_high']:.3f}]  mean margin {row['mean_margin']:+.1f}"
        )


if __name__ == "__main__":
    main()
