"""PettingZoo AEC environment: every seat is an agent, any edition, any legal player count.

    from ttr.rl import ticket_to_ride_v0
    env = ticket_to_ride_v0.env(edition="europe", players=3, reward="win")

Agents are ``player_0`` ... in seat order; ``agent_selection`` is the player to move. Each
observation is ``{"observation": float32 vector, "action_mask": int8 vector}`` (or, with
``observation="flat"``, the vector alone scaled to [0, 1], the mask in ``infos[agent]["action_mask"]``);
the mask is all zero for an agent that is not to move. ``state()`` is the privileged global state
(every seat's own observation side by side) for centralised critics; ``parallel_env()`` is the
same game as a PettingZoo ParallelEnv in which only the player to move acts. Rewards are 0 until
the game ends, then the final reward of every agent (see ``common.final_rewards``). A masked-out action
raises ``IllegalActionIndex``
and changes nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ..editions import Edition
from ..engine import Action, Game
from ..engine.actions import CLAIM, TUNNEL_PAY
from ..engine.phases import OVER
from .actions import codec_for
from .common import (
    check_render_mode,
    check_reward_mode,
    final_rewards,
    layout_for,
    make_spaces,
    mask_from,
    pick_legal,
    resolve_edition,
    result_info,
)
from .observation import ObservationEncoder, RouteLog
from .opponents import flat_scale
from .render import HumanWindow, Rendering, available_render_modes, check_human_possible
from .seatview import SeatView

OBSERVATIONS = ("dict", "flat")


class TicketToRideAEC(Rendering, AECEnv):
    """The raw (unwrapped) environment; ``env()`` adds PettingZoo's order-enforcing wrapper."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "ticket_to_ride_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
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
        observation: str = "dict",
    ) -> None:
        super().__init__()
        self._base, self.edition = resolve_edition(edition, options)
        lo, hi = self.edition.rules.players
        if not isinstance(players, int) or not lo <= players <= hi:
            raise ValueError(f"{self.edition.name} is for {lo}-{hi} players, not {players!r}")
        self.render_mode = check_render_mode(render_mode, self.metadata)
        if self.render_mode == "human":
            check_human_possible()
        self.metadata = {**self.metadata, "render_modes": available_render_modes()}  # "human" only with a display
        self._window: HumanWindow | None = None
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, not {observation!r}")
        self.observation_mode = observation
        self._flat = observation == "flat"
        self.options = dict(options or {})
        self.players = players
        self.reward_mode = check_reward_mode(reward)
        self.codec = codec_for(self.edition)
        self.layout = layout_for(self.edition)
        self._obs_space, self._act_space = make_spaces(self.codec, self.layout)
        if self._flat:
            self._obs_space = spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32)
            self._scale = flat_scale(self.layout)
        seats = self.layout.seats
        # state(): every seat's own (raw) observation in seat order, zeros for seats absent in this game
        self.state_space = spaces.Box(np.tile(self.layout.low, seats), np.tile(self.layout.high, seats), dtype=np.float32)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._encoders = [ObservationEncoder(self.layout, i) for i in range(players)]
        self._seeder = random.Random()
        self.game: Game | None = None
        # the legal indices of the player to move and their actions, aligned (codec.legal_mask), once per position
        self._legal: tuple[list[int], Sequence[Action]] | None = None
        self._seats: list[SeatView] = []  # each seat's live view of the game (what its observations read)
        self.listeners: list[Any] = []  # objects with .seat and .observe(event), told every event of a step
        self._log: RouteLog | None = None  # this game's route owner changes, shared by the seats' encoders
        self._route_index = {x.id: x.index for x in self.edition.routes}

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
        self._legal = None
        self._seats = [SeatView(self.game, p) for p in range(self.players)]
        # every step is observed: the claims are found once for all seats (step() names the route it claims)
        log = self._log = RouteLog(self.game.route_owner, self.game.trains, self.layout.route_lengths)
        for enc in self._encoders:
            enc.reset()
            enc.route_log = log
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        # one agent at a time: `current`, which in setup is the first seat still choosing (all of them may act)
        self.agent_selection = self.possible_agents[self.game.current]
        self._mask_info()
        self._render_human()

    def _mask_info(self) -> None:
        """With flat observations the mover's mask travels in ``infos[agent]["action_mask"]``."""
        if not self._flat:
            return
        zeros = np.zeros(self.codec.size, dtype=np.int8)
        for a in self.agents:
            self.infos[a]["action_mask"] = zeros
        if self.game is not None and self.game.phase != OVER:
            self.infos[self.agent_selection]["action_mask"] = self._mover_mask()

    def _mover_mask(self) -> np.ndarray:
        """A new mask of the player to move (its legal indices found once per position)."""
        game = self.game
        assert game is not None
        legal = self._legal
        if legal is None:
            mask, indices, acts = self.codec.legal_mask(game.legal_actions(), self._seats[game.current])
            self._legal = (indices, acts)
            return mask
        return mask_from(legal[0], self.codec.size)

    def _index_table(self) -> dict[int, Action]:
        """{index: engine action} for the player to move."""
        game = self.game
        assert game is not None
        if self._legal is None:
            self._mover_mask()
        assert self._legal is not None
        return dict(zip(*self._legal, strict=True))

    def state(self) -> np.ndarray:
        """PRIVILEGED global state: the concatenation of every seat's own raw observation (absolute seat
        order, each in its own relative frame; zeros for seats the game does not have). It contains every
        player's hand and tickets, so it is for centralised critics only, never for a policy's input."""
        game = self.game
        assert game is not None, "call reset() first"
        size = self.layout.size
        out = np.zeros(size * self.layout.seats, dtype=np.float32)
        for p in range(self.players):
            out[p * size : (p + 1) * size] = self._encoders[p].encode(self._seats[p])
        return out

    def observe(self, agent: str) -> Any:
        game = self.game
        assert game is not None, "call reset() first"
        p = self._seat[agent]
        view = self._seats[p]
        if self._flat:
            return self._encoders[p].encode(view, self._scale)
        obs = self._encoders[p].encode(view)
        mover = p == game.current and game.phase != OVER
        return {"observation": obs, "action_mask": self._mover_mask() if mover else np.zeros(self.codec.size, dtype=np.int8)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        legal = self._legal
        if legal is None:  # stepped without observing first
            self._mover_mask()
            legal = self._legal
            assert legal is not None
        chosen = pick_legal(self.codec, legal, action, game, agent)
        what = chosen.type
        if what in (CLAIM, TUNNEL_PAY):  # tell the route log which route may change owner
            log = self._log
            assert log is not None
            log.hint = self._route_index[chosen.route] if what == CLAIM else game.tunnel[0]  # type: ignore[index]
        if self.listeners:  # bots playing seats through a wrapper (ttr.rl.selfplay) hear the events
            events = game.apply(chosen)
            for sp in self.listeners:
                for e in events:
                    sp.observe(e.for_player(sp.seat))
        else:
            game.step(chosen)
        self._legal = None
        self._cumulative_rewards[agent] = 0.0
        if game.phase == OVER:
            res = game.result()
            assert res is not None
            finals = final_rewards(res, self.reward_mode)
            for a, seat in self._seat.items():
                self.rewards[a] = finals[seat]
                self.terminations[a] = True
                self.infos[a] = {"result": result_info(res)}
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[game.current]
        if self._flat:
            self._mask_info()
        if self.render_mode == "human":
            self._render_human()

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None


raw_env = TicketToRideAEC


def env(**kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The environment with PettingZoo's order-enforcing wrapper (errors on step before reset, ...)."""
    return wrappers.OrderEnforcingWrapper(TicketToRideAEC(**kwargs))


def parallel_env(**kwargs: Any) -> TicketToRideParallel:
    """The same game as a PettingZoo ``ParallelEnv`` (same arguments as ``env()``)."""
    return TicketToRideParallel(**kwargs)


class TicketToRideParallel(ParallelEnv):
    """ParallelEnv over the AEC game: every step takes a dict of actions, only the player to move's is applied.

    Ticket to Ride is turn based: at every step exactly one agent (``infos[a]["to_move"]`` is True, and
    its mask is the only non-zero one) acts; the actions given for the others are ignored, whatever they
    are. Rewards arrive at the last step; then every agent is terminated and ``agents`` becomes empty.
    """

    metadata: ClassVar[dict[str, Any]] = {**TicketToRideAEC.metadata, "name": "ticket_to_ride_v0"}

    def __init__(self, **kwargs: Any) -> None:
        self.aec = TicketToRideAEC(**kwargs)
        self.possible_agents = self.aec.possible_agents[:]
        self.agents: list[str] = []
        self.render_mode = self.aec.render_mode
        self.state_space = self.aec.state_space

    def observation_space(self, agent: str) -> spaces.Space:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.aec.action_space(agent)

    def _collect(self) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        aec = self.aec
        obs = {a: aec.observe(a) for a in self.agents}
        infos = {a: {**aec.infos[a], "to_move": a == aec.agent_selection} for a in self.agents}
        return obs, infos

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed, options=options)
        self.agents = self.aec.agents[:]
        return self._collect()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        aec = self.aec
        mover = aec.agent_selection
        if mover not in actions:
            raise ValueError(f"no action for {mover}, the agent to move (actions were given for {sorted(actions)})")
        aec.step(actions[mover])
        obs, infos = self._collect()
        rewards = {a: float(aec.rewards[a]) for a in self.agents}
        terms = {a: bool(aec.terminations[a]) for a in self.agents}
        truncs = {a: bool(aec.truncations[a]) for a in self.agents}
        if all(terms.values()) or all(truncs.values()):
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def state(self) -> np.ndarray:
        return self.aec.state()

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
