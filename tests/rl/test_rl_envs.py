"""The PettingZoo and Gymnasium environments: API checkers, rewards, seeding, bots."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import ttr.rl
from ttr.bots import RandomBot
from ttr.editions import BUILTIN
from ttr.rl import IllegalActionIndex, TicketToRideEnv, ticket_to_ride_v0


@pytest.mark.parametrize("edition", BUILTIN)
def test_pettingzoo_api_test(edition: str) -> None:
    players = {"usa": 4, "europe": 3, "nordic": 2, "marklin": 3}[edition]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(ticket_to_ride_v0.env(edition=edition, players=players, render_mode="ansi"), num_cycles=400)
    # api_test warns about every Dict observation (the action-mask convention it itself supports): nothing else
    expected = {
        "Observation is not a NumPy array",
        "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
    }
    assert {str(w.message) for w in caught} <= expected


@pytest.mark.parametrize("edition", BUILTIN)
def test_gymnasium_check_env(edition: str) -> None:
    env = gym.make(ttr.rl.GYM_IDS[edition], illegal_action="terminate", render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any checker warning fails the test
        check_env(env.unwrapped)


def test_gym_ids_are_registered_with_a_version() -> None:
    for edition in BUILTIN:
        assert gym.spec(f"ttr/TicketToRide-{edition}-v0").kwargs == {"edition": edition}
    env = gym.make("ttr/TicketToRide-nordic-v0", opponents=("random", "easy"))
    assert env.unwrapped.players == 3 and env.unwrapped.edition.id == "nordic"
    assert ticket_to_ride_v0.raw_env().metadata["name"] == "ticket_to_ride_v0"


def masked_episode(env: TicketToRideEnv, seed: int, policy_seed: int) -> tuple[list[np.ndarray], float, dict]:
    rng = random.Random(policy_seed)
    obs, _ = env.reset(seed=seed)
    seen = [obs["observation"]]
    while True:
        action = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append(obs["observation"])
        assert not truncated
        if terminated:
            return seen, reward, info


@pytest.mark.parametrize("reward", ["margin", "win"])
def test_gym_episode_is_reproducible_and_rewarded_at_the_end(reward: str) -> None:
    env = TicketToRideEnv("europe", opponents=("random", "random"), seat="random", reward=reward)
    a, ra, info = masked_episode(env, seed=42, policy_seed=1)
    b, rb, _ = masked_episode(env, seed=42, policy_seed=1)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert ra == rb
    scores, winners = info["result"]["scores"], info["result"]["winners"]
    me = env.seat
    if reward == "margin":
        assert ra == scores[me] - max(s for p, s in enumerate(scores) if p != me)
    else:
        assert ra == (1.0 if winners == [me] else 0.0 if me in winners else -1.0)
    c, _, _ = masked_episode(env, seed=43, policy_seed=1)
    assert len(c) != len(a) or any(not np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_gym_raises_on_a_masked_action_by_default_and_terminates_if_asked() -> None:
    env = TicketToRideEnv("usa")
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionIndex, match="not legal"):
        env.step(bad)
    assert env.action_masks().tolist() == obs["action_mask"].astype(bool).tolist()  # nothing changed
    env = TicketToRideEnv("usa", illegal_action="terminate", illegal_reward=-5)
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step(bad)
    assert (reward, terminated) == (-5.0, True) and "not legal" in info["illegal_action"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(bad)


def test_gym_bots_play_the_other_seats() -> None:
    env = TicketToRideEnv("marklin", opponents=("easy", "medium", "random"), seat=2)
    obs, info = env.reset(seed=5)
    assert info["seat"] == 2 and env.game.current == 2
    rng = random.Random(0)
    done = False
    while not done:
        assert env.game.current == 2
        obs, _, done, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    assert np.flatnonzero(obs["action_mask"]).tolist() == [env.codec.blocks["pass"].start]  # terminal placeholder
    with pytest.raises(ValueError, match="unknown bot"):
        TicketToRideEnv("usa", opponents=("nobody",))
    with pytest.raises(ValueError, match="2-3 players"):
        TicketToRideEnv("nordic", opponents=("random",) * 3)


def aec_trace(seed: int) -> list[tuple[str, bytes, float]]:
    env = ticket_to_ride_v0.env(edition="nordic", players=3, reward="win")
    env.reset(seed=seed)
    rng = random.Random(0)
    out = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        out.append((agent, obs["observation"].tobytes(), reward))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def test_aec_reset_seed_is_reproducible_and_rewards_sum_up() -> None:
    a = aec_trace(9)
    assert a == aec_trace(9)
    assert a != aec_trace(10)
    final = {agent: r for agent, _, r in a[-3:]}
    assert sorted(final.values()) in ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def test_aec_unseeded_resets_follow_the_last_seed() -> None:
    env = ticket_to_ride_v0.raw_env(edition="usa", players=2)
    env.reset(seed=1)
    env.reset()
    first = env.game_seed
    env.reset(seed=1)
    env.reset()
    assert env.game_seed == first
    env.reset()
    assert env.game_seed != first


def test_aec_margin_rewards_and_only_the_mover_has_a_mask() -> None:
    env = ticket_to_ride_v0.raw_env(edition="usa", players=3)
    env.reset(seed=2)
    rng = random.Random(4)
    while not env.terminations[env.agent_selection]:
        for agent in env.agents:
            if agent != env.agent_selection:
                assert not env.observe(agent)["action_mask"].any()
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    scores = env.infos["player_0"]["result"]["scores"]
    for p, agent in enumerate(env.possible_agents):
        assert env.rewards[agent] == scores[p] - max(s for q, s in enumerate(scores) if q != p)
    with pytest.raises(ValueError, match="None"):
        env.step(0)


def test_rule_options_shape_the_spaces() -> None:
    env = ticket_to_ride_v0.raw_env(edition="europe", players=2, options={"stations": 0, "trains": 15})
    assert "build_station" not in env.codec.blocks and "stations" not in env.layout.blocks
    full = ticket_to_ride_v0.raw_env(edition="europe", players=2)
    assert env.codec.size == full.codec.size - full.codec.blocks["build_station"].size
    env.reset(seed=3)
    rng = random.Random(3)
    while env.agents:
        obs, _, term, _, _ = env.last()
        env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.game.is_over and env.game.options == {"stations": 0, "trains": 15}
    assert all(t <= 15 for t in env.game.trains)


def test_the_rest_of_the_package_does_not_import_the_rl_extra() -> None:
    code = (
        "import sys, ttr, ttr.engine, ttr.bots, ttr.sim.runner, ttr.cli; "
        "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


class RecordingBot(RandomBot):
    """A random bot that keeps the events it is shown."""

    def __init__(self, seed: int | None = None, **options: object) -> None:
        super().__init__(seed=seed)
        self.seen: list[dict] = []

    def observe(self, event: dict) -> None:
        self.seen.append(event)


def test_gym_bots_hear_the_events_their_seat_may_see(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ttr.rl.opponents.make_bot", lambda name, seed=None: RecordingBot(seed))
    env = TicketToRideEnv("usa", opponents=("recording",), seat=0)
    obs, _ = env.reset(seed=8)
    rng = random.Random(1)
    for _ in range(30):
        obs, _, done, _, _ = env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
        if done:
            break
    bot = env.seat_players[1].bot
    learner_blind = [e for e in bot.seen if e["type"] == "draw_blind" and e["player"] == 0]
    own_blind = [e for e in bot.seen if e["type"] == "draw_blind" and e["player"] == 1]
    assert learner_blind and all("card" not in e for e in learner_blind)  # the learner's secret stays hidden
    assert own_blind and all("card" in e for e in own_blind)


def test_aec_setup_selects_a_seat_that_may_act_and_masks_the_others() -> None:
    """Setup is simultaneous in the engine (every seat still choosing may act); the AEC env acts one agent
    at a time: the first seat still choosing (``current``), the others see an empty mask until their go."""
    env = ticket_to_ride_v0.env(edition="usa", players=3)
    env.reset(seed=4)
    game = env.unwrapped.game
    seen = []
    while game.phase == "setup":
        agent = env.agent_selection
        seat = env.unwrapped._seat[agent]
        assert seat == game.to_act()[0] and len(game.to_act()) == 3 - len(seen)
        for other in env.agents:
            assert env.observe(other)["action_mask"].any() == (other == agent)
        seen.append(seat)
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert sorted(seen) == [0, 1, 2] and game.current == game.first_player
