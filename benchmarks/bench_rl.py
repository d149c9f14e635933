"""RL environment speed: env steps/s of random *masked* play, observations and masks included, one core.

    python benchmarks/bench_rl.py [--seconds 5] [--editions usa,europe,nordic,marklin] [--profile usa]
    python benchmarks/bench_rl.py --vector [--seconds 5]     # Gymnasium vector envs of 1, 2, 4 sub-envs
    python benchmarks/bench_rl.py --ablate usa [--seconds 5] # µs per step with the encoder and/or mask stubbed

Each AEC step is what a training loop does: ``env.last()`` (observation vector + action mask of
the agent to move), a uniform choice among the indices whose mask is 1, ``env.step(index)``.
One row per edition with 2 players and with its most. Columns: the raw PettingZoo env, the same
behind PettingZoo's order-enforcing wrapper (``env()``), and the Gymnasium env (learner steps/s,
random bots playing the other seats in between).
"engine" is the engine's own uniform random play (``ttr bench``'s loop: ``legal_actions()`` and
``step()``, no views, observations or masks); "AEC/engine" is the raw AEC rate as a share of it
(the issue's target: >= 50 %). "flat" is the raw AEC env with ``observation="flat"`` (the mask in
``info``). Rates are per second of this process's CPU time (``time.process_time``), so a busy
machine shifts them less than wall-clock rates would, and the modes of a row are measured one game
at a time in turn, so that a load change during the row affects them alike.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import time
from collections.abc import Callable
from functools import partial

import gymnasium as gym
import numpy as np

import ttr.rl
from ttr.editions import get_edition
from ttr.engine import Game
from ttr.engine.phases import Phase
from ttr.rl import TicketToRideEnv, ticket_to_ride_v0


def engine_game(edition: str, players: int, seed: int, rng: random.Random) -> int:
    """One game of the engine's own uniform random play (``ttr bench``'s loop); returns its decisions."""
    g = Game(edition, players, seed)
    legal, step, choice = g.legal_actions, g.step, rng.choice
    steps = 0
    while g.phase != Phase.OVER:
        step(choice(legal()))
        steps += 1
    return steps


def aec_game(env, seed: int, rng: random.Random) -> int:
    """One game of random masked play on a PettingZoo AEC env; returns the live agent steps."""
    env.reset(seed=seed)
    last, step, flatnonzero = env.last, env.step, np.flatnonzero
    steps = 0
    while env.agents:
        obs, _, term, trunc, info = last()
        if term or trunc:
            step(None)
            continue
        legal = flatnonzero(obs["action_mask"] if type(obs) is dict else info["action_mask"])
        step(legal[rng.randrange(len(legal))])
        steps += 1
    return steps


def gym_game(env: TicketToRideEnv, seed: int, rng: random.Random) -> int:
    """One episode on the Gymnasium env; returns the learner's steps (the bots' moves are not counted)."""
    obs, _ = env.reset(seed=seed)
    done = False
    steps = 0
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, _, done, _, _ = env.step(legal[rng.randrange(len(legal))])
        steps += 1
    return steps


def aec_steps(env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """(steps/s, games) of random masked play, counting every live agent step (used by --profile)."""
    rng = random.Random(seed)
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        steps += aec_game(env, seed + games, rng)
        games += 1
    return steps / (time.process_time() - start), games


def interleaved_row(edition: str, players: int, seconds: float) -> tuple[dict[str, float], int]:
    """Steps per CPU second of each mode, measured one game at a time in turn (engine, raw AEC, flat,
    ``env()``, Gymnasium) on the same seeds, so that a change of machine load during the row affects
    every mode alike. Each mode gets about `seconds` of CPU time."""
    modes: dict[str, Callable[[int, random.Random], int]] = {
        "engine": lambda seed, rng: engine_game(edition, players, seed, rng),
        "raw": partial(aec_game, ticket_to_ride_v0.raw_env(edition=edition, players=players)),
        "flat": partial(aec_game, ticket_to_ride_v0.raw_env(edition=edition, players=players, observation="flat")),
        "env": partial(aec_game, ticket_to_ride_v0.env(edition=edition, players=players)),
        "gym": partial(gym_game, TicketToRideEnv(edition, opponents=("random",) * (players - 1))),
    }
    rngs = {m: random.Random(i) for i, m in enumerate(modes)}
    cpu, steps, games = interleaved(modes, seconds, lambda mode, _game: rngs[mode])
    return {m: steps[m] / cpu[m] for m in modes}, games


def interleaved(
    modes: dict[str, Callable[[int, random.Random], int]], seconds: float, rng: Callable[[str, int], random.Random]
) -> tuple[dict[str, float], dict[str, int], int]:
    """One game of each mode in turn (game i with seed i and `rng(mode, i)`), until every mode has used `seconds` of
    CPU: a change of machine load affects the modes alike. Returns the CPU seconds and steps of each, and the games."""
    cpu = dict.fromkeys(modes, 0.0)
    steps = dict.fromkeys(modes, 0)
    games = 0
    while min(cpu.values()) < seconds:
        for mode, play in modes.items():
            t = time.process_time()
            steps[mode] += play(games, rng(mode, games))
            cpu[mode] += time.process_time() - t
        games += 1
    return cpu, steps, games


def ablated_env(edition: str, players: int, free_obs: bool, free_mask: bool) -> ticket_to_ride_v0.TicketToRideAEC:
    """A raw AEC env whose observation encoder (``free_obs``: returns a copy of a fixed buffer) and/or mask
    (``free_mask``: the engine's legal actions numbered 0..k-1, no index lookup) cost next to nothing:
    what the rest of the loop costs. The games played differ from the real env's (other indices)."""
    env = ticket_to_ride_v0.raw_env(edition=edition, players=players)
    if free_obs:
        for enc in env._encoders:
            enc.encode = lambda view, scale=None, buf=enc.buf: buf.copy()  # type: ignore[method-assign]
    if free_mask:
        zeros = np.zeros(env.codec.size, dtype=np.int8)

        def mover_mask() -> np.ndarray:
            game = env.game
            assert game is not None
            legal = game.legal_actions()
            env._legal = (list(range(len(legal))), legal)
            mask = zeros.copy()
            mask[: len(legal)] = 1
            return mask

        env._mover_mask = mover_mask  # type: ignore[method-assign]
    return env


def ablation(edition: str, players: int, seconds: float) -> dict[str, float]:
    """CPU µs per decision of the engine's random play and of the AEC loop: real, free observation, free
    mask, both free (games interleaved as in the main table)."""
    modes: dict[str, Callable[[int, random.Random], int]] = {
        "engine": lambda seed, rng: engine_game(edition, players, seed, rng),
        "real": partial(aec_game, ablated_env(edition, players, False, False)),
        "free obs": partial(aec_game, ablated_env(edition, players, True, False)),
        "free mask": partial(aec_game, ablated_env(edition, players, False, True)),
        "both free": partial(aec_game, ablated_env(edition, players, True, True)),
    }
    cpu, steps, _ = interleaved(modes, seconds, lambda _mode, game: random.Random(game))
    return {m: 1e6 * cpu[m] / steps[m] for m in modes}


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
    ap.add_argument("--seconds", type=float, default=5.0, help="CPU seconds of play per mode (column) of each row")
    ap.add_argument("--editions", default="usa,europe,nordic,marklin")
    ap.add_argument("--profile", metavar="EDITION", help="cProfile the raw AEC env of this edition (2 players) instead")
    ap.add_argument("--vector", action="store_true", help="measure Gymnasium SyncVectorEnv of 1, 2, 4 envs instead")
    ap.add_argument("--ablate", metavar="EDITION", help="µs per step with the encoder and/or the mask stubbed (2 players)")
    args = ap.parse_args()
    if args.ablate:
        print(f"load average {os.getloadavg()[0]:.2f} at start")
        us = ablation(args.ablate, 2, args.seconds)
        print(f"{args.ablate} 2p, CPU µs per decision: " + ", ".join(f"{m} {v:.1f}" for m, v in us.items()))
        print("engine / AEC: " + ", ".join(f"{m} {us['engine'] / v:.0%}" for m, v in us.items() if m != "engine"))
        print(f"load average {os.getloadavg()[0]:.2f} at end")
        return
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
    print(f"load average {os.getloadavg()[0]:.2f} at start")
    head = ["edition", "players", "engine/s", "AEC raw/s", "AEC/engine", "flat/s", "env()/s", "gym/s", "games"]
    print(" ".join(f"{h:>10}" for h in head))
    for edition in args.editions.split(","):
        for players in sorted({2, get_edition(edition).rules.players[1]}):  # 2 and the most
            r, games = interleaved_row(edition, players, args.seconds)
            row = [r["engine"], r["raw"], r["raw"] / r["engine"], r["flat"], r["env"], r["gym"]]
            cells = [f"{x:.0%}" if i == 2 else f"{x:,.0f}" for i, x in enumerate(row)]
            print(f"{edition:>10} {players:>10} " + " ".join(f"{x:>10}" for x in cells) + f" {games:>10}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
