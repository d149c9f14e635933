"""Self-play: opponents drawn per episode from a pool that is updated during training."""

from __future__ import annotations

import numpy as np
import pytest

from ttr.bots import RandomBot
from ttr.rl import ticket_to_ride_v0
from ttr.rl.opponents import OpponentPool
from ttr.rl.selfplay import DEFAULT_LEAGUE, PoolOpponentsAEC, default_pool, selfplay_env


def first_legal(obs: object, mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def test_gym_pool_draws_per_episode_and_follows_updates() -> None:
    pool = OpponentPool(["random", "easy"])
    env = selfplay_env(pool, edition="usa", players=3)
    drawn = set()
    for episode in range(12):
        _, info = env.reset(seed=episode)
        assert len(info["opponents"]) == 2
        drawn.update(info["opponents"])
    assert drawn == {"random", "easy"}
    pool.add(first_legal, name="snapshot-1", weight=1000.0)  # "during training": the next games see it
    pool.remove("easy")
    seen = []
    for episode in range(5):
        obs, info = env.reset(seed=100 + episode)
        seen += info["opponents"]
        for _ in range(5):
            obs, *_ = env.step(first_legal(obs, obs["action_mask"]))
    assert "easy" not in seen and seen.count("snapshot-1") >= 8
    assert set(default_pool().names) == set(DEFAULT_LEAGUE) >= {"random", "easy", "medium", "hard", "racer"}


def test_pool_refuses_bad_entries() -> None:
    pool = OpponentPool(["random"])
    with pytest.raises(ValueError, match="unknown bot"):
        pool.add("nobody")
    with pytest.raises(ValueError, match="already has"):
        pool.add("random")
    with pytest.raises(ValueError, match="weight"):
        pool.add("easy", weight=0)
    with pytest.raises(KeyError, match="no opponent named"):
        pool.remove("hard")
    with pytest.raises(ValueError, match="empty"):
        OpponentPool().sample(np.random.default_rng(0), 1)


def test_a_bot_object_drawn_twice_gets_a_copy() -> None:
    bot = RandomBot(seed=1)
    env = selfplay_env(OpponentPool([bot]), edition="usa", players=3)
    env.reset(seed=0)
    a, b = (env.seat_players[p].bot for p in env.seat_players)
    assert (a is bot) != (b is bot) and isinstance(a, RandomBot) and isinstance(b, RandomBot)


def test_aec_pool_plays_the_other_agents() -> None:
    pool = OpponentPool(["random", "racer", first_legal])
    env = PoolOpponentsAEC(ticket_to_ride_v0.env(edition="nordic", players=3), pool, learners=("player_1",), seed=0)
    env.reset(seed=4)
    assert set(env.opponent_names) == {"player_0", "player_2"}
    rng = np.random.default_rng(0)
    moves = 0
    for agent in env.agent_iter():
        assert agent == "player_1"
        obs, reward, term, trunc, info = env.last()
        if term:
            final = info["result"]
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        moves += 1
    assert moves > 20 and env.unwrapped.game.is_over
    assert len(final["scores"]) == 3 and reward == final["scores"][1] - max(final["scores"][0], final["scores"][2])
    with pytest.raises(ValueError, match="no seat"):
        PoolOpponentsAEC(ticket_to_ride_v0.env(players=2), pool, learners=("player_0", "player_1"))
