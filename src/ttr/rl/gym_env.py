"""Gymnasium environment: one learning seat against bots, policies or a pool of opponents.

    import gymnasium as gym, ttr.rl
    env = gym.make("ttr/TicketToRide-usa-v0", opponents=("random", "easy"))
    env = gym.make("ttr/TicketToRide-usa-v0", players=4, opponents="hard", observation="flat")

The learner acts only at its own decisions; the opponents (``ttr.rl.opponents``: bot names, ``Bot``
objects, policy callables, or an ``OpponentPool`` drawn from per episode) play the other seats
between two learner steps, deciding from their own ``view``. The reward is 0 until the game ends
(``info["reward_parts"]`` splits the score per step for reward shaping). An index whose mask
entry is 0 raises ``IllegalActionIndex`` (``illegal_action="raise"``, the default), or, with
``illegal_action="terminate"``, ends the episode with ``illegal_reward`` (as PettingZoo's
TerminateIllegalWrapper does; this is what lets ``check_env``'s unmasked random actions run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..editions import Edition
from ..engine import Action, Game
from ..engine.phases import Phase
from .actions import IllegalActionIndex, codec_for
from .common import (
    check_render_mode,
    check_reward_mode,
    final_rewards,
    layout_for,
    make_spaces,
    pick_legal,
    resolve_edition,
    result_info,
)
from .observation import ObservationEncoder
from .opponents import OpponentPool, SeatPlayer, check_opponent, describe_opponent, flat_scale, seat_players
from .render import HumanWindow, Rendering, available_render_modes, check_human_possible
from .seatview import SeatView

ILLEGAL_POLICIES = ("raise", "terminate")
OBSERVATIONS = ("dict", "flat")
TERMINAL_MASKS = ("pass", "zeros")


def reward_parts(before: int, score: int, final: dict[str, Any] | None) -> dict[str, float]:
    """The learner's score change split by source; summed over an episode they give the final total."""
    parts = {"routes": float(score - before), "tickets": 0.0, "longest_path": 0.0, "other": 0.0}
    if final is not None:
        parts["tickets"] = float(final["ticket_points"])
        parts["longest_path"] = float(final["longest_path_bonus"])
        parts["other"] = float(final["total"] - score - final["ticket_points"] - final["longest_path_bonus"])
    return parts


class TicketToRideEnv(Rendering, gym.Env):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        edition: Edition | str = "usa",
        opponents: Any = ("random",),
        seat: int | str = 0,
        reward: str = "margin",
        options: dict[str, Any] | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        players: int | None = None,
        observation: str = "dict",
        terminal_mask: str = "pass",
        max_turns: int | None = None,
    ) -> None:
        self._base, self.edition = resolve_edition(edition, options)
        self.options = dict(options or {})
        self.pool: OpponentPool | None = None
        if isinstance(opponents, OpponentPool):
            self.pool = opponents
            self.opponents: tuple[Any, ...] = ()
            n = 2 if players is None else players
        else:
            if isinstance(opponents, str) or not isinstance(opponents, Sequence):
                opponents = (opponents,)
            opponents = tuple(opponents)
            if players is not None and len(opponents) == 1:
                opponents = opponents * max(players - 1, 0)
            self.opponents = opponents
            n = 1 + len(opponents)
            if players is not None and players != n:
                raise ValueError(f"players={players} but {len(opponents)} opponent(s) are given (give one, or players - 1)")
        if not isinstance(n, int) or isinstance(n, bool):
            raise ValueError(f"players must be an integer, not {n!r}")
        self.players = n
        lo, hi = self.edition.rules.players
        if not lo <= n <= hi:
            raise ValueError(f"{self.edition.name} is for {lo}-{hi} players; {n - 1} opponent(s) make {n}")
        for entry in self.opponents:
            check_opponent(entry)  # fail now, not at the first reset, on an unknown bot
        if seat != "random" and (not isinstance(seat, int) or not 0 <= seat < n):
            raise ValueError(f"seat must be 0..{n - 1} or 'random', not {seat!r}")
        self.seat_choice = seat
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_POLICIES}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, not {observation!r}")
        if terminal_mask not in TERMINAL_MASKS:
            raise ValueError(f"terminal_mask must be one of {TERMINAL_MASKS}, not {terminal_mask!r}")
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a positive integer or None, not {max_turns!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.observation_mode = observation
        self.terminal_mask = terminal_mask
        self.max_turns = max_turns
        self.render_mode = check_render_mode(render_mode, self.metadata)
        if self.render_mode == "human":
            check_human_possible()
        self.metadata = {**self.metadata, "render_modes": available_render_modes()}  # "human" only with a display
        self._window: HumanWindow | None = None
        self.reward_mode = check_reward_mode(reward)
        self.codec = codec_for(self.edition)
        self.layout = layout_for(self.edition)
        dict_space, self.action_space = make_spaces(self.codec, self.layout)
        self._flat = observation == "flat"
        if self._flat:
            self.observation_space = spaces.Box(0.0, 1.0, shape=(self.layout.size,), dtype=np.float32)
            self._scale = flat_scale(self.layout)
        else:
            self.observation_space = dict_space
        self._pass_index = self.codec.blocks["pass"].start
        self.game: Game | None = None
        self.seat = 0
        self.seat_players: dict[int, SeatPlayer] = {}
        self.opponent_names: list[str] = []
        self._listeners: list[SeatPlayer] = []
        self._encoder: ObservationEncoder | None = None
        self._view: SeatView | None = None  # the learner's live view of the game
        self._legal: tuple[list[int], Sequence[Action]] = ([], ())  # the learner's legal indices and actions, aligned
        self._mask = np.zeros(self.codec.size, dtype=np.int8)
        self._done = True
        self._final_result: dict[str, Any] | None = None
        self._score = 0

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        n = self.players
        self.seat = int(rng.integers(n)) if self.seat_choice == "random" else int(self.seat_choice)
        game_seed = int(rng.integers(2**48))
        self.game = Game(self._base, n, game_seed, self.options or None)
        others = [p for p in range(n) if p != self.seat]
        if self.pool is not None:
            drawn = self.pool.sample(rng, len(others))
        else:
            drawn = [(describe_opponent(e), e) for e in self.opponents]
        seeds = [int(rng.integers(2**48)) for _ in others]
        self.seat_players = seat_players(drawn, others, seeds, self.codec, self.layout, self._flat)
        self.opponent_names = [name for name, _ in drawn]
        self._listeners = [sp for sp in self.seat_players.values() if sp.wants_events]
        self._encoder = ObservationEncoder(self.layout, self.seat)
        self._view = SeatView(self.game, self.seat)
        self._done = False
        self._score = 0
        self._play_opponents()
        obs = self._observation()
        info = {"seat": self.seat, "game_seed": game_seed, "opponents": self.opponent_names[:], "action_mask": self._mask}
        if self.game.phase == Phase.OVER:  # pragma: no cover - a game never ends before the learner's first move
            raise RuntimeError("the game ended before the learner's first decision")
        self._render_human()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        try:
            chosen = pick_legal(self.codec, self._legal, action, game, f"the learner (seat {self.seat})")
        except IllegalActionIndex as exc:
            if self.illegal_action == "raise":
                raise
            self._done = True
            obs = self._observation(final=True)
            return obs, self.illegal_reward, True, False, {"illegal_action": exc.reason, "action_mask": self._mask}
        self._apply(chosen)
        self._play_opponents()
        reward = 0.0
        terminated = game.phase == Phase.OVER
        truncated = not terminated and self.max_turns is not None and game.turn >= self.max_turns
        obs = self._observation(final=truncated)
        before, self._score = self._score, game.scores[self.seat]
        info: dict[str, Any] = {"action_mask": self._mask, "turn": game.turn}
        self._done = terminated or truncated
        if terminated:
            res = self._final_result  # carried by the learner's final view
            assert res is not None
            reward = final_rewards(res, self.reward_mode)[self.seat]
            info["result"] = result_info(res)
            info["reward_parts"] = reward_parts(before, self._score, res["players"][self.seat])
        else:
            info["reward_parts"] = reward_parts(before, self._score, None)
        self._render_human()
        return obs, reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The current mask as booleans (the hook sb3-contrib's MaskablePPO looks for).

        Through Gymnasium wrappers: ``env.unwrapped.action_masks()`` or ``env.get_wrapper_attr("action_masks")()``."""
        return self._mask.astype(bool)

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # ------------------------------------------------------------------ internals
    def _apply(self, action: Action) -> None:
        game = self.game
        assert game is not None
        if self._listeners:
            events = game.apply(action)
            for sp in self._listeners:
                for e in events:
                    sp.observe(e.for_player(sp.seat))
        else:
            game.step(action)

    def _play_opponents(self) -> None:
        game = self.game
        assert game is not None
        players = self.seat_players
        while game.phase != Phase.OVER and game.current != self.seat:
            self._apply(players[game.current].act(game))

    def _observation(self, final: bool = False) -> Any:
        game = self.game
        assert game is not None and self._encoder is not None
        view = self._view
        assert view is not None
        self._final_result = game.result() if game.phase == Phase.OVER else None
        obs = self._encoder.encode(view, self._scale if self._flat else None)
        if final or game.phase == Phase.OVER:
            self._legal = ([], ())
            mask = np.zeros(self.codec.size, dtype=np.int8)
            if self.terminal_mask == "pass":
                mask[self._pass_index] = 1  # a placeholder to sample from: the episode is over, nothing is applied
        else:
            mask, indices, acts = self.codec.legal_mask(game.legal_actions(), view)
            self._legal = (indices, acts)
        self._mask = mask
        if self._flat:
            return obs
        return {"observation": obs, "action_mask": mask}
