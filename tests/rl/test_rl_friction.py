"""Issue 19's friction list, each checked with the real third-party library (Gymnasium, PettingZoo, Pillow, Tk)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test, state_test
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

import ttr.rl
from needs import missing
from ttr.bots import Bot, RandomBot
from ttr.engine import Game
from ttr.rl import IllegalActionIndex, TicketToRideEnv, ticket_to_ride_v0
from ttr.rl.render import PLAYER_RGB, RenderError, geometry_for

USA = ttr.rl.GYM_IDS["usa"]


def random_masked(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


# ---------------------------------------------------------------- render
def test_rgb_array_frames_draw_owners_from_the_map_coordinates() -> None:
    env = TicketToRideEnv("usa", render_mode="rgb_array", seat=0)
    obs, _ = env.reset(seed=3)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    rng = np.random.default_rng(0)
    while not any(o == 0 for o in env.game.route_owner):
        obs, *_ = env.step(random_masked(obs["action_mask"], rng))
    after = env.render()
    geo = geometry_for(env.game.edition)
    route = next(r for r in env.game.edition.routes if env.game.route_owner[r.index] == 0)
    x1, y1, x2, y2 = geo.segment[route.index]
    mid = after[round((y1 + y2) / 2), round((x1 + x2) / 2)]
    assert tuple(mid.tolist()) == PLAYER_RGB[0]  # the claimed route is drawn in its owner's colour
    assert tuple(frame[round((y1 + y2) / 2), round((x1 + x2) / 2)].tolist()) != PLAYER_RGB[0]


def test_human_mode_without_a_display_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(RenderError, match="needs a display"):
        TicketToRideEnv("usa", render_mode="human")
    with pytest.raises(RenderError, match="needs a display"):
        ticket_to_ride_v0.env(render_mode="human")
    assert "human" not in TicketToRideEnv("usa").metadata["render_modes"]  # what check_env will try
    with pytest.raises(ValueError, match="render_mode must be one of"):
        TicketToRideEnv("usa", render_mode="video")


@pytest.fixture(scope="module")
def xvfb_display() -> str:
    """A virtual X display (Debian's xvfb, installed by .ci/run): human mode needs a real window."""
    binary = shutil.which("Xvfb")
    if binary is None:
        missing("Xvfb is not installed (apt-get install xvfb): the human render mode is tested in a real window")
    display = f":{90 + os.getpid() % 500}"
    proc = subprocess.Popen([binary, display, "-screen", "0", "1024x768x24", "-nolisten", "tcp"], stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    yield display
    proc.terminate()
    proc.wait(timeout=10)


def test_pettingzoo_render_test_and_a_human_window(xvfb_display: str) -> None:
    code = textwrap.dedent(
        """
        from pettingzoo.test import render_test
        from ttr.rl import ticket_to_ride_v0
        import gymnasium as gym, ttr.rl
        render_test(lambda render_mode=None: ticket_to_ride_v0.env(edition="europe", players=3, render_mode=render_mode))
        env = gym.make("ttr/TicketToRide-usa-v0", render_mode="human")
        env.reset(seed=0)
        window = env.unwrapped._window
        root = window._root
        root.update()
        print(env.unwrapped.metadata["render_modes"], root.winfo_width(), root.winfo_height())
        env.close()
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "DISPLAY": xvfb_display},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("]")[0] == "['ansi', 'rgb_array', 'human'"
    assert [int(x) for x in out.stdout.split("]")[1].split()] == [800, 640]  # the window shows a whole frame


# ---------------------------------------------------------------- masks through wrappers and vector envs
def test_mask_in_info_and_through_gymnasium_wrappers() -> None:
    env = gym.make(USA)
    obs, info = env.reset(seed=1)
    with pytest.raises(AttributeError):  # Gymnasium 1.x wrappers do not forward attributes
        env.action_masks()  # type: ignore[attr-defined]
    assert np.array_equal(info["action_mask"], obs["action_mask"])
    assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), obs["action_mask"].astype(bool))
    obs, _, _, _, info = env.step(random_masked(info["action_mask"], np.random.default_rng(0)))
    assert np.array_equal(info["action_mask"], obs["action_mask"]) and info["action_mask"].any()


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    x = np.where(mask.astype(bool), logits, -np.inf)
    x = np.exp(x - x.max(axis=1, keepdims=True))
    return x / x.sum(axis=1, keepdims=True)


def test_default_vector_autoreset_gives_a_mask_safe_to_sample_from() -> None:
    """NEXT_STEP autoreset returns the terminal observation: its mask marks `pass` only (a placeholder)."""
    envs = gym.make_vec(USA, num_envs=2, vectorization_mode="sync", opponents="random")
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(1)
    ends = 0
    pass_index = envs.unwrapped.envs[0].unwrapped.codec.blocks["pass"].start
    while ends < 4:
        probs = masked_softmax(rng.normal(size=obs["action_mask"].shape), obs["action_mask"])
        assert not np.isnan(probs).any()
        actions = np.array([rng.choice(len(p), p=p) for p in probs])
        obs, _, term, trunc, _ = envs.step(actions)
        for i in np.flatnonzero(term | trunc):
            ends += 1
            assert np.flatnonzero(obs["action_mask"][i]).tolist() == [pass_index]
    env = TicketToRideEnv("usa", terminal_mask="zeros")  # the old all-zero terminal mask, on request
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        obs, _, done, _, _ = env.step(random_masked(obs["action_mask"], rng))
    assert not obs["action_mask"].any()


def test_same_step_autoreset_returns_the_next_games_first_mask() -> None:
    envs = gym.make_vec(
        USA, num_envs=2, vectorization_mode="sync", vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP}
    )
    obs, _ = envs.reset(seed=0)
    rng = np.random.default_rng(2)
    ends = 0
    while ends < 2:
        actions = np.array([random_masked(m, rng) for m in obs["action_mask"]])
        obs, _, term, _, info = envs.step(actions)
        for i in np.flatnonzero(term):
            ends += 1
            env = envs.unwrapped.envs[i].unwrapped
            assert env.game.turn <= 2 and np.array_equal(obs["action_mask"][i], env.action_masks())
            assert "final_obs" in info and len(info["final_info"]["result"]["winners"][i]) >= 1


# ---------------------------------------------------------------- flat observation
@pytest.mark.parametrize("edition", ["usa", "marklin"])
def test_flat_observation_in_unit_interval_with_the_mask_apart(edition: str) -> None:
    env = gym.make(ttr.rl.GYM_IDS[edition], observation="flat", illegal_action="terminate")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    space = env.observation_space
    assert isinstance(space, gym.spaces.Box) and space.low.min() == 0 and space.high.max() == 1
    raw = TicketToRideEnv(edition)
    obs, info = env.reset(seed=5)
    robs, _ = raw.reset(seed=5)
    rng = np.random.default_rng(3)
    high = raw.layout.high
    done = False
    while not done:
        assert space.contains(obs) and obs.shape == (raw.layout.size,)
        assert np.allclose(obs * high, robs["observation"], atol=1e-3)
        a = random_masked(info["action_mask"], rng)
        obs, _, done, _, info = env.step(a)
        robs, *_ = raw.step(a)


# ---------------------------------------------------------------- opponents
class FirstLegalBot(Bot):
    def act(self, view, legal):  # type: ignore[no-untyped-def]
        return legal[0]


def test_opponents_may_be_names_bot_objects_classes_or_policies() -> None:
    calls: list[int] = []

    def policy(obs: dict, mask: np.ndarray) -> int:
        assert np.array_equal(obs["action_mask"], mask)
        calls.append(int(mask.sum()))
        return int(np.flatnonzero(mask)[-1])

    bot = RandomBot(seed=0)
    env = TicketToRideEnv("usa", opponents=(bot, FirstLegalBot, policy, "easy"))
    assert env.players == 5
    obs, info = env.reset(seed=4)
    assert info["opponents"] == ["RandomBot object", "FirstLegalBot", "policy", "easy"]
    assert env.seat_players[1].bot is bot and isinstance(env.seat_players[2].bot, FirstLegalBot)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, *_ = env.step(random_masked(obs["action_mask"], rng))
    assert calls and all(c >= 1 for c in calls)

    flat_seen: list[np.ndarray] = []

    def flat_policy(obs: np.ndarray, mask: np.ndarray) -> int:
        flat_seen.append(obs)
        return int(np.flatnonzero(mask)[0])

    env = TicketToRideEnv("usa", opponents=flat_policy, observation="flat", seat=1)
    env.reset(seed=1)
    assert flat_seen and flat_seen[0].shape == (env.layout.size,) and flat_seen[0].max() <= 1
    with pytest.raises(TypeError, match="policy callable"):
        TicketToRideEnv("usa", opponents=(42,))


def test_a_policy_opponent_that_picks_a_masked_index_is_refused() -> None:
    env = TicketToRideEnv("usa", opponents=lambda obs, mask: int(np.flatnonzero(mask == 0)[0]), seat=1)
    obs, _ = env.reset(seed=0)  # the learner may move first: the opponent's first decision comes at a step
    with pytest.raises(IllegalActionIndex, match=r"opponent <lambda> \(seat 0\)"):
        for _ in range(10):
            obs, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))


# ---------------------------------------------------------------- PettingZoo: state, parallel env, which tests apply
def test_pettingzoo_tests_that_apply() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ticket_to_ride_v0.env(edition="usa", players=3, observation="flat"), num_cycles=200)
        parallel_api_test(ticket_to_ride_v0.parallel_env(edition="europe", players=3), num_cycles=300)
        seed_test(lambda: ticket_to_ride_v0.env(edition="nordic", players=2), num_cycles=100)
        # state_test steps with unmasked random actions: PettingZoo's own TerminateIllegalWrapper ends such games
        state_test(
            TerminateIllegalWrapper(ticket_to_ride_v0.raw_env(edition="marklin", players=3), illegal_reward=-1),
            ticket_to_ride_v0.parallel_env(edition="marklin", players=3),
        )


def test_state_is_privileged_and_fixed_size() -> None:
    env = ticket_to_ride_v0.raw_env(edition="usa", players=3)
    env.reset(seed=7)
    size = env.layout.size
    state = env.state()
    assert state.shape == (size * 5,) and env.state_space.contains(state)
    assert not state[3 * size :].any()  # seats absent from a 3-player game
    game = env.game
    for p in range(3):  # each block is that seat's own observation, hand included
        obs_p = env.observe(f"player_{p}")["observation"]
        assert np.array_equal(state[p * size : (p + 1) * size], obs_p)
    hand = env.layout.blocks["hand"]
    assert state[size + hand.start : size + hand.stop].tolist() == [game.hands[1][k] for k in env.layout.kinds]


def test_parallel_env_plays_whole_games_one_mover_at_a_time() -> None:
    env = ticket_to_ride_v0.parallel_env(edition="nordic", players=3, reward="win")
    obs, infos = env.reset(seed=2)
    rng = np.random.default_rng(5)
    steps = 0
    while env.agents:
        movers = [a for a in env.agents if infos[a]["to_move"]]
        assert len(movers) == 1 and all(obs[a]["action_mask"].any() == (a in movers) for a in env.agents)
        actions = {a: random_masked(obs[a]["action_mask"], rng) if a in movers else 0 for a in env.agents}
        obs, rewards, terms, _, infos = env.step(actions)
        steps += 1
    assert steps > 50 and all(terms.values()) and sorted(rewards.values())[-1] in (0.0, 1.0)
    assert isinstance(env.state(), np.ndarray)


def test_game_unchanged_by_render() -> None:
    env = ticket_to_ride_v0.raw_env(edition="marklin", players=2, render_mode="rgb_array")
    env.reset(seed=1)
    before = env.game.to_dict()
    frame = env.render()
    assert frame.shape == (640, 800, 3) and env.game.to_dict() == before
    assert Game.from_dict(before) == env.game
