"""Self-play and league training: opponents drawn per episode from a pool that changes during training.

* Gymnasium: ``selfplay_env(pool, edition=..., players=...)`` is ``TicketToRideEnv(opponents=pool, ...)``:
  every ``reset()`` draws the opponent of each other seat from the pool (by weight).
* PettingZoo: ``PoolOpponentsAEC(env, pool, learners=("player_0",))`` plays the non-learner agents of
  an AEC env with opponents drawn per episode; ``agent_iter()`` then yields only the learners.

A pool holds bot names (``"random"``, ``"easy"`` … ``"max"``, ``"racer"``), ``Bot`` objects or classes
and policy callables ``(observation, mask) -> index`` — e.g. frozen snapshots of the learner added
while it trains (``sb3_snapshot(model)`` for Stable-Baselines3 models)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from pettingzoo.utils.wrappers import BaseWrapper

from .gym_env import TicketToRideEnv
from .opponents import OpponentPool, SeatPlayer, seat_players

DEFAULT_LEAGUE = ("random", "easy", "medium", "hard", "racer")


def default_pool() -> OpponentPool:
    """Bots of every level (``max`` is left out: it thinks for a long time per move) and the racer."""
    return OpponentPool(DEFAULT_LEAGUE)


def selfplay_env(pool: OpponentPool | None = None, **kwargs: Any) -> TicketToRideEnv:
    """A Gymnasium env whose opponents are drawn from `pool` (default: ``default_pool()``) at every reset."""
    return TicketToRideEnv(opponents=pool if pool is not None else default_pool(), **kwargs)


class PoolOpponentsAEC(BaseWrapper):
    """Plays every agent not in `learners` with an opponent drawn from `pool` at each ``reset()``.

    Wrap the raw env or ``env()``: ``PoolOpponentsAEC(ticket_to_ride_v0.env(players=3), pool)``. The
    opponents move inside ``reset()`` and ``step()``, so ``agent_selection`` is always a learner (or, at
    the end, a terminated learner to step with ``None``). ``opponent_names`` says who plays which agent.
    """

    def __init__(self, env: Any, pool: OpponentPool, learners: tuple[str, ...] = ("player_0",), seed: int | None = None):
        super().__init__(env)
        raw = env.unwrapped
        unknown = set(learners) - set(raw.possible_agents)
        if unknown or not learners:
            raise ValueError(f"learners must be agents of the env ({raw.possible_agents}), not {sorted(unknown) or learners}")
        if len(learners) == len(raw.possible_agents):
            raise ValueError("every agent is a learner: there is no seat for the pool to play")
        self.pool = pool
        self.learners = tuple(learners)
        self._rng = np.random.default_rng(seed)
        self.seat_players: dict[int, SeatPlayer] = {}
        self.opponent_names: dict[str, str] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        super().reset(seed=seed, options=options)
        raw = self.env.unwrapped
        others = [p for p, a in enumerate(raw.possible_agents) if a not in self.learners]
        drawn = self.pool.sample(self._rng, len(others))
        seeds = [int(self._rng.integers(2**48)) for _ in others]
        self.seat_players = seat_players(drawn, others, seeds, raw.codec, raw.layout, raw._flat)
        self.opponent_names = {raw.possible_agents[p]: name for p, (name, _) in zip(others, drawn, strict=True)}
        raw.listeners = [sp for sp in self.seat_players.values() if sp.wants_events]
        self._autoplay()

    def step(self, action: Any) -> None:
        super().step(action)
        self._autoplay()

    def _autoplay(self) -> None:
        raw = self.env.unwrapped
        while raw.agents and raw.agent_selection not in self.learners:
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                self.env.step(None)
                continue
            chosen = self.seat_players[raw._seat[agent]].act(raw.game)
            index = next(i for i, a in raw._index_table().items() if a == chosen)
            self.env.step(index)

    def __str__(self) -> str:
        return f"PoolOpponentsAEC<{self.env}>"


def sb3_snapshot(model: Any, deterministic: bool = False) -> Any:
    """A frozen copy of a Stable-Baselines3 / sb3-contrib model's policy as an opponent callable.

    Later training of `model` does not change the snapshot. Masked models (MaskablePPO) get the mask."""
    policy = copy.deepcopy(model.policy)
    policy.set_training_mode(False)
    return sb3_policy_callable(policy, deterministic)


def sb3_policy_callable(policy: Any, deterministic: bool = False) -> Any:
    masked = "action_masks" in policy.predict.__code__.co_varnames

    def act(obs: Any, mask: np.ndarray) -> int:
        if masked:
            action, _ = policy.predict(obs, deterministic=deterministic, action_masks=mask.astype(bool))
        else:
            action, _ = policy.predict(obs, deterministic=deterministic)
        return int(np.asarray(action).reshape(-1)[0])

    return act


__all__ = ["DEFAULT_LEAGUE", "OpponentPool", "PoolOpponentsAEC", "default_pool", "sb3_snapshot", "selfplay_env"]
