"""The observation: built from the player's view only, in bounds, and saying what docs/rl.md says."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from ttr.cards import CARD_INDEX, CARD_NAMES
from ttr.editions import BUILTIN
from ttr.engine import Game
from ttr.rl import ticket_to_ride_v0
from ttr.rl.actions import codec_for
from ttr.rl.common import layout_for
from ttr.rl.observation import ObservationEncoder


def played(edition: str, players: int, seed: int, steps: int) -> Game:
    game = Game(edition, players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.step(rng.choice(game.legal_actions()))
    return game


def hide_differently(position: dict[str, Any], me: int, rng: random.Random) -> dict[str, Any]:
    """The same position for player `me`, with the others' hands, tickets and the deck order changed."""
    d = {**position}
    d["hands"] = [dict(h) for h in d["hands"]]
    d["deck"] = list(d["deck"])
    d["tickets"] = [list(t) for t in d["tickets"]]
    d["ticket_decks"] = {k: list(v) for k, v in d["ticket_decks"].items()}
    for p, hand in enumerate(d["hands"]):
        if p == me:
            continue
        for _ in range(3):  # swap a card of p's hand with a different card of the deck
            held = [k for k, v in hand.items() if v]
            if not held or not d["deck"]:
                break
            give = rng.choice(held)
            j = next((i for i, c in enumerate(d["deck"]) if c != give), None)
            if j is None:
                break
            take = d["deck"][j]
            d["deck"][j] = give
            hand[give] -= 1
            hand[take] = hand.get(take, 0) + 1
        hand_clean = {k: v for k, v in hand.items() if v}
        d["hands"][p] = hand_clean
        for i, t in enumerate(d["tickets"][p]):  # swap p's tickets with tickets still in a deck
            for deck in d["ticket_decks"].values():
                if deck:
                    d["tickets"][p][i], deck[0] = deck[0], t
                    break
    rng.shuffle(d["deck"])
    d["rng"] = [d["rng"][0], [(x * 7 + 1) % 2**32 for x in d["rng"][1][:-1]] + [d["rng"][1][-1]], d["rng"][2]]
    return d


@pytest.mark.parametrize("edition", BUILTIN)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_observation_and_mask_ignore_other_players_secrets(edition: str, seed: int) -> None:
    game = played(edition, 3, seed, 40 + 25 * seed)
    me = game.current
    other = Game.from_dict(hide_differently(game.to_dict(), me, random.Random(seed)))
    assert other.hands != game.hands or other.tickets != game.tickets
    assert other.deck != game.deck
    layout = layout_for(game.edition)
    a = ObservationEncoder(layout, me).encode(game.view(me))
    b = ObservationEncoder(layout, me).encode(other.view(me))
    assert np.array_equal(a, b)
    codec = codec_for(game.edition)
    assert sorted(codec.legal_table(game.legal_actions(), game.view(me))) == sorted(
        codec.legal_table(other.legal_actions(), other.view(me))
    )
    for p in range(game.n):  # and the others' own observations do see their changed hands
        if p != me and game.hands[p] != other.hands[p]:
            assert not np.array_equal(
                ObservationEncoder(layout, p).encode(game.view(p)), ObservationEncoder(layout, p).encode(other.view(p))
            )


@pytest.mark.parametrize("edition", BUILTIN)
def test_observations_stay_in_bounds_with_the_most_players(edition: str) -> None:
    players = Game(edition, 2, 0).rules.players[1]
    env = ticket_to_ride_v0.raw_env(edition=edition, players=players)
    space = env.observation_space("player_0")
    rng = random.Random(1)
    env.reset(seed=11)
    seen = 0
    while env.agents:
        for agent in env.agents:  # every agent, not only the one to move
            obs = env.observe(agent)
            assert space.contains(obs), agent
            seen += 1
        obs, _, term, _, _ = env.last()
        env.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert seen > 200


def block(obs: np.ndarray, layout: Any, name: str) -> np.ndarray:
    b = layout.blocks[name]
    return obs[b.start : b.stop]


def test_blocks_say_what_the_view_says() -> None:
    game = played("europe", 3, 4, 150)
    me = game.current
    layout = layout_for(game.edition)
    view = game.view(me)
    obs = ObservationEncoder(layout, me).encode(view)
    assert block(obs, layout, "hand").tolist() == [view.hand[k] for k in layout.kinds]
    assert layout.kinds == [CARD_INDEX[k] for k in CARD_NAMES[:9]]
    s = layout.seats
    routes = block(obs, layout, "routes").reshape(-1, s)
    for r, owner in enumerate(view.route_owner):
        expected = np.zeros(s)
        if owner >= 0:
            expected[(owner - me) % game.n] = 1
        assert routes[r].tolist() == expected.tolist()
    tickets = block(obs, layout, "tickets").reshape(-1, 2)
    status = dict((t.index, done) for t, done in game.ticket_status(me))
    for t in range(len(game.edition.tickets)):
        assert tickets[t, 0] == (t in status)
        assert tickets[t, 1] == (status.get(t, False))
    public = block(obs, layout, "public").reshape(s, -1)
    fields = layout.public_fields
    for rel in range(game.n):
        p = (me + rel) % game.n
        assert public[rel, fields.index("score")] == game.scores[p]
        assert public[rel, fields.index("cards")] == sum(game.hands[p])
        assert public[rel, fields.index("stations_left")] == game.stations_left[p]
    assert not public[game.n :].any()  # seats beyond the player count stay empty
    phase = block(obs, layout, "phase")
    assert (
        phase.sum() == 1
        and phase[["setup", "turn", "second_card", "keep_tickets", "tunnel", "place_passenger", "over"].index(game.phase)] == 1
    )


def test_incremental_encoding_matches_a_fresh_encoder() -> None:
    """The encoder rewrites only changed blocks; the result must equal encoding from scratch."""
    layout = layout_for(Game("marklin", 3, 0).edition)
    encoders = [ObservationEncoder(layout, p) for p in range(3)]
    rng = random.Random(2)
    for seed in (9, 10):  # the second game reuses the encoders without reset: they must notice
        game = Game("marklin", 3, seed)
        while not game.is_over:
            p = game.current
            view = game.view(p)
            assert np.array_equal(encoders[p].encode(view), ObservationEncoder(layout, p).encode(view))
            game.step(rng.choice(game.legal_actions()))
