"""Gymnasium environment: one learning seat against bots of chosen levels.

    import gymnasium as gym, ttr.rl
    env = gym.make("ttr/TicketToRide-usa-v0", opponents=("random", "easy"))

The learner acts only at its own decisions; the bots (``ttr.bots.make_bot``) play the other seats
between two learner steps, deciding from their own ``view`` and hearing the events their player may
see. The reward is 0 until the game ends. An index whose mask entry is 0 raises
``IllegalActionIndex`` (``illegal_action="raise"``, the default), or, with
``illegal_action="terminate"``, ends the episode with ``illegal_reward`` (as PettingZoo's
TerminateIllegalWrapper does; this is what lets ``check_env``'s unmasked random actions run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from ..bots import Bot, make_bot
from ..editions import Edition
from ..engine import Action, Game
from ..engine.phases import Phase
from .actions import IllegalActionIndex, codec_for
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

ILLEGAL_POLICIES = ("raise", "terminate")


class TicketToRideEnv(gym.Env):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        edition: Edition | str = "usa",
        opponents: Sequence[str] = ("random",),
        seat: int | str = 0,
        reward: str = "margin",
        options: dict[str, Any] | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        self._base, self.edition = resolve_edition(edition, options)
        self.options = dict(options or {})
        if isinstance(opponents, str):
            opponents = (opponents,)
        self.opponents = tuple(opponents)
        self.players = 1 + len(self.opponents)
        lo, hi = self.edition.rules.players
        if not lo <= self.players <= hi:
            raise ValueError(
                f"{self.edition.name} is for {lo}-{hi} players; {len(self.opponents)} opponent(s) make {self.players}"
            )
        for name in self.opponents:
            make_bot(name, seed=0)  # fail now, not at the first reset, on an unknown bot
        if seat != "random" and (not isinstance(seat, int) or not 0 <= seat < self.players):
            raise ValueError(f"seat must be 0..{self.players - 1} or 'random', not {seat!r}")
        self.seat_choice = seat
        if illegal_action not in ILLEGAL_POLICIES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_POLICIES}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = check_render_mode(render_mode, self.metadata)
        self.reward_mode = check_reward_mode(reward)
        self.codec = codec_for(self.edition)
        self.layout = layout_for(self.edition)
        self.observation_space, self.action_space = make_spaces(self.codec, self.layout)
        self.game: Game | None = None
        self.seat = 0
        self.bots: list[Bot | None] = []
        self._wants_events: list[bool] = []
        self._encoder: ObservationEncoder | None = None
        self._table: dict[int, Action] = {}
        self._done = True
        self._final_result: dict[str, Any] | None = None

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = int(rng.integers(self.players)) if self.seat_choice == "random" else int(self.seat_choice)
        game_seed = int(rng.integers(2**48))
        self.game = Game(self._base, self.players, game_seed, self.options or None)
        names = iter(self.opponents)
        self.bots = [
            None if p == self.seat else make_bot(next(names), seed=int(rng.integers(2**48))) for p in range(self.players)
        ]
        self._wants_events = [b is not None and type(b).observe is not Bot.observe for b in self.bots]
        self._encoder = ObservationEncoder(self.layout, self.seat)
        self._done = False
        self._play_bots()
        return self._observation(), {"seat": self.seat, "game_seed": game_seed}

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        try:
            chosen = pick(self.codec, self._table, action, game, f"the learner (seat {self.seat})")
        except IllegalActionIndex as exc:
            if self.illegal_action == "raise":
                raise
            self._done = True
            obs = self._observation(final=True)
            return obs, self.illegal_reward, True, False, {"illegal_action": exc.reason}
        self._apply(chosen)
        self._play_bots()
        info: dict[str, Any] = {}
        reward = 0.0
        obs = self._observation()
        terminated = self._done = game.phase == Phase.OVER
        if terminated:
            res = self._final_result  # carried by the learner's final view
            assert res is not None
            reward = final_rewards(res, self.reward_mode)[self.seat]
            info = {"result": result_info(res)}
        return obs, reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The current mask as booleans (the hook sb3-contrib's MaskablePPO looks for)."""
        return mask_from(self._table, self.codec.size).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None or self.game is None:
            return None
        return render_text(self.game)

    # ------------------------------------------------------------------ internals
    def _apply(self, action: Action) -> None:
        game = self.game
        assert game is not None
        if any(self._wants_events):
            events = game.apply(action)
            for seat, bot in enumerate(self.bots):
                if bot is not None and self._wants_events[seat]:
                    for e in events:
                        bot.observe(e.for_player(seat))
        else:
            game.step(action)

    def _play_bots(self) -> None:
        game = self.game
        assert game is not None
        while game.phase != Phase.OVER and game.current != self.seat:
            p = game.current
            bot = self.bots[p]
            assert bot is not None
            self._apply(bot.act(game.view(p), game.legal_actions()))

    def _observation(self, final: bool = False) -> dict[str, np.ndarray]:
        game = self.game
        assert game is not None and self._encoder is not None
        view = game.view(self.seat)
        self._final_result = view.result
        obs = self._encoder.encode(view)
        if final or game.phase == Phase.OVER:
            self._table = {}
        else:
            self._table = legal_table(self.codec, game, view)
        return {"observation": obs, "action_mask": mask_from(self._table, self.codec.size)}
