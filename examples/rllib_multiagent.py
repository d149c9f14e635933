"""RLlib multi-agent PPO with action masking on Ticket to Ride: every seat is an agent, one shared policy.

    python examples/rllib_multiagent.py [--iterations 20] [--players 2] [--batch 4000] [--env-runners 0]
                                        [--address auto] [--eval-games 100]

Ray runs locally by default (``ray.init()``); ``--address auto`` (or ``ray://host:10001``) joins a running
Ray cluster and ``--env-runners N`` samples on N remote workers, which is how the same script scales
out of one machine. The PettingZoo AEC env is exposed to RLlib's MultiAgentEnv API by the small
``TicketToRideMultiAgent`` adapter below: only the agent to move gets an observation, a dict
``{"observations": flat [0, 1] vector, "action_mask": float mask}`` as RLlib's ``ActionMaskingTorchRLModule``
expects; the final rewards go to every agent at the end. All agents map to one policy (``shared``), so it
learns by self-play. After training, the policy plays ``--eval-games`` games against ``random`` and
``easy`` (seats rotated) with Wilson intervals.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import ray
import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule  # shipped with ray[rllib]

from ttr.cli.rl_eval import evaluate
from ttr.rl import ticket_to_ride_v0


class TicketToRideMultiAgent(MultiAgentEnv):
    """RLlib MultiAgentEnv over ``ticket_to_ride_v0.raw_env(observation="flat")``."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        config = dict(config or {})
        self.aec = ticket_to_ride_v0.raw_env(
            edition=config.get("edition", "usa"), players=config.get("players", 2), reward="win", observation="flat"
        )
        self.agents = self.possible_agents = self.aec.possible_agents[:]
        n, size = self.aec.layout.size, self.aec.codec.size
        obs_space = spaces.Dict(
            {"observations": spaces.Box(0.0, 1.0, (n,), np.float32), "action_mask": spaces.Box(0.0, 1.0, (size,), np.float32)}
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        mask = self.aec.infos[agent]["action_mask"].astype(np.float32)
        return {"observations": self.aec.observe(agent), "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed)
        mover = self.aec.agent_selection
        return {mover: self._obs(mover)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec
        acted = aec.agent_selection
        aec.step(int(action_dict[acted]))
        if aec.game.is_over:
            everyone = self.possible_agents
            obs = {a: self._obs(a) for a in everyone}
            rewards = {a: float(aec.rewards[a]) for a in everyone}
            return obs, rewards, {"__all__": True}, {"__all__": False}, {}
        mover = aec.agent_selection
        rewards = {acted: 0.0, mover: 0.0}  # RLlib wants a reward for every agent that acted or observes
        return {mover: self._obs(mover)}, rewards, {"__all__": False}, {"__all__": False}, {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--edition", default="usa")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--batch", type=int, default=4000, help="train batch size (env steps) per iteration")
    ap.add_argument("--env-runners", type=int, default=0, help="remote sampling workers (0: sample in the driver)")
    ap.add_argument("--address", default=None, help="Ray cluster address (default: a local Ray)")
    ap.add_argument("--eval-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    ray.init(address=args.address, num_cpus=None if args.address else 2, include_dashboard=False, log_to_driver=False)
    env_config = {"edition": args.edition, "players": args.players}
    config = (
        PPOConfig()
        .environment(TicketToRideMultiAgent, env_config=env_config, disable_env_checking=True)  # its check ignores masks
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    "shared": RLModuleSpec(
                        module_class=ActionMaskingTorchRLModule,
                        model_config={"fcnet_hiddens": [128, 128], "head_fcnet_hiddens": [128]},
                    )
                }
            )
        )
        .env_runners(num_env_runners=args.env_runners)
        .training(
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(512, args.batch),
            num_epochs=4,
            lr=3e-4,
            gamma=0.999,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    t0 = time.perf_counter()
    for i in range(1, args.iterations + 1):
        result = algo.train()
        runners = result.get("env_runners", {})
        print(
            f"iteration {i}: env steps {runners.get('num_env_steps_sampled_lifetime', '?')}, "
            f"episodes {runners.get('num_episodes_lifetime', '?')}, {time.perf_counter() - t0:.0f} s"
        )
    module = algo.get_module("shared")

    def policy(obs: np.ndarray, mask: np.ndarray) -> int:
        batch = {"obs": {"observations": torch.tensor(obs)[None], "action_mask": torch.tensor(mask, dtype=torch.float32)[None]}}
        with torch.no_grad():
            logits = module.forward_inference(batch)["action_dist_inputs"][0]
        return int(torch.distributions.Categorical(logits=logits).sample())

    for row in evaluate(policy, ["random", "easy"], args.eval_games, edition=args.edition, observation="flat", seed=10_000):
        print(
            f"vs {row['opponent']:<7} win rate {row['win_rate']:.3f}  "
            f"95% [{row['wilson_low']:.3f}, {row['wilson_high']:.3f}]  mean margin {row['mean_margin']:+.1f}"
        )
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main()
