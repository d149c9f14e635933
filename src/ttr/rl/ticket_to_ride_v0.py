"""PettingZoo AEC environment: every seat is an agent, any edition, any legal player count.

    from ttr.rl import ticket_to_ride_v0
    env = ticket_to_ride_v0.env(edition="europe", players=3, reward="win")

Agents are ``player_0`` ... in seat order; ``agent_selection`` is the player to move. Each
observation is ``{"observation": float32 vector, "action_mask": int8 vector}``; the mask is all
zero for an agent that is not to move. Rewards are 0 until the game ends, then the final reward
of every agent (see ``common.final_rewards``). A masked-out action raises ``IllegalActionIndex``
and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..editions import Edition
from ..engine import Action, Game, PlayerView
from ..engine.phases import Phase
from .actions import codec_for
from .common import (
    check_render_mode,
    check_reward_mode,
    final_rewards,
    layout_for,
    legal_table,
    make_spaces,
    mask_from,
    pick,
    render_text,
    resolve_edition,
    result_info,
)
from .observation import ObservationEncoder


class TicketToRideAEC(AECEnv):
    """The raw (unwrapped) environment; ``env()`` adds PettingZoo's order-enforcing wrapper."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "ticket_to_ride_v0",
        "render_modes": ["ansi"],
        "render_fps": 4,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        edition: Edition | str = "usa",
        players: int = 2,
        reward: str = "margin",
        options: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._base, self.edition = resolve_edition(edition, options)
        lo, hi = self.edition.rules.players
        if not isinstance(players, int) or not lo <= players <= hi:
            raise ValueError(f"{self.edition.name} is for {lo}-{hi} players, not {players!r}")
        self.render_mode = check_render_mode(render_mode, self.metadata)
        self.options = dict(options or {})
        self.players = players
        self.reward_mode = check_reward_mode(reward)
        self.codec = codec_for(self.edition)
        self.layout = layout_for(self.edition)
        self._obs_space, self._act_space = make_spaces(self.codec, self.layout)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._encoders = [ObservationEncoder(self.layout, i) for i in range(players)]
        self._seeder = random.Random()
        self.game: Game | None = None
        self._table: dict[int, Action] | None = None  # legal index -> action for the player to move
        self._views: dict[int, PlayerView] = {}  # views of the current position (a final view scores the game)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` fixes this game and the seeds of the following unseeded resets."""
        if seed is not None:
            self._seeder = random.Random(seed)
        self.game_seed = self._seeder.getrandbits(48)
        self.game = Game(self._base, self.players, self.game_seed, self.options or None)
        self._table = None
        self._views.clear()
        for enc in self._encoders:
            enc.reset()
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None, "call reset() first"
        p = self._seat[agent]
        view = self._views.get(p)
        if view is None:
            view = self._views[p] = game.view(p)
        obs = self._encoders[p].encode(view)
        if p == game.current and game.phase != Phase.OVER:
            if self._table is None:
                self._table = legal_table(self.codec, game, view)
            mask = mask_from(self._table, self.codec.size)
        else:
            mask = np.zeros(self.codec.size, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        table = self._table
        if table is None:  # stepped without observing first
            table = self._table = legal_table(self.codec, game, self._views.get(game.current))
        game.step(pick(self.codec, table, action, game, agent))
        self._table = None
        self._views.clear()
        self._cumulative_rewards[agent] = 0.0
        if game.phase == Phase.OVER:
            p = self._seat[agent]
            view = self._views[p] = game.view(p)  # a final view carries the result: reuse it
            res = view.result
            assert res is not None
            finals = final_rewards(res, self.reward_mode)
            for a, seat in self._seat.items():
                self.rewards[a] = finals[seat]
                self.terminations[a] = True
                self.infos[a] = {"result": result_info(res)}
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[game.current]

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return render_text(self.game)

    def close(self) -> None:
        """Nothing to release."""


raw_env = TicketToRideAEC


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper (errors on step before reset, ...)."""
    return wrappers.OrderEnforcingWrapper(TicketToRideAEC(**kwargs))
