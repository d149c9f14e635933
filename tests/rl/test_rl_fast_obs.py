"""The environments' fast observation path (incremental encoder reading the game through a SeatView,
masks from the codec's cached indices) gives exactly what a straightforward encoding of each player's
``PlayerView`` gives, and reads nothing a seat may not see."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rl.reference_obs import reference_encode
from ttr.editions import BUILTIN
from ttr.engine import Game
from ttr.rl import TicketToRideEnv, ticket_to_ride_v0
from ttr.rl.actions import codec_for
from ttr.rl.common import layout_for

PLAYERS = {"usa": (2, 5), "europe": (3,), "nordic": (2, 3), "marklin": (4,)}
CASES = [(e, n) for e in BUILTIN for n in PLAYERS[e]]


def reference_mask(game: Game, p: int) -> np.ndarray:
    codec = codec_for(game.edition)
    mask = np.zeros(codec.size, dtype=np.int8)
    if p == game.current and not game.is_over:
        mask[list(codec.legal_table(game.legal_actions(), game.view(p)))] = 1
    return mask


@pytest.mark.parametrize(("edition", "players"), CASES)
def test_aec_observations_equal_the_reference_encoding_of_the_view(edition: str, players: int) -> None:
    """Every seat's observation and mask, at every step of random games, bit for bit. The same encoders
    are reused across games (reset between them) and seats are observed at irregular intervals, as
    training loops do."""
    env = ticket_to_ride_v0.raw_env(edition=edition, players=players)
    layout = layout_for(env.edition)
    rng = random.Random(7)
    checked = 0
    for game_no in range(2):
        env.reset(seed=100 + game_no)
        while env.agents:
            game = env.game
            assert game is not None
            for agent in env.agents:
                p = int(agent.split("_")[1])
                if agent != env.agent_selection and rng.random() < 0.5:
                    continue  # some seats skip observations: their encoder must catch up over several steps
                obs = env.observe(agent)
                expected = reference_encode(layout, game.view(p))
                assert obs["observation"].dtype == np.float32
                np.testing.assert_array_equal(obs["observation"], expected, err_msg=f"{agent} turn {game.turn}")
                assert np.array_equal(obs["action_mask"], reference_mask(game, p)), agent
                checked += 1
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 300


@pytest.mark.parametrize("edition", BUILTIN)
def test_state_and_gym_observations_equal_the_reference(edition: str) -> None:
    env = ticket_to_ride_v0.raw_env(edition=edition, players=2)
    layout = layout_for(env.edition)
    env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(60):
        if not env.agents:
            break
        game = env.game
        assert game is not None
        state = env.state().reshape(layout.seats, layout.size)
        for p in range(2):
            np.testing.assert_array_equal(state[p], reference_encode(layout, game.view(p)))
        obs, _, term, _, _ = env.last()
        env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    genv = TicketToRideEnv(edition, opponents="random")
    obs, info = genv.reset(seed=5)
    for _ in range(40):
        game = genv.game
        assert game is not None
        np.testing.assert_array_equal(obs["observation"], reference_encode(layout, game.view(genv.seat)))
        assert np.array_equal(info["action_mask"], reference_mask(game, genv.seat))
        obs, _, term, _, info = genv.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term:
            break
