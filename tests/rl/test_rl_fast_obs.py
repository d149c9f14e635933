"""The environments' fast observation path (incremental encoder reading the game through a SeatView,
masks from the codec's cached indices) gives exactly what a straightforward encoding of each player's
``PlayerView`` gives, and reads nothing a seat may not see."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rl.reference_obs import reference_encode
from ttr.editions import BUILTIN
from ttr.engine import Game, PlayerView
from ttr.rl import TicketToRideEnv, ticket_to_ride_v0
from ttr.rl.actions import codec_for
from ttr.rl.common import layout_for
from ttr.rl.seatview import FIELDS, SeatView

PLAYERS = {"usa": (2, 5), "europe": (2, 3, 5), "nordic": (2, 3), "marklin": (2, 4, 5)}  # 2, the most, and others
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


@pytest.mark.parametrize("edition", BUILTIN)
def test_seat_view_shows_a_subset_of_the_player_view_and_equal_values(edition: str) -> None:
    """A SeatView offers only PlayerView fields, each equal to game.view(me)'s at every step; the lists
    it binds once are still the game's own objects at the end (the engine changes them in place)."""
    players = 4 if edition != "nordic" else 3
    game = Game(edition, players, 21)
    views = [SeatView(game, p) for p in range(players)]
    public = {name for name in dir(SeatView) if not name.startswith("_")}
    assert public == set(FIELDS)
    assert set(FIELDS) <= set(PlayerView.__slots__)
    rng = random.Random(21)
    steps = 0
    while not game.is_over and steps < 400:
        for p, live in enumerate(views):
            if rng.random() < 0.3 or p == game.current:
                full = game.view(p)
                for name in FIELDS:
                    assert getattr(live, name) == getattr(full, name), (name, p, game.turn)
        game.step(rng.choice(game.legal_actions()))
        steps += 1
    for p, live in enumerate(views):
        assert live.hand is game.hands[p] and live.tickets is game.tickets[p]
        for name in ("scores", "trains", "stations_left", "route_owner", "station_owner", "market", "passengers", "merch"):
            assert getattr(live, name) is getattr(game, name), name
    with pytest.raises(ValueError, match="seat 4"):
        SeatView(game, 4)


@pytest.mark.parametrize("edition", BUILTIN)
def test_env_observations_through_the_seat_view_ignore_other_players_secrets(edition: str) -> None:
    """The env's own path (SeatView -> encoder, SeatView -> codec): positions that differ only in the
    others' hands and tickets, the deck order and the random state give the same observation and mask."""
    from rl.test_rl_observation import hide_differently, played

    game = played(edition, 3, 5, 90)
    me = game.current
    other = Game.from_dict(hide_differently(game.to_dict(), me, random.Random(5)))
    assert other.hands != game.hands or other.tickets != game.tickets
    out = []
    for g in (game, other):
        env = ticket_to_ride_v0.raw_env(edition=edition, players=3)
        env.reset(seed=0)
        env.game = g  # the env observing this position
        env._seats = [SeatView(g, p) for p in range(3)]
        env._legal = None
        env.agent_selection = f"player_{g.current}"
        out.append(env.observe(f"player_{me}"))
    assert np.array_equal(out[0]["observation"], out[1]["observation"])
    assert np.array_equal(out[0]["action_mask"], out[1]["action_mask"])
    assert out[0]["action_mask"].any()


@pytest.mark.parametrize("edition", BUILTIN)
def test_encoder_switching_between_the_route_log_and_its_own_diff(edition: str) -> None:
    """An encoder given a RouteLog uses it only for views of the log's game: views of another game in
    between (its own diff) and back again (the log) still equal the reference encoding."""
    from ttr.rl.observation import ObservationEncoder, RouteLog

    players = 3 if edition != "nordic" else 2
    games = [Game(edition, players, 31), Game(edition, players, 32)]
    layout = layout_for(games[0].edition)
    enc = ObservationEncoder(layout, 1)
    enc.route_log = RouteLog(games[0].route_owner)
    seats = [SeatView(g, 1) for g in games]
    rng = random.Random(31)
    for step in range(300):
        which = 0 if step % 7 < 5 else 1
        g = games[which]
        if not g.is_over:
            g.step(rng.choice(g.legal_actions()))
        if rng.random() < 0.6:
            np.testing.assert_array_equal(enc.encode(seats[which]), reference_encode(layout, g.view(1)), err_msg=f"step {step}")
