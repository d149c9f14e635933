"""The learned value network at run time (numpy only): the shipped weights, the bot, the search leaf."""

from __future__ import annotations

import math

import numpy as np

from ttr.bots import make_bot
from ttr.bots.ismcts import outcome_value
from ttr.editions import get_edition
from ttr.engine import Game
from ttr.learn.value import ValueNet, features, game_features, load_value_net, shipped_path


def test_shipped_weights_load_and_give_values_in_range() -> None:
    path = shipped_path("usa")
    assert path is not None, "ttr/learn/weights/usa.npz is not in the package"
    assert path.stat().st_size < 3_000_000  # small enough to ship
    ed = get_edition("usa")
    net = load_value_net(ed)
    assert net is not None and net.edition == "usa"
    game = Game("usa", 2, 5)
    bots = [make_bot("hard", seed=i) for i in range(2)]
    values = []
    for _ in range(60):
        values.append([net.value(game, q) for q in range(2)])
        game.step(bots[game.current].act(game.view(game.current), game.legal_actions()))
    v = np.array(values)
    assert np.isfinite(v).all() and (v > 0).all() and (v < 1).all()
    assert v.std() > 1e-3  # not a constant


def test_no_weights_for_other_editions() -> None:
    assert load_value_net(get_edition("europe")) is None or shipped_path("europe") is not None


def test_features_read_the_view_only() -> None:
    game = Game("usa", 2, 3)
    for _ in range(10):
        game.step(make_bot("hard", seed=1).act(game.view(game.current), game.legal_actions()))
    a = game_features(game, 0)
    b = features(game.view(0), game.edition)
    assert np.array_equal(a, b)  # SeatView (live) and PlayerView encode the same
    other = game.clone()
    hand = other.hands[1]
    k = next(i for i, c in enumerate(hand) if c > 0)
    hand[k] -= 1  # the opponent's hidden hand differs, its size does not
    hand[(k + 1) % len(hand)] += 1
    assert np.array_equal(game_features(other, 0), a)


def test_outcome_value() -> None:
    assert outcome_value([100, 80], [0], 0) == 0.6 + 0.4 / (1 + math.exp(-20 / 15))
    assert outcome_value([100, 80], [0], 1) < 0.2
    assert abs(outcome_value([90, 90], [0, 1], 0) - 0.5) < 1e-12


def test_numpy_net_round_trip(tmp_path) -> None:
    rng = np.random.default_rng(0)
    layers = [(rng.normal(size=(5, 4)).astype(np.float32), rng.normal(size=4).astype(np.float32))]
    layers.append((rng.normal(size=(4, 1)).astype(np.float32), rng.normal(size=1).astype(np.float32)))
    net = ValueNet(layers, "usa")
    net.save(tmp_path / "n.npz")
    back = ValueNet.load(tmp_path / "n.npz")
    x = rng.normal(size=(3, 5)).astype(np.float32)
    h = np.maximum(x @ layers[0][0] + layers[0][1], 0) @ layers[1][0] + layers[1][1]
    assert np.allclose(back(x), 1 / (1 + np.exp(-h[:, 0])), atol=1e-6)


def _play(bots: list[str], seed: int) -> Game:
    game = Game("usa", len(bots), seed)
    players = [make_bot(b, seed=seed + i) for i, b in enumerate(bots)]
    while not game.is_over:
        p = game.current
        legal = game.legal_actions()
        action = players[p].act(game.view(p), legal)
        assert action in legal
        for e in game.apply(action):
            for r, b in enumerate(players):
                b.observe(e.for_player(r))
    return game


def test_learned_bot_plays_legal_games_and_uses_the_net() -> None:
    game = _play(["learned", "racer"], 2)
    assert game.is_over
    bot = make_bot("learned", seed=1)
    g = Game("usa", 2, 9)
    for _ in range(12):  # past the ticket choices, into turns with several candidates
        p = g.current
        a = bot.act(g.view(p), g.legal_actions()) if p == 0 else make_bot("racer").act(g.view(p), g.legal_actions())
        g.step(a)
    assert bot.last_values  # the network ranked candidates
    assert all(0 < v < 1 for v in bot.last_values.values())


def test_ismcts_with_the_net_as_leaf() -> None:
    game = _play(["ismcts:iterations=8:leaf_steps=6", "hard"], 4)
    assert game.is_over
    bot = make_bot("ismcts:iterations=8:leaf_steps=6", seed=1)
    g = Game("usa", 2, 9)
    bot.act(g.view(g.current), g.legal_actions())
    assert bot.net is not None
