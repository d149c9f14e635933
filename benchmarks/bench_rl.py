"""RL environment speed: env steps/s of random *masked* play, observations and masks included, one core.

    python benchmarks/bench_rl.py [--seconds 5] [--editions usa,europe,nordic,marklin] [--profile usa]
    python benchmarks/bench_rl.py --vector [--seconds 5]     # Gymnasium vector envs of 1, 2, 4 sub-envs

Each AEC step is what a training loop does: ``env.last()`` (observation vector + action mask of
the agent to move), a uniform choice among the indices whose mask is 1, ``env.step(index)``.
Rows: the raw PettingZoo env, the same behind PettingZoo's order-enforcing wrapper (``env()``),
and the Gymnasium env (learner steps/s, random bots playing the other seats in between).
"engine" is the engine's own uniform random play (``ttr bench``'s loop: ``legal_actions()`` and
``step()``, no views, observations or masks); "AEC/engine" is the raw AEC rate as a share of it
(the issue's target: >= 50 %). "flat" is the raw AEC env with ``observation="flat"`` (the mask in
``info``). Rates are per second of this process's CPU time (``time.process_time``), so a busy
machine shifts them less than wall-clock rates would.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import gymnasium as gym
import numpy as np

import ttr.rl
from ttr.cli.bench import random_play
from ttr.rl import TicketToRideEnv, ticket_to_ride_v0

PLAYERS = {"usa": (2, 4), "europe": (2, 4), "nordic": (2, 3), "marklin": (2, 4)}


def aec_steps(env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """(steps/s, games) of random masked play, counting every live agent step."""
    rng = random.Random(seed)
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        env.reset(seed=seed + games)
        last, step, flatnonzero = env.last, env.step, np.flatnonzero
        while env.agents:
            obs, _, term, trunc, info = last()
            if term or trunc:
                step(None)
                continue
            legal = flatnonzero(obs["action_mask"] if type(obs) is dict else info["action_mask"])
            step(legal[rng.randrange(len(legal))])
            steps += 1
        games += 1
    return steps / (time.process_time() - start), games


def gym_steps(env: TicketToRideEnv, seconds: float, seed: int = 0) -> tuple[float, int]:
    rng = random.Random(seed)
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        obs, _ = env.reset(seed=seed + games)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, done, _, _ = env.step(legal[rng.randrange(len(legal))])
            steps += 1
        games += 1
    return steps / (time.process_time() - start), games


def vector_steps(n: int, seconds: float, edition: str = "usa") -> float:
    """Sub-env steps/s of a SyncVectorEnv of `n` Gymnasium envs (flat observations, masks from info)."""
    envs = gym.make_vec(ttr.rl.GYM_IDS[edition], num_envs=n, vectorization_mode="sync", observation="flat")
    rng = np.random.default_rng(0)
    _, info = envs.reset(seed=0)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        masks = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, _, _, info = envs.step(actions)
        steps += n
    envs.close()
    return steps / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds of play per table row")
    ap.add_argument("--editions", default="usa,europe,nordic,marklin")
    ap.add_argument("--profile", metavar="EDITION", help="cProfile the raw AEC env of this edition (2 players) instead")
    ap.add_argument("--vector", action="store_true", help="measure Gymnasium SyncVectorEnv of 1, 2, 4 envs instead")
    args = ap.parse_args()
    if args.vector:
        for n in (1, 2, 4):
            print(f"SyncVectorEnv usa x{n}: {vector_steps(n, args.seconds):,.0f} sub-env steps/s")
        return
    if args.profile:
        env = ticket_to_ride_v0.raw_env(edition=args.profile, players=2)
        prof = cProfile.Profile()
        prof.enable()
        aec_steps(env, args.seconds)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    head = ["edition", "players", "engine/s", "AEC raw/s", "AEC/engine", "flat/s", "env()/s", "gym/s", "games"]
    print(" ".join(f"{h:>10}" for h in head))
    for edition in args.editions.split(","):
        for players in PLAYERS[edition]:
            engine = random_play(edition, players, args.seconds)["decisions_per_s"]
            raw, games = aec_steps(ticket_to_ride_v0.raw_env(edition=edition, players=players), args.seconds)
            flat, _ = aec_steps(ticket_to_ride_v0.raw_env(edition=edition, players=players, observation="flat"), args.seconds)
            wrapped, _ = aec_steps(ticket_to_ride_v0.env(edition=edition, players=players), args.seconds)
            learner, _ = gym_steps(TicketToRideEnv(edition, opponents=("random",) * (players - 1)), args.seconds)
            row = [f"{engine:,.0f}", f"{raw:,.0f}", f"{raw / engine:.0%}", f"{flat:,.0f}", f"{wrapped:,.0f}", f"{learner:,.0f}"]
            print(f"{edition:>10} {players:>10} " + " ".join(f"{x:>10}" for x in row) + f" {games:>10}")


if __name__ == "__main__":
    main()
