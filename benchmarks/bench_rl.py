"""RL environment speed: env steps/s of random *masked* play, observations and masks included, one core.

    python benchmarks/bench_rl.py [--seconds 5] [--editions usa,europe,nordic,marklin] [--profile usa]

Each AEC step is what a training loop does: ``env.last()`` (observation vector + action mask of
the agent to move), a uniform choice among the indices whose mask is 1, ``env.step(index)``.
Rows: the raw PettingZoo env, the same behind PettingZoo's order-enforcing wrapper (``env()``),
and the Gymnasium env (learner steps/s, random bots playing the other seats in between).
Rates are per second of this process's CPU time (``time.process_time``), so a busy machine
shifts them less than wall-clock rates would.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import numpy as np

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
            obs, _, term, trunc, _ = last()
            if term or trunc:
                step(None)
                continue
            legal = flatnonzero(obs["action_mask"])
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds of play per table row")
    ap.add_argument("--editions", default="usa,europe,nordic,marklin")
    ap.add_argument("--profile", metavar="EDITION", help="cProfile the raw AEC env of this edition (2 players) instead")
    args = ap.parse_args()
    if args.profile:
        env = ticket_to_ride_v0.raw_env(edition=args.profile, players=2)
        prof = cProfile.Profile()
        prof.enable()
        aec_steps(env, args.seconds)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    print(f"{'edition':8} {'players':>7} {'AEC raw steps/s':>16} {'AEC env() steps/s':>18} {'gym steps/s':>12} {'games':>6}")
    for edition in args.editions.split(","):
        for players in PLAYERS[edition]:
            raw, games = aec_steps(ticket_to_ride_v0.raw_env(edition=edition, players=players), args.seconds)
            wrapped, _ = aec_steps(ticket_to_ride_v0.env(edition=edition, players=players), args.seconds)
            gym, _ = gym_steps(TicketToRideEnv(edition, opponents=("random",) * (players - 1)), args.seconds)
            print(f"{edition:8} {players:7} {raw:16,.0f} {wrapped:18,.0f} {gym:12,.0f} {games:6}")


if __name__ == "__main__":
    main()
